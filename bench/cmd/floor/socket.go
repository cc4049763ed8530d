//go:build linux

package main

import (
	"bytes"
	"fmt"
	"net/netip"
	"strconv"

	"golang.org/x/sys/unix"
)

// dialAll opens c connections (blocking connect, then non-blocking).
func dialAll(ap netip.AddrPort, c int) ([]int, error) {
	fds := make([]int, 0, c)
	for range c {
		fd, err := dial(ap)
		if err == nil {
			fds = append(fds, fd)
			err = unix.SetNonblock(fd, true)
		}
		if err != nil {
			closeAll(fds)
			return nil, err
		}
	}
	return fds, nil
}

// closeAll closes the sockets (-1: none).
func closeAll(fds []int) {
	for _, fd := range fds {
		if fd >= 0 {
			_ = unix.Close(fd)
		}
	}
}

// connect connects one blocking TCP socket.
func connect(ap netip.AddrPort) (int, error) {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return -1, fmt.Errorf("socket: %w", err)
	}
	if err := unix.Connect(fd, &unix.SockaddrInet4{Port: int(ap.Port()), Addr: ap.Addr().As4()}); err != nil {
		_ = unix.Close(fd)
		return -1, fmt.Errorf("connect %v: %w", ap, err)
	}
	return fd, nil
}

// dial connects one TCP socket with TCP_NODELAY, as every tool does.
func dial(ap netip.AddrPort) (int, error) {
	fd, err := connect(ap)
	if err != nil {
		return -1, err
	}
	if err := unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_NODELAY, 1); err != nil {
		_ = unix.Close(fd)
		return -1, fmt.Errorf("setsockopt: %w", err)
	}
	return fd, nil
}

// responseSize sends one request on its own connection and returns the
// response's size: its header section plus Content-Length.
func responseSize(ap netip.AddrPort, req []byte) (int, error) {
	fd, err := dial(ap)
	if err != nil {
		return 0, err
	}
	defer unix.Close(fd)
	if _, err := unix.Write(fd, req); err != nil {
		return 0, fmt.Errorf("write: %w", err)
	}
	var buf []byte
	chunk := make([]byte, 64<<10)
	for {
		k, err := unix.Read(fd, chunk)
		if err != nil || k == 0 {
			return 0, fmt.Errorf("reading the first response: %v", err)
		}
		buf = append(buf, chunk[:k]...)
		end := bytes.Index(buf, []byte("\r\n\r\n"))
		if end < 0 {
			continue
		}
		for _, line := range bytes.Split(buf[:end], []byte("\r\n")) {
			name, value, ok := bytes.Cut(line, []byte(":"))
			if ok && bytes.EqualFold(name, []byte("Content-Length")) {
				cl, err := strconv.Atoi(string(bytes.TrimSpace(value)))
				if err != nil {
					return 0, fmt.Errorf("bad Content-Length %q", value)
				}
				return end + 4 + cl, nil
			}
		}
		return 0, fmt.Errorf("the first response has no Content-Length")
	}
}
