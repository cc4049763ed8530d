package client

import (
	"syscall"
	"unsafe"
)

// peek is run by RawConn.Read on the socket of a net.TCPConn: it notes in
// p.peeked whether unread input waits on the socket, without reading (one
// recv(MSG_PEEK), as evloop.Conn.Pending).
func (p *peeker) peek(fd uintptr) bool {
	n, _, errno := syscall.RawSyscall6(syscall.SYS_RECVFROM, fd, uintptr(unsafe.Pointer(&p.buf[0])), 1,
		syscall.MSG_PEEK|syscall.MSG_DONTWAIT, 0, 0)
	p.peeked = errno == 0 && n > 0
	return true
}
