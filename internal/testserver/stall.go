package testserver

import (
	"sync/atomic"
	"time"
)

// stall holds the server-wide stall deadline set by Server.Stall. Every
// response waits until the deadline before it starts. Reading it costs one
// atomic load when no stall is set. The zero value is not ready: call init.
type stall struct {
	cur atomic.Pointer[stallState]
}

// stallState is one setting of the stall; it is replaced, never modified.
type stallState struct {
	until   time.Time     // zero: no stall
	changed chan struct{} // closed when the setting is replaced
}

func (st *stall) init() {
	st.cur.Store(&stallState{changed: make(chan struct{})})
}

// set makes responses wait until now+d; d <= 0 cancels the stall and
// releases every waiting response.
func (st *stall) set(d time.Duration) {
	next := &stallState{changed: make(chan struct{})}
	if d > 0 {
		next.until = time.Now().Add(d)
	}
	close(st.cur.Swap(next).changed)
}

// Wait blocks until the stall deadline passes, following changes of the
// setting. It returns false if gone or done is closed first (nil channels
// never are).
func (st *stall) Wait(gone, done <-chan struct{}) bool {
	for {
		cur := st.cur.Load()
		if cur.until.IsZero() {
			return true
		}
		d := time.Until(cur.until)
		if d <= 0 {
			return true
		}
		t := time.NewTimer(d)
		select {
		case <-t.C:
			return true
		case <-cur.changed:
			t.Stop()
		case <-gone:
			t.Stop()
			return false
		case <-done:
			t.Stop()
			return false
		}
	}
}
