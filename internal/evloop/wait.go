//go:build linux

package evloop

import (
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// noPwait2 is set when the kernel lacks epoll_pwait2 (before Linux 5.11):
// loops then wait with epoll_wait's millisecond timeouts.
var noPwait2 atomic.Bool

// wait blocks in epoll until an event arrives or the soonest deadline or
// sleep is due, and returns the number of events in l.events. With
// epoll_pwait2 the timeout is exact to the kernel's timer slack (50 µs by
// default), so Sleep can pace requests; epoll_wait rounds it up to a
// millisecond.
func (l *Loop) wait() (int, error) {
	d := l.untilDue()
	if !noPwait2.Load() {
		l.timeout = unix.NsecToTimespec(int64(d))
		n, _, errno := syscall.Syscall6(unix.SYS_EPOLL_PWAIT2, uintptr(l.epfd), uintptr(unsafe.Pointer(&l.events[0])),
			uintptr(len(l.events)), uintptr(unsafe.Pointer(&l.timeout)), 0, 0)
		if errno != unix.ENOSYS {
			if errno != 0 {
				return 0, errno
			}
			return int(n), nil
		}
		noPwait2.Store(true)
	}
	return unix.EpollWait(l.epfd, l.events, int((d+time.Millisecond-1)/time.Millisecond))
}

// untilDue is how long the loop may sleep: until the soonest deadline or
// sleep, at most maxWait, never negative.
func (l *Loop) untilDue() time.Duration {
	d := maxWait
	if l.soonest != 0 {
		d = min(time.Duration(l.soonest)-time.Since(epoch), maxWait)
	}
	return max(d, 0)
}
