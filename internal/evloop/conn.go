//go:build linux

package evloop

import (
	"io"
	"net"
	"os"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// epoch anchors deadlines as monotonic nanoseconds, so they fit an atomic.
var epoch = time.Now()

// Conn is a non-blocking TCP socket driven by its task's loop. It is a
// net.Conn whose Read and Write park the task instead of a goroutine; they
// must be called from the owning task. SetDeadline may be called from any
// goroutine (to interrupt the task). There is one deadline for both
// directions.
type Conn struct {
	t        *Task
	fd       int
	gen      uint32
	readable bool         // the last read filled its buffer, or epoll reported input: read before parking
	writable bool         // epoll reported the socket writable since the last short write
	deadline atomic.Int64 // nanoseconds since epoch; 0 = none
	past     atomic.Bool  // the deadline has passed (or was set in the past): I/O fails at once
	closed   bool
	watching uint32 // the events epoll reports for the socket; 0 = not in the epoll set
	laddr    *net.TCPAddr
	raddr    net.Addr // *net.TCPAddr or *net.UnixAddr
}

var _ net.Conn = (*Conn)(nil)

// Read reads what the socket holds into p, parking the task until some
// arrives. A read that does not fill p is taken to have drained the
// socket, so the next Read parks first instead of failing with EAGAIN
// (epoll is level-triggered: bytes that did remain wake the task at once).
func (c *Conn) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	for {
		if c.past.Load() {
			return 0, c.opError("read", os.ErrDeadlineExceeded)
		}
		if c.readable {
			if n, err := c.readSocket(p); n > 0 || err != nil {
				return n, err
			}
			continue // drained: readable is false now
		}
		if !c.t.running() {
			return 0, ErrWouldWait
		}
		c.t.use(c)
		if err := c.watch(unix.EPOLLIN, "read"); err != nil {
			return 0, err
		}
		if !c.t.park(waitRead) {
			c.past.Store(true)
		}
	}
}

// readSocket reads once into p: n > 0; or 0 and io.EOF or the read's
// error; or 0 and nil when the socket holds nothing, which clears
// readable.
func (c *Conn) readSocket(p []byte) (int, error) {
	for {
		n, errno := rawIO(unix.SYS_READ, c.fd, p)
		switch {
		case n > 0:
			c.readable = n == len(p)
			return n, nil
		case errno == 0:
			return 0, io.EOF
		case errno == unix.EAGAIN:
			c.readable = false
			return 0, nil
		case errno != unix.EINTR:
			return 0, c.opError("read", os.NewSyscallError("read", errno))
		}
	}
}

// Write writes all of p, parking the task while the socket buffer is full.
func (c *Conn) Write(p []byte) (int, error) {
	done := 0
	for done < len(p) {
		if c.past.Load() {
			return done, c.opError("write", os.ErrDeadlineExceeded)
		}
		n, errno := rawIO(unix.SYS_WRITE, c.fd, p[done:])
		switch {
		case n > 0:
			done += n
		case errno == unix.EAGAIN:
			if err := c.awaitWritable(); err != nil {
				return done, err
			}
		case errno == 0:
			return done, c.opError("write", io.ErrShortWrite)
		case errno != unix.EINTR:
			return done, c.opError("write", os.NewSyscallError("write", errno))
		}
	}
	return done, nil
}

// awaitWritable parks the task until the socket takes more bytes. While it
// waits, the socket's input is not watched: a server that answers early and
// stops reading must not wake the task over and over.
func (c *Conn) awaitWritable() error {
	if !c.t.running() {
		return ErrWouldWait
	}
	c.t.use(c)
	if err := c.watch(unix.EPOLLOUT, "write"); err != nil {
		return err
	}
	c.writable = false
	if !c.t.park(waitWrite) {
		c.past.Store(true)
	}
	return nil
}

// watch sets the events epoll reports for the socket. 0 takes the socket
// out of the epoll set altogether, since EPOLLHUP and EPOLLERR cannot be
// masked; a later watch puts it back. op names the caller's operation in
// the error.
func (c *Conn) watch(events uint32, op string) error {
	if events == c.watching {
		return nil
	}
	ctl := unix.EPOLL_CTL_MOD
	switch {
	case events == 0:
		ctl = unix.EPOLL_CTL_DEL
	case c.watching == 0:
		ctl = unix.EPOLL_CTL_ADD
	}
	ev := unix.EpollEvent{Events: events | unix.EPOLLRDHUP, Fd: c.t.slot, Pad: int32(c.gen)}
	if err := rawEpollCtl(c.t.loop.epfd, ctl, c.fd, &ev); err != nil {
		return c.opError(op, os.NewSyscallError("epoll_ctl", err))
	}
	c.watching = events
	return nil
}

