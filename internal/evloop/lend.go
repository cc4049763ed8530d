//go:build linux

package evloop

import (
	"os"

	"golang.org/x/sys/unix"
)

// A Conn lends its reader (h1.Reader) a read buffer from its loop's free
// list: the loop's tasks run one at a time, so a buffer is needed only by
// a connection whose response is partly read, and the loop keeps as many
// buffers as there were such connections at once, not one per connection.

// WaitReadable parks the task until the socket has input, the end of the
// stream or an error (a Read would not block), or until the deadline
// passes (an os.ErrDeadlineExceeded error, as Read's).
func (c *Conn) WaitReadable() error {
	for !c.readable {
		if c.past.Load() {
			return c.opError("read", os.ErrDeadlineExceeded)
		}
		if !c.t.running() {
			return ErrWouldWait
		}
		c.t.use(c) // the task may hold other connections (many targets)
		if err := c.watch(unix.EPOLLIN, "read"); err != nil {
			return err
		}
		if !c.t.park(waitRead) {
			c.past.Store(true)
		}
	}
	return nil
}

// Borrow returns a buffer of size bytes from the loop's free list (a new
// one when none of that size is free), owned by the caller until Return.
// A new one is made on the loop's stack (OnLoop): an allocation that
// refills the heap's caches runs deep.
func (c *Conn) Borrow(size int) []byte {
	l := c.t.loop
	n := len(l.buffers)
	if n == 0 || len(l.buffers[n-1]) != size {
		l.bufSize = size
		l.OnLoop(l.newBuffer)
		n = len(l.buffers)
	}
	b := l.buffers[n-1]
	l.buffers = l.buffers[:n-1]
	return b
}

// addBuffer adds a new buffer of bufSize bytes to the free list.
func (l *Loop) addBuffer() { l.buffers = append(l.buffers, make([]byte, l.bufSize)) }

// Return gives a buffer from Borrow back to the loop's free list.
func (c *Conn) Return(buf []byte) {
	l := c.t.loop
	l.buffers = append(l.buffers, buf)
}
