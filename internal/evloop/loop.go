//go:build linux

package evloop

import (
	"fmt"
	"iter"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"
)

// maxWait bounds one epoll_wait when no deadline is near, so a loop looks
// at its tasks at least this often whatever happens.
const maxWait = time.Second

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
	// wakeMu orders wake's write to wakefd before Close, or Close before
	// it: a wake from another goroutine (Interrupt, a past deadline) may
	// come after Close, when wakefd's number may already name another
	// file of the process, which its 8 bytes would corrupt.
	wakeMu sync.Mutex
	closed bool // Close ran: wakefd is no longer ours; guarded by wakeMu
	// soonest is the earliest time, in nanoseconds since epoch, at which a
	// parked task's deadline or sleep may run out: the loop scans its tasks
	// then, not before (0 = nothing pending). Scans lower it to the true
	// minimum; SetDeadline and Sleep lower it as they go.
	soonest   int64
	lastScan  int64         // when the last scan ran, in nanoseconds since epoch
	timeout   unix.Timespec // epoll_pwait2's argument, kept here so no wait allocates
	timerfd   int           // wakes the loop for a deadline or sleep beyond nearWait; -1 = none (wait.go)
	timerAt   int64         // when timerfd fires, in nanoseconds since epoch (read just after setting it: never before it does); 0 = not set
	timerSpec unix.ItimerSpec
	waits     int64    // epoll waits so far (tests check the loop does not spin)
	resumes   int64    // coroutine resumes so far (tests check Drive's handlers run without one)
	buffers   [][]byte // read buffers free to lend (lend.go)
	bufSize   int      // the size of the buffer newBuffer makes
	newBuffer func()   // l.addBuffer, made once: Borrow runs it through OnLoop
	cur       *Task    // the task running now; nil between resumes
	call      func()   // OnLoop's function, for the loop to run before resuming cur
}

// FilesPerLoop is the file descriptors a Loop holds besides its
// connections: the epoll instance, the eventfd and the timerfd.
const FilesPerLoop = 3

// wakeSlot and timerSlot mark the eventfd's and the timerfd's epoll events.
const (
	wakeSlot  = -1
	timerSlot = -2
)

// New returns a loop with its epoll instance, or the error that prevents
// one (the caller falls back to goroutines).
func New() (*Loop, error) {
	epfd, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("evloop: epoll_create1: %w", err)
	}
	wakefd, err := unix.Eventfd(0, unix.EFD_NONBLOCK|unix.EFD_CLOEXEC)
	if err != nil {
		_ = unix.Close(epfd)
		return nil, fmt.Errorf("evloop: eventfd: %w", err)
	}
	l := &Loop{epfd: epfd, wakefd: wakefd, timerfd: -1, events: make([]unix.EpollEvent, 256)}
	l.newBuffer = l.addBuffer
	ev := unix.EpollEvent{Events: unix.EPOLLIN, Fd: wakeSlot}
	if err := unix.EpollCtl(epfd, unix.EPOLL_CTL_ADD, wakefd, &ev); err != nil {
		l.Close()
		return nil, fmt.Errorf("evloop: epoll_ctl: %w", err)
	}
	l.timerfd = newTimer(epfd)
	return l, nil
}

// newTimer returns a timerfd in the epoll set, or -1 when the system will
// not make one (the loop then passes every timeout to epoll).
func newTimer(epfd int) int {
	fd, err := unix.TimerfdCreate(unix.CLOCK_MONOTONIC, unix.TFD_NONBLOCK|unix.TFD_CLOEXEC)
	if err != nil {
		return -1
	}
	ev := unix.EpollEvent{Events: unix.EPOLLIN, Fd: timerSlot}
	if unix.EpollCtl(epfd, unix.EPOLL_CTL_ADD, fd, &ev) != nil {
		_ = unix.Close(fd)
		return -1
	}
	return fd
}

