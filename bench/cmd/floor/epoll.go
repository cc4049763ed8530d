package main

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// epoll drives the connections with level-triggered epoll: per ready
// socket one read, and a write of the next request for each response it
// completed.
func (c *client) epoll() error {
	ep, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return fmt.Errorf("epoll_create1: %w", err)
	}
	defer unix.Close(ep)
	c.have = make([]int, len(c.fds))
	bufs := make([][]byte, len(c.fds))
	for i, fd := range c.fds {
		bufs[i] = make([]byte, 16<<10)
		if err := unix.EpollCtl(ep, unix.EPOLL_CTL_ADD, fd, &unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(i)}); err != nil {
			return fmt.Errorf("epoll_ctl: %w", err)
		}
		if err := c.send(i); err != nil {
			return err
		}
	}
	events := make([]unix.EpollEvent, 256)
	for c.done < c.n {
		k, err := unix.EpollWait(ep, events, -1)
		if err == unix.EINTR {
			continue
		} else if err != nil {
			return fmt.Errorf("epoll_wait: %w", err)
		}
		for _, ev := range events[:k] {
			if err := c.readable(int(ev.Fd), bufs[ev.Fd]); err != nil {
				return err
			}
		}
	}
	return nil
}

// readable reads once from connection i and sends a request per response.
func (c *client) readable(i int, buf []byte) error {
	k, err := unix.Read(c.fds[i], buf)
	switch {
	case err == unix.EAGAIN:
		return nil
	case err != nil:
		return fmt.Errorf("read: %w", err)
	case k == 0:
		return fmt.Errorf("connection %d closed by the server", i)
	}
	for range c.consume(i, k) {
		c.done++
		if err := c.send(i); err != nil {
			return err
		}
	}
	return nil
}

// send writes the next request on connection i, if any is left.
func (c *client) send(i int) error {
	if c.sent == c.n {
		return nil
	}
	c.sent++
	k, err := unix.Write(c.fds[i], c.req)
	if err != nil || k != len(c.req) {
		return fmt.Errorf("write: %d of %d bytes: %v", k, len(c.req), err)
	}
	return nil
}
