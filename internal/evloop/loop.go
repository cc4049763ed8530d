//go:build linux

package evloop

import (
	"errors"
	"iter"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"
)

// Scan is how often a loop checks deadlines and sleeping tasks: a timeout
// or a Sleep ends up to Scan late.
const Scan = 5 * time.Millisecond

// Loop owns an epoll instance and the tasks it drives. Go, Run and the
// tasks themselves run on the goroutine that calls Run; only Interrupt may
// be called from elsewhere.
type Loop struct {
	epfd     int
	wakefd   int // eventfd: Interrupt and past deadlines wake epoll_wait
	tasks    []*Task
	live     int // tasks not yet finished
	events   []unix.EpollEvent
	stopping atomic.Bool
	woken    atomic.Bool // a wake is pending in wakefd
	nextScan time.Time
}

// wakeSlot marks the eventfd's epoll events.
const wakeSlot = -1

// New returns a loop with its epoll instance, or the error that prevents
// one (the caller falls back to goroutines).
func New() (*Loop, error) {
	epfd, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return nil, errors.Join(errors.New("evloop: epoll_create1"), err)
	}
	wakefd, err := unix.Eventfd(0, unix.EFD_NONBLOCK|unix.EFD_CLOEXEC)
	if err != nil {
		_ = unix.Close(epfd)
		return nil, errors.Join(errors.New("evloop: eventfd"), err)
	}
	l := &Loop{epfd: epfd, wakefd: wakefd, events: make([]unix.EpollEvent, 256)}
	ev := unix.EpollEvent{Events: unix.EPOLLIN, Fd: wakeSlot}
	if err := unix.EpollCtl(epfd, unix.EPOLL_CTL_ADD, wakefd, &ev); err != nil {
		l.Close()
		return nil, errors.Join(errors.New("evloop: epoll_ctl"), err)
	}
	return l, nil
}

// Close releases the epoll instance and eventfd. Call it after Run returned.
func (l *Loop) Close() {
	_ = unix.Close(l.epfd)
	_ = unix.Close(l.wakefd)
}

// Go adds a task running fn; it starts when Run is called. fn must block
// only through its Task (Conn I/O, Dial, Sleep): anything else blocks every
// task of the loop.
func (l *Loop) Go(fn func(t *Task)) *Task {
	t := &Task{loop: l, slot: int32(len(l.tasks))}
	seq := func(yield func(struct{}) bool) {
		t.yield = yield
		fn(t)
	}
	t.next, t.stop = iter.Pull(seq)
	l.tasks = append(l.tasks, t)
	return t
}

// Interrupt makes every wait of every task end at once, now and from then
// on: I/O fails as timed out, dials fail, sleeps return. Safe for
// concurrent use.
func (l *Loop) Interrupt() {
	l.stopping.Store(true)
	l.wake()
}

// Interrupted reports whether Interrupt was called.
func (l *Loop) Interrupted() bool { return l.stopping.Load() }

// wake makes a blocked epoll_wait return and the loop scan its tasks.
func (l *Loop) wake() {
	if l.woken.Swap(true) {
		return
	}
	var one = [8]byte{1}
	_, _ = unix.Write(l.wakefd, one[:])
}

// Run drives the tasks until all of them have returned.
func (l *Loop) Run() {
	l.live = len(l.tasks)
	for _, t := range l.tasks {
		l.resume(t)
	}
	l.nextScan = time.Now().Add(Scan)
	for l.live > 0 {
		n, err := unix.EpollWait(l.epfd, l.events, l.waitMillis())
		if err != nil && err != unix.EINTR {
			l.Interrupt() // cannot happen with a valid epfd; end rather than spin
		}
		scan := false
		for _, ev := range l.events[:max(n, 0)] {
			if ev.Fd == wakeSlot {
				l.drainWake()
				scan = true
				continue
			}
			l.ready(ev)
		}
		if now := time.Now(); scan || !now.Before(l.nextScan) {
			l.scan(now)
			l.nextScan = now.Add(Scan)
		}
	}
	for _, t := range l.tasks {
		t.stop()
	}
}

// waitMillis is epoll_wait's timeout: until the next scan, rounded up so
// the loop sleeps instead of polling through the last millisecond.
func (l *Loop) waitMillis() int {
	d := time.Until(l.nextScan)
	if d <= 0 {
		return 0
	}
	return int((d + time.Millisecond - 1) / time.Millisecond)
}

// ready resumes the task waiting on an event's connection.
func (l *Loop) ready(ev unix.EpollEvent) {
	t := l.tasks[ev.Fd]
	c := t.conn
	if c == nil || uint32(ev.Pad) != c.gen || t.wait == waitNone {
		return // a closed connection's stale event, or a running task
	}
	if ev.Events&(unix.EPOLLIN|unix.EPOLLHUP|unix.EPOLLERR|unix.EPOLLRDHUP) != 0 {
		c.readable = true
	}
	if ev.Events&(unix.EPOLLOUT|unix.EPOLLHUP|unix.EPOLLERR) != 0 {
		c.writable = true
	}
	if (t.wait == waitRead && c.readable) || (t.wait == waitWrite && c.writable) {
		l.resume(t)
	}
}

// scan resumes tasks whose sleep or deadline has passed, and every waiting
// task once Interrupt was called.
func (l *Loop) scan(now time.Time) {
	stopping := l.stopping.Load()
	for _, t := range l.tasks {
		if t.wait == waitNone {
			continue
		}
		if stopping || t.due(now) {
			t.expired = true
			l.resume(t)
		}
	}
}

func (l *Loop) drainWake() {
	var buf [8]byte
	l.woken.Store(false)
	_, _ = unix.Read(l.wakefd, buf[:])
}

// resume runs t until it waits again or returns.
func (l *Loop) resume(t *Task) {
	if t.done {
		return
	}
	t.wait = waitNone
	if _, ok := t.next(); !ok {
		t.done = true
		l.live--
	}
}

// Available returns nil when this system can run loops, else the reason.
func Available() error {
	l, err := New()
	if err != nil {
		return err
	}
	l.Close()
	return nil
}
