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
// A task may hold several connections (one per address of a run with
// several targets), but parks on one at a time: conn, the one it last
// waited on or dialed, whose events and deadline the loop follows.
type Task struct {
	loop    *Loop
	slot    int32 // index in loop.tasks, carried by its epoll events
	next    func() (struct{}, bool)
	stop    func()
	yield   func(struct{}) bool
	wait    waitKind
	until   int64  // waitTimer: when to wake, in nanoseconds since epoch
	conn    *Conn  // the connection the task waits on (see use); nil = none
	gen     uint32 // connections opened so far; tells a closed one's stale events apart
	expired bool   // the wait ended by time or Interrupt, not by readiness
	done    bool
	drive   func() bool // Conn.Drive's handler while the task is parked in it; nil otherwise
}

// park yields to the loop until the wait ends. It reports whether the wait
// ended by readiness (false: by deadline, Sleep's end or Interrupt).
func (t *Task) park(w waitKind) bool {
	t.wait, t.expired = w, false
	t.yield(struct{}{})
	return !t.expired
}

// due returns when the parked task's wait runs out, in nanoseconds since
// epoch (1 = already; 0 = never).
func (t *Task) due() int64 {
	if t.wait == waitTimer {
		return t.until
	}
	if t.conn == nil {
		return 0
	}
	return t.conn.due()
}

// running reports whether the task's own code is running: only then may
// it park. A Drive handler runs on the loop's stack while the task stays
// parked.
func (t *Task) running() bool { return t.loop.cur == t }

// Sleep parks the task for d (plus the kernel's timer slack, 50 µs by
// default; up to a millisecond without epoll_pwait2) or until the loop is
// interrupted, whichever comes first.
func (t *Task) Sleep(d time.Duration) {
	if t.loop.Interrupted() {
		return
	}
	t.until = sinceEpoch(time.Now().Add(d))
	t.loop.noteDue(t.until)
	t.park(waitTimer)
}

// Interrupted reports whether the task's loop was interrupted.
func (t *Task) Interrupted() bool { return t.loop.Interrupted() }

// use makes c the connection the task waits on, the one whose events and
// deadline the loop follows. The connection it turns from stops being
// watched, so that its events (a server closing it while it is idle) do
// not wake the loop, level-triggered, until the task uses it again. With
// one connection per task this is a comparison.
func (t *Task) use(c *Conn) {
	if t.conn == c {
		return
	}
	if old := t.conn; old != nil && !old.closed {
		_ = old.watch(0, "read")
	}
	t.conn = c
}
