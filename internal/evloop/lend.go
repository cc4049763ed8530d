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
func (c *Conn) Borrow(size int) []byte {
	l := c.t.loop
	if n := len(l.buffers); n > 0 && len(l.buffers[n-1]) == size {
		b := l.buffers[n-1]
		l.buffers = l.buffers[:n-1]
		return b
	}
	return make([]byte, size)
}

// Return gives a buffer from Borrow back to the loop's free list.
func (c *Conn) Return(buf []byte) {
	l := c.t.loop
	l.buffers = append(l.buffers, buf)
}
