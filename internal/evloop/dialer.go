//go:build linux

package evloop

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"os"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Dialer opens Conns on its Task, or when that is nil on the task carried
// by the dial's context (WithTask). The zero value dials with no timeout
// and the kernel's buffer sizes.
type Dialer struct {
	Task      *Task         // the task that dials and owns the Conns; nil = the context's
	Timeout   time.Duration // connect limit; 0 = none
	LocalAddr *net.TCPAddr  // address to bind before connecting; nil = any
	SockBuf   int           // SO_SNDBUF and SO_RCVBUF in bytes; 0 = the kernel's
	Nagle     bool          // leave Nagle's algorithm on (as ab does); false = TCP_NODELAY, as wrk and Go's net package set

	// Target is the TCP address the dials go to, parsed once and shared
	// by every Dialer of a run (ParseTarget); nil, or a dial to another
	// address: the Dialer parses the address itself, once per address.
	Target *Target

	own   *target // the address this Dialer parsed itself (raw.go); nil until needed
	spare *Conn   // made by Prepare for the first dial, off the task's stack; nil once used
}

// Target is a TCP address ("IP:port") parsed for dialing. It is never
// modified, so any number of Dialers, on any loops, may share one.
type Target struct{ t target }

// ParseTarget parses address, an IP literal and port, for Dialer.Target.
func ParseTarget(address string) (*Target, error) {
	tg := new(Target)
	if err := tg.t.parse(address); err != nil {
		return nil, err
	}
	return tg, nil
}

// target returns address parsed: the shared Target when it is that
// address, else the Dialer's own parse of it.
func (d *Dialer) target(address string) (*target, error) {
	if d.Target != nil && d.Target.t.address == address {
		return &d.Target.t, nil
	}
	if d.own == nil {
		d.own = new(target)
	}
	return d.own, d.own.parse(address)
}

// ErrNoTask is returned by DialContext when the context carries no task.
var ErrNoTask = errors.New("evloop: dial outside a task")

// DialContext connects to address, an IP literal and port ("127.0.0.1:80",
// "[::1]:80") with network "tcp", or a unix domain socket's path with
// network "unix", parking the task while the connection is made. A TCP
// socket has TCP_NODELAY set, as the net package does, unless Nagle.
func (d *Dialer) DialContext(ctx context.Context, network, address string) (net.Conn, error) {
	t := d.Task // a field, not ctx.Value: a task's dial runs deep in its small stack
	if t == nil {
		if t = FromContext(ctx); t == nil {
			return nil, ErrNoTask
		}
	}
	if network == "unix" {
		return d.dialUnix(t, address)
	}
	to, err := d.target(address)
	if err != nil || network != "tcp" {
		return nil, &net.OpError{Op: "dial", Net: network, Err: errors.New("evloop: want tcp and an IP:port, got " + address)}
	}
	if t.Interrupted() {
		return nil, dialError(to, context.Canceled)
	}
	family := unix.AF_INET
	if to.ap.Addr().Is6() {
		family = unix.AF_INET6
	}
	c, err := d.socket(t, family, unix.IPPROTO_TCP)
	if err != nil {
		return nil, dialError(to, err)
	}
	c.raddr = to.raddr
	if err := d.connect(c, to, nil); err != nil {
		_ = c.Close()
		return nil, dialError(to, err)
	}
	return c, nil
}

// dialError is a failed TCP dial's error, as the net package words it.
// Out of line: DialContext's frame stays small on the way to a park.
//
//go:noinline
func dialError(to *target, err error) error {
	return &net.OpError{Op: "dial", Net: "tcp", Addr: to.raddr, Err: err}
}

// Prepare makes the first dial's Conn ahead of the dial, off the task's
// small stack (an allocation that refills the heap's caches runs deep).
// With Target, the first TCP dial then calls nothing deep.
func (d *Dialer) Prepare() {
	if d.spare == nil {
		d.spare = new(Conn)
	}
}

// socket makes the task's new non-blocking stream socket (connect
// registers it with epoll when it has to wait).
func (d *Dialer) socket(t *Task, family, proto int) (*Conn, error) {
	fd, err := rawSocket(family, proto)
	if err != nil {
		return nil, os.NewSyscallError("socket", err)
	}
	t.gen++
	c := d.spare
	if c == nil {
		c = new(Conn) // an allocation that refills the heap's cache runs deep: Prepare made the first
	}
	d.spare = nil
	*c = Conn{t: t, fd: fd, gen: t.gen}
	t.use(c)
	if err := d.options(c, proto == unix.IPPROTO_TCP); err != nil {
		_ = c.Close()
		return nil, err
	}
	return c, nil
}

