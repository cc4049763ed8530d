//go:build linux

package main

import (
	"fmt"
	"net/netip"

	"golang.org/x/sys/unix"
)

// reconnect drives c connections that carry one request each, as ab does
// without -k: connect (blocking: on loopback the kernel completes the
// handshake without the server's help), write the request, read with
// epoll until the whole response and then the server's FIN have come,
// close, and connect again while requests are left. Waiting for the FIN
// leaves TIME_WAIT to the server, which closed first, so the client's
// ports are free at once. The sockets stay blocking: a socket is read only
// when epoll reports it readable.
func (c *client) reconnect(ap netip.AddrPort) error {
	ep, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return fmt.Errorf("epoll_create1: %w", err)
	}
	defer unix.Close(ep)
	open := func(i int) error {
		fd, err := connect(ap)
		if err != nil {
			return err
		}
		c.fds[i] = fd
		if err := unix.EpollCtl(ep, unix.EPOLL_CTL_ADD, fd, &unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(i)}); err != nil {
			return fmt.Errorf("epoll_ctl: %w", err)
		}
		return c.send(i)
	}
	for i := range c.fds {
		if err := open(i); err != nil {
			return err
		}
	}
	return c.wait(ep, func(i int, buf []byte) error {
		k, err := unix.Read(c.fds[i], buf)
		switch {
		case err != nil:
			return fmt.Errorf("read: %w", err)
		case k > 0 && c.inflight[i] == 0:
			return fmt.Errorf("connection %d: bytes after the response", i)
		case k > 0:
			c.received(i, k)
			return nil
		case c.inflight[i] != 0:
			return fmt.Errorf("connection %d closed before the whole response", i)
		}
		_ = unix.Close(c.fds[i]) // also leaves the epoll set
		c.fds[i] = -1
		if c.sent == c.n {
			return nil
		}
		return open(i)
	})
}
