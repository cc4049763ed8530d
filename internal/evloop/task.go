//go:build linux

package evloop

import "time"

// waitKind is what a parked task waits for.
type waitKind uint8

const (
	waitNone  waitKind = iota // running, runnable or finished
	waitRead                  // its connection to be readable
	waitWrite                 // its connection to be writable
	waitTimer                 // until (a Sleep)
)

// Task is one coroutine of a Loop. Its methods must be called from the
// task's own code; the loop reads its fields only while the task is parked.
// A task holds at most one connection at a time.
type Task struct {
	loop    *Loop
	slot    int32 // index in loop.tasks, carried by its epoll events
	next    func() (struct{}, bool)
	stop    func()
	yield   func(struct{}) bool
	wait    waitKind
	until   time.Time // waitTimer: when to wake
	conn    *Conn     // the open connection; nil = none
	gen     uint32    // connections opened so far; tells a closed one's stale events apart
	expired bool      // the wait ended by time or Interrupt, not by readiness
	done    bool
}

// park yields to the loop until the wait ends. It reports whether the wait
// ended by readiness (false: by deadline, Sleep's end or Interrupt).
func (t *Task) park(w waitKind) bool {
	t.wait, t.expired = w, false
	t.yield(struct{}{})
	return !t.expired
}

// due reports whether the task's wait has run out at now.
func (t *Task) due(now time.Time) bool {
	if t.wait == waitTimer {
		return !now.Before(t.until)
	}
	return t.conn != nil && t.conn.pastDeadline(now)
}

// Sleep parks the task for d (rounded up to the loop's Scan) or until the
// loop is interrupted, whichever comes first.
func (t *Task) Sleep(d time.Duration) {
	if t.loop.Interrupted() {
		return
	}
	t.until = time.Now().Add(d)
	t.park(waitTimer)
}

// Interrupted reports whether the task's loop was interrupted.
func (t *Task) Interrupted() bool { return t.loop.Interrupted() }
