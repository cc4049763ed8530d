//go:build linux

package evloop

import (
	"net"
	"net/netip"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The connect path's system calls, made raw: none of them blocks (the
// sockets are non-blocking), so the loop's goroutine keeps its P instead of
// entering and leaving a syscall state each time (x/sys/unix's wrappers),
// which on a new connection per request cost a sixth of gb's user time and
// woke the runtime's sysmon.

func rawErr(e syscall.Errno) error {
	if e == 0 {
		return nil
	}
	return e
}

func rawSocket(family, proto int) (int, error) {
	fd, _, e := syscall.RawSyscall(unix.SYS_SOCKET, uintptr(family),
		unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, uintptr(proto))
	return int(fd), rawErr(e)
}

func rawSetsockoptInt(fd, level, opt, value int) error {
	v := int32(value)
	_, _, e := syscall.RawSyscall6(unix.SYS_SETSOCKOPT, uintptr(fd), uintptr(level), uintptr(opt),
		uintptr(unsafe.Pointer(&v)), 4, 0)
	return rawErr(e)
}

func rawGetsockoptInt(fd, level, opt int) (int, error) {
	var v int32
	n := uint32(4)
	_, _, e := syscall.RawSyscall6(unix.SYS_GETSOCKOPT, uintptr(fd), uintptr(level), uintptr(opt),
		uintptr(unsafe.Pointer(&v)), uintptr(unsafe.Pointer(&n)), 0)
	return int(v), rawErr(e)
}

func rawClose(fd int) error {
	_, _, e := syscall.RawSyscall(unix.SYS_CLOSE, uintptr(fd), 0, 0)
	return rawErr(e)
}

func rawEpollCtl(epfd, op, fd int, ev *unix.EpollEvent) error {
	_, _, e := syscall.RawSyscall6(unix.SYS_EPOLL_CTL, uintptr(epfd), uintptr(op), uintptr(fd),
		uintptr(unsafe.Pointer(ev)), 0, 0)
	return rawErr(e)
}

// target is a dial address parsed once: a worker dials the same address
// again and again.
type target struct {
	address string
	ap      netip.AddrPort
	raddr   *net.TCPAddr // shared by the connections to it; never modified
	sa4     unix.RawSockaddrInet4
	sa6     unix.RawSockaddrInet6
}

// parse fills t for address (an IP:port), once per address. It inlines
// into the dial, so redialing the same address adds no frame to the
// task's stack.
func (t *target) parse(address string) error {
	if t.raddr != nil && address == t.address {
		return nil
	}
	return t.parseNew(address)
}

// parseNew is parse for an address not parsed yet.
func (t *target) parseNew(address string) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return err
	}
	ap = netip.AddrPortFrom(ap.Addr().Unmap(), ap.Port())
	*t = target{address: address, ap: ap, raddr: net.TCPAddrFromAddrPort(ap)}
	port := ap.Port()
	pp := (*[2]byte)(unsafe.Pointer(&t.sa4.Port))
	pp[0], pp[1] = byte(port>>8), byte(port)
	if ap.Addr().Is4() {
		t.sa4.Family = unix.AF_INET
		t.sa4.Addr = ap.Addr().As4()
	} else {
		t.sa6.Family = unix.AF_INET6
		t.sa6.Port = t.sa4.Port
		t.sa6.Addr = ap.Addr().As16()
	}
	return nil
}

// connect starts a non-blocking connect of fd to t; 0 or the errno.
func (t *target) connect(fd int) syscall.Errno {
	p, n := unsafe.Pointer(&t.sa4), unsafe.Sizeof(t.sa4)
	if !t.ap.Addr().Is4() {
		p, n = unsafe.Pointer(&t.sa6), unsafe.Sizeof(t.sa6)
	}
	_, _, e := syscall.RawSyscall(unix.SYS_CONNECT, uintptr(fd), uintptr(p), n)
	return e
}
