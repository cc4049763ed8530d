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

// nearWait is how soon a wake must be due for the loop to pass it to
// epoll as a timeout; a later one is left to the loop's timerfd. A timeout
// makes every blocking wait start and cancel a kernel timer (on this
// project's 2-core VM, 7% of gb's CPU per keep-alive request), while the
// timerfd is set once per maxWait or per new soonest deadline.
const nearWait = 2 * time.Millisecond

// wait blocks in epoll until an event arrives or the soonest deadline or
// sleep is due, and returns the number of events in l.events. A wake due
// within nearWait (a paced Sleep) is epoll_pwait2's timeout, exact to the
// kernel's timer slack (50 µs by default; epoll_wait rounds it up to a
// millisecond); a later one is the timerfd's, whose event makes the loop
// scan. timed reports whether the wait had a timeout: after one without,
// only the timerfd's event (or the eventfd's) calls for a scan.
func (l *Loop) wait() (n int, timed bool, err error) {
	d := time.Duration(-1) // no timeout: the timerfd is set for the soonest wake
	if !l.timerCovers() {
		d = l.untilDue()
		if d >= nearWait && l.setTimer(d) {
			d = -1
		}
	}
	if !noPwait2.Load() {
		var ts uintptr // NULL: no timeout
		if d >= 0 {
			l.timeout = unix.NsecToTimespec(int64(d))
			ts = uintptr(unsafe.Pointer(&l.timeout))
		}
		n, _, errno := syscall.Syscall6(unix.SYS_EPOLL_PWAIT2, uintptr(l.epfd), uintptr(unsafe.Pointer(&l.events[0])),
			uintptr(len(l.events)), ts, 0, 0)
		if errno != unix.ENOSYS {
			if errno != 0 {
				return 0, d >= 0, errno
			}
			return int(n), d >= 0, nil
		}
		noPwait2.Store(true)
	}
	ms := -1
	if d >= 0 {
		ms = int((d + time.Millisecond - 1) / time.Millisecond)
	}
	n, err = unix.EpollWait(l.epfd, l.events, ms)
	return n, d >= 0, err
}

// timerCovers reports, without reading the clock, whether the timerfd is
// set to fire no later than the soonest deadline or sleep (and so within
// maxWait of when it was set).
func (l *Loop) timerCovers() bool {
	return l.timerAt != 0 && (l.soonest == 0 || l.soonest >= l.timerAt)
}

// setTimer sets the timerfd to fire d from now and reports whether it
// could (without a timerfd the wait passes d to epoll).
func (l *Loop) setTimer(d time.Duration) bool {
	if l.timerfd < 0 {
		return false
	}
	l.timerSpec.Value = unix.NsecToTimespec(int64(d))
	if err := unix.TimerfdSettime(l.timerfd, 0, &l.timerSpec, nil); err != nil {
		return false
	}
	l.timerAt = int64(time.Since(epoch) + d)
	return true
}

// timerFired clears the timerfd's expiry, so it stops being readable.
func (l *Loop) timerFired() {
	var buf [8]byte
	l.timerAt = 0
	_, _ = unix.Read(l.timerfd, buf[:])
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
