package fault

import (
	"net"
	"syscall"
	"unsafe"
)

// unsent returns how many bytes written to tc are not yet acknowledged by
// the peer (SIOCOUTQ), or 0 when that cannot be known.
func unsent(tc *net.TCPConn) int {
	rc, err := tc.SyscallConn()
	if err != nil {
		return 0
	}
	var n int32
	var errno syscall.Errno
	rc.Control(func(fd uintptr) {
		_, _, errno = syscall.Syscall(syscall.SYS_IOCTL, fd, syscall.TIOCOUTQ, uintptr(unsafe.Pointer(&n)))
	})
	if errno != 0 {
		return 0
	}
	return int(n)
}
