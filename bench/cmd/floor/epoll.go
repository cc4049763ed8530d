//go:build linux

package main

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// epoll drives the connections with level-triggered epoll: per ready
// socket one read, and a write of the next request for each response it
// completed. Every read goes to one buffer: a response is only counted,
// never kept, so memory does not grow with the connections.
func (c *client) epoll() error { return c.epollWith(c.send, c.readable) }

// epollWith registers every connection, sends its first request with send
// and runs the loop, calling ready for each readable connection.
func (c *client) epollWith(send func(i int) error, ready func(i int, buf []byte) error) error {
	ep, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return fmt.Errorf("epoll_create1: %w", err)
	}
	defer unix.Close(ep)
	for i, fd := range c.fds {
		if err := unix.EpollCtl(ep, unix.EPOLL_CTL_ADD, fd, &unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(i)}); err != nil {
			return fmt.Errorf("epoll_ctl: %w", err)
		}
		if err := send(i); err != nil {
			return err
		}
	}
	return c.wait(ep, ready)
}

// wait runs the epoll loop until every request is answered, calling ready
// for each readable connection with the shared read buffer.
func (c *client) wait(ep int, ready func(i int, buf []byte) error) error {
	buf := make([]byte, 16<<10)
	events := make([]unix.EpollEvent, 256)
	for c.done < c.n {
		k, err := unix.EpollWait(ep, events, -1)
		if err == unix.EINTR {
			continue
		} else if err != nil {
			return fmt.Errorf("epoll_wait: %w", err)
		}
		for _, ev := range events[:k] {
			if err := ready(int(ev.Fd), buf); err != nil {
				return err
			}
		}
		c.expire()
	}
	return nil
}

// readable reads once from connection i and sends the next batch when it
// completed the last one.
func (c *client) readable(i int, buf []byte) error {
	k, err := c.readOnce(i, buf)
	if k == 0 {
		return err
	}
	if c.received(i, k) {
		return c.send(i)
	}
	return nil
}

// send writes connection i's next batch, if any request is left.
func (c *client) send(i int) error {
	b := c.next(i)
	if len(b) == 0 {
		return nil
	}
	k, err := unix.Write(c.fds[i], b)
	if err != nil || k != len(b) {
		return fmt.Errorf("write: %d of %d bytes: %v", k, len(b), err)
	}
	return nil
}

// readOnce reads once from connection i into buf: 0 bytes and no error
// when nothing was there after all; a close by the server is an error.
func (c *client) readOnce(i int, buf []byte) (int, error) {
	k, err := unix.Read(c.fds[i], buf)
	switch {
	case err == unix.EAGAIN:
		return 0, nil
	case err != nil:
		return 0, fmt.Errorf("read: %w", err)
	case k == 0:
		return 0, fmt.Errorf("connection %d closed by the server", i)
	}
	return k, nil
}