// rawIO is read(2) or write(2) on a non-blocking socket. It skips the
// scheduler hand-off of syscall.Syscall: the call never blocks.
func rawIO(trap uintptr, fd int, p []byte) (int, syscall.Errno) {
	n, _, errno := syscall.RawSyscall(trap, uintptr(fd), uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
	return int(n), errno
}

// Close closes the socket (which also removes it from the epoll set).
func (c *Conn) Close() error {
	if c.closed {
		return nil
	}
	c.closed = true
	if c.t.conn == c {
		c.t.conn = nil
	}
	return rawClose(c.fd)
}

// SetDeadline sets the time after which Read and Write fail with a timeout
// (os.ErrDeadlineExceeded); the zero Time means none. A deadline already
// past takes effect at once, even on a task parked in another call, and
// may be set from any goroutine; a future one (ending within the kernel's
// timer slack, or up to a millisecond late without epoll_pwait2) only from
// the task.
func (c *Conn) SetDeadline(t time.Time) error {
	if t.IsZero() {
		c.deadline.Store(0)
		c.past.Store(false)
		return nil
	}
	d := max(sinceEpoch(t), 1)
	c.deadline.Store(d)
	if time.Until(t) <= 0 {
		c.past.Store(true)
		c.t.loop.wake()
		return nil
	}
	c.dueAt(d)
	return nil
}

// SetReadDeadline sets the one deadline (see SetDeadline).
func (c *Conn) SetReadDeadline(t time.Time) error { return c.SetDeadline(t) }

// SetWriteDeadline sets the one deadline (see SetDeadline).
func (c *Conn) SetWriteDeadline(t time.Time) error { return c.SetDeadline(t) }

// due returns the deadline in nanoseconds since epoch: 1 when it is known
// to have passed, 0 when there is none.
func (c *Conn) due() int64 {
	if c.past.Load() {
		return 1
	}
	return c.deadline.Load()
}

// expireIn sets the deadline d from now, as SetDeadline would, for the
// task itself (a dial's wait): one clock reading, and a shallow call.
func (c *Conn) expireIn(d time.Duration) { c.dueAt(int64(time.Since(epoch) + d)) }

// dueAt sets a future deadline, at nanoseconds since epoch, from the task.
func (c *Conn) dueAt(at int64) {
	c.deadline.Store(at)
	c.past.Store(false)
	c.t.loop.noteDue(at)
}

// sinceEpoch converts t to nanoseconds since epoch (monotonic).
func sinceEpoch(t time.Time) int64 { return int64(t.Sub(epoch)) }

// LocalAddr returns the socket's local address.
func (c *Conn) LocalAddr() net.Addr {
	if c.laddr == nil {
		c.laddr = &net.TCPAddr{}
		if sa, err := unix.Getsockname(c.fd); err == nil {
			c.laddr = tcpAddr(sa)
		}
	}
	return c.laddr
}

// RemoteAddr returns the address dialed.
func (c *Conn) RemoteAddr() net.Addr { return c.raddr }

// opError wraps err as the net package does, so callers classify both
// engines' errors alike.
func (c *Conn) opError(op string, err error) error {
	return &net.OpError{Op: op, Net: "tcp", Addr: c.raddr, Err: err}
}

// tcpAddr converts a socket address.
func tcpAddr(sa unix.Sockaddr) *net.TCPAddr {
	switch a := sa.(type) {
	case *unix.SockaddrInet4:
		return &net.TCPAddr{IP: net.IP(a.Addr[:]), Port: a.Port}
	case *unix.SockaddrInet6:
		return &net.TCPAddr{IP: net.IP(a.Addr[:]), Port: a.Port}
	}
	return &net.TCPAddr{}
}

// Pending reports, without reading or parking, whether unread input waits
// on the socket (a peer's close or reset is not input): what a client
// checks before reusing a connection it expects to be quiet. One
// recv(MSG_PEEK) call; from the owning task.
func (c *Conn) Pending() bool {
	var b [1]byte
	n, _, errno := syscall.RawSyscall6(unix.SYS_RECVFROM, uintptr(c.fd), uintptr(unsafe.Pointer(&b[0])), 1,
		unix.MSG_PEEK|unix.MSG_DONTWAIT, 0, 0)
	return errno == 0 && n > 0
}