// Close releases the epoll instance, eventfd and timerfd. Call it after
// Run returned. Interrupt may still be called afterwards (a stop from
// another goroutine racing the run's end): it then does nothing.
func (l *Loop) Close() {
	l.wakeMu.Lock()
	l.closed = true
	l.wakeMu.Unlock()
	_ = unix.Close(l.epfd)
	_ = unix.Close(l.wakefd)
	if l.timerfd >= 0 {
		_ = unix.Close(l.timerfd)
	}
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
// concurrent use, and after Close (where it does nothing).
func (l *Loop) Interrupt() {
	l.stopping.Store(true)
	l.wake()
}

// Interrupted reports whether Interrupt was called.
func (l *Loop) Interrupted() bool { return l.stopping.Load() }

// wake makes a blocked epoll_wait return and the loop scan its tasks; a
// closed loop's wake writes nothing. The lock is taken only when no wake
// is pending, so at most once per wait of the loop, beside a syscall.
func (l *Loop) wake() {
	if l.woken.Swap(true) {
		return
	}
	l.wakeMu.Lock()
	defer l.wakeMu.Unlock()
	if l.closed {
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
	for l.live > 0 {
		n, timed, err := l.wait()
		l.waits++
		if err != nil && err != unix.EINTR {
			l.Interrupt() // cannot happen with a valid epfd; end rather than spin
		}
		scan := false
		for _, ev := range l.events[:max(n, 0)] {
			switch ev.Fd {
			case wakeSlot:
				l.drainWake()
				scan = true
				continue
			case timerSlot:
				l.timerFired()
				scan = true
				continue
			}
			l.ready(ev)
		}
		if !timed && !scan {
			continue // nothing is due before the timerfd fires
		}
		now := int64(time.Since(epoch)) // one monotonic reading: time.Now reads the wall clock too
		if scan || (l.soonest != 0 && now >= l.soonest) || now-l.lastScan >= int64(maxWait) {
			l.scan(now)
		}
	}
	for _, t := range l.tasks {
		t.stop()
	}
}

// noteDue makes sure the loop scans its tasks by at (nanoseconds since
// epoch). Only the loop's goroutine (its tasks) may call it.
func (l *Loop) noteDue(at int64) {
	if l.soonest == 0 || at < l.soonest {
		l.soonest = at
	}
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
		if t.drive != nil && t.drive() {
			return // the handler took the input and waits for more
		}
		l.resume(t)
		return
	}
	// The task waits for something else (a Sleep while pacing, say): stop
	// the socket from waking the loop, level-triggered, until the task
	// reads or writes again (the flags above let it act on the event then).
	_ = c.watch(0, "read")
}

// scan resumes tasks whose sleep or deadline has passed at now
// (nanoseconds since epoch), and every waiting task once Interrupt was
// called; it sets soonest to the earliest deadline still ahead.
func (l *Loop) scan(now int64) {
	stopping := l.stopping.Load()
	l.soonest, l.lastScan = 0, now
	for _, t := range l.tasks {
		if t.wait == waitNone {
			continue
		}
		due := t.due()
		if stopping || (due != 0 && now >= due) {
			t.expired = true
			l.resume(t)
		} else if due != 0 {
			l.noteDue(due)
		}
	}
}

func (l *Loop) drainWake() {
	var buf [8]byte
	l.woken.Store(false)
	_, _ = unix.Read(l.wakefd, buf[:])
}

// resume runs t until it waits again or returns, running the functions
// it hands to OnLoop on the way.
func (l *Loop) resume(t *Task) {
	if t.done {
		return
	}
	for {
		l.resumes++
		t.wait = waitNone
		l.cur = t
		_, ok := t.next()
		l.cur = nil
		if !ok {
			t.done = true
			l.live--
			return
		}
		fn := l.call
		if fn == nil {
			return
		}
		l.call = nil
		fn()
	}
}

// OnLoop runs fn on the loop's goroutine and returns once it has. Called
// from a task of the loop, it suspends the task, runs fn and resumes the
// task at once, so fn's deep calls (a recorder's flush) use the loop's
// stack, not the task's 2 KiB coroutine stack, which a deep call grows to
// 4 KiB for good. Called with no task running (after Run), it runs fn in
// place. It costs two coroutine switches and no allocation. fn must not
// park or call into a task.
func (l *Loop) OnLoop(fn func()) {
	t := l.cur
	if t == nil {
		fn()
		return
	}
	l.call = fn
	t.yield(struct{}{})
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
