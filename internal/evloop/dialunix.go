//go:build linux

package evloop

import (
	"context"
	"errors"
	"net"

	"golang.org/x/sys/unix"
)

// errUnixBind is a unix-socket dial with Dialer.LocalAddr set.
var errUnixBind = errors.New("evloop: a unix socket dial cannot bind a local TCP address")

// dialUnix connects the task to the unix domain stream socket at path.
// A listener whose backlog is full fails the dial at once (EAGAIN), as
// Linux answers a non-blocking connect on such a socket.
func (d *Dialer) dialUnix(t *Task, path string) (net.Conn, error) {
	raddr := &net.UnixAddr{Name: path, Net: "unix"}
	fail := func(err error) error { return &net.OpError{Op: "dial", Net: "unix", Addr: raddr, Err: err} }
	switch {
	case d.LocalAddr != nil:
		return nil, fail(errUnixBind)
	case t.Interrupted():
		return nil, fail(context.Canceled)
	}
	c, err := d.socket(t, unix.AF_UNIX, 0)
	if err != nil {
		return nil, fail(err)
	}
	c.raddr = raddr
	if err := d.connect(c, nil, &unix.SockaddrUnix{Name: path}); err != nil {
		_ = c.Close()
		return nil, fail(err)
	}
	return c, nil
}