// options sets the buffer sizes and, on a TCP socket, TCP_NODELAY (unless
// Nagle) and the local address.
func (d *Dialer) options(c *Conn, tcp bool) error {
	if tcp && !d.Nagle {
		if err := rawSetsockoptInt(c.fd, unix.IPPROTO_TCP, unix.TCP_NODELAY, 1); err != nil {
			return os.NewSyscallError("setsockopt", err)
		}
	}
	if d.SockBuf > 0 {
		for _, opt := range []int{unix.SO_SNDBUF, unix.SO_RCVBUF} {
			if err := rawSetsockoptInt(c.fd, unix.SOL_SOCKET, opt, d.SockBuf); err != nil {
				return os.NewSyscallError("setsockopt", err)
			}
		}
	}
	if !tcp || d.LocalAddr == nil {
		return nil
	}
	// The port is chosen at connect, for the whole 4-tuple (not at bind,
	// for the source address alone): each -B address has the full
	// ephemeral range for every server address.
	_ = rawSetsockoptInt(c.fd, unix.IPPROTO_IP, unix.IP_BIND_ADDRESS_NO_PORT, 1)
	if err := unix.Bind(c.fd, sockaddr(d.LocalAddr.AddrPort())); err != nil {
		return os.NewSyscallError("bind", err)
	}
	return nil
}

// connect starts the connection, to sa or (sa nil) to the TCP address
// to, and parks until it is made, fails, times out or the loop is
// interrupted.
//
// A non-blocking connect answers EINPROGRESS, but on loopback the kernel
// has usually finished the handshake before the call returns. A second
// connect tells which, in one system call, as ab's does: 0 once the
// connection is made, EALREADY while it is still being made, or the
// error it failed with. Only EALREADY waits for writability; then
// writable alone is a connection made, and anything more is asked of
// SO_ERROR. (Waiting for writability every time, as ab does, spares
// nginx 8-15% of its CPU per connection but costs gb up to 2% of its
// own: bench/RESULTS.md.)
func (d *Dialer) connect(c *Conn, to *target, sa unix.Sockaddr) error {
	errno := d.start(c.fd, to, sa)
	if errno == unix.EINPROGRESS || errno == unix.EINTR {
		errno = d.start(c.fd, to, sa)
	}
	if errno != unix.EALREADY && errno != unix.EINPROGRESS && errno != unix.EINTR {
		return d.started(errno)
	}
	if err := c.watch(unix.EPOLLOUT, "dial"); err != nil {
		return err
	}
	if d.Timeout > 0 {
		c.expireIn(d.Timeout)
	}
	if !c.t.park(waitWrite) {
		return d.unfinished(c)
	}
	c.deadline.Store(0)
	if c.readable { // not writable alone: an error, a hang-up or input
		c.readable = false
		return d.outcome(c)
	}
	return nil
}

// start calls connect(2) on fd: to sa, or (sa nil) to the TCP address to.
func (d *Dialer) start(fd int, to *target, sa unix.Sockaddr) syscall.Errno {
	if sa == nil {
		return to.connect(fd)
	}
	if err := unix.Connect(fd, sa); err != nil {
		if errno, ok := err.(syscall.Errno); ok {
			return errno
		}
		return unix.EINVAL
	}
	return 0
}

// started is the error of a connect(2) that ended at once: nil (0, or
// EISCONN from a second call) or errno.
func (d *Dialer) started(errno syscall.Errno) error {
	if errno != 0 && errno != unix.EISCONN {
		return os.NewSyscallError("connect", errno)
	}
	return nil
}

// unfinished is the error of a connect whose wait ended before it did:
// the loop's interruption or the connect timeout.
func (d *Dialer) unfinished(c *Conn) error {
	if c.t.Interrupted() {
		return context.Canceled
	}
	return os.ErrDeadlineExceeded
}

// outcome asks the socket how its connect ended (SO_ERROR).
func (d *Dialer) outcome(c *Conn) error {
	soerr, err := rawGetsockoptInt(c.fd, unix.SOL_SOCKET, unix.SO_ERROR)
	if err != nil {
		return os.NewSyscallError("getsockopt", err)
	}
	if soerr != 0 {
		return os.NewSyscallError("connect", unix.Errno(soerr))
	}
	return nil
}

// sockaddr converts an address for the unix package.
func sockaddr(ap netip.AddrPort) unix.Sockaddr {
	a := ap.Addr()
	if a.Is4() || a.Is4In6() {
		return &unix.SockaddrInet4{Port: int(ap.Port()), Addr: a.Unmap().As4()}
	}
	return &unix.SockaddrInet6{Port: int(ap.Port()), Addr: a.As16()}
}
