//go:build unix

package client

import "syscall"

// setSockBuf sets the socket's send and receive buffers to n bytes (-b).
func setSockBuf(fd uintptr, n int) error {
	if err := syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_SNDBUF, n); err != nil {
		return err
	}
	return syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, n)
}
