package probe

import (
	"net"
	"os"
	"syscall"
)

// StartOverwhelmed listens on 127.0.0.1 with the smallest accept backlog
// and accepts only the first accept connections, serving them with
// script: the next connection waits in the backlog, and the kernel drops
// the handshakes of the ones after it, so their connects time out (a
// server past its capacity).
func StartOverwhelmed(accept int, script Script) (*Server, error) {
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, os.NewSyscallError("socket", err)
	}
	f := os.NewFile(uintptr(fd), "probe-listener")
	defer f.Close()
	if err := syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		return nil, os.NewSyscallError("bind", err)
	}
	if err := syscall.Listen(fd, 0); err != nil {
		return nil, os.NewSyscallError("listen", err)
	}
	ln, err := net.FileListener(f)
	if err != nil {
		return nil, err
	}
	s := &Server{ln: ln, script: script, accept: accept}
	go s.serve()
	return s, nil
}
