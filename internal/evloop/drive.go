//go:build linux

package evloop

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// A task can hand the loop a handler for its connection's input and stay
// parked while the loop calls it: a client whose every response is
// answered by the next request (a closed loop on a kept-alive connection)
// then costs no coroutine switch per request. The task's own code runs
// again only when the handler gives the connection back, or on a deadline
// or Interrupt, to do whatever needs waiting.

// ErrWouldWait is what Read, Write and WaitReadable return when called
// from a Drive handler at a point where they would have to park the task:
// the handler must give the connection back to the task, which waits.
var ErrWouldWait = errors.New("evloop: the operation would wait, outside the task")

// Drive parks the task until its connection is readable, then calls fn on
// the loop's goroutine each time it is, without resuming the task, until fn
// returns false; it returns then, or when the deadline passes or the loop
// is interrupted (Read and WaitReadable then fail as timed out, as after
// any parked wait). fn may read (ReadNow), write and set the deadline, but
// must not wait: a Conn method that would park returns ErrWouldWait. fn
// must not close the connection and return true.
func (c *Conn) Drive(fn func() bool) error {
	if c.past.Load() {
		return c.opError("read", os.ErrDeadlineExceeded)
	}
	c.t.use(c)
	if err := c.watch(unix.EPOLLIN, "read"); err != nil {
		return err
	}
	c.t.drive = fn
	ok := c.t.park(waitRead)
	c.t.drive = nil
	if !ok {
		c.past.Store(true)
	}
	return nil
}

// ReadNow reads what the socket holds into p without parking: 0 and a nil
// error when it holds nothing. Past the deadline it fails as Read does. It
// is h1.NowReader's method, for a Drive handler.
func (c *Conn) ReadNow(p []byte) (int, error) {
	if c.past.Load() {
		return 0, c.opError("read", os.ErrDeadlineExceeded)
	}
	if len(p) == 0 || !c.readable {
		return 0, nil
	}
	return c.readSocket(p)
}
