//go:build linux

package main

import (
	"errors"
	"fmt"
	"runtime"
	"sync/atomic"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The io_uring ABI (include/uapi/linux/io_uring.h) that this tool uses.
const (
	sysSetup = 425 // io_uring_setup(2)
	sysEnter = 426 // io_uring_enter(2)

	opSend = 26 // IORING_OP_SEND
	opRecv = 27 // IORING_OP_RECV

	sqeIOLink = 1 << 2 // IOSQE_IO_LINK: the next SQE starts when this one succeeded

	setupSingleIssuer = 1 << 12 // IORING_SETUP_SINGLE_ISSUER
	setupDeferTaskrun = 1 << 13 // IORING_SETUP_DEFER_TASKRUN: completions run in io_uring_enter, not as interrupts
	enterGetEvents    = 1 << 0  // IORING_ENTER_GETEVENTS

	offSQEs = 0x10000000 // IORING_OFF_SQES
)

// sqe is struct io_uring_sqe (64 bytes).
type sqe struct {
	opcode   uint8
	flags    uint8
	ioprio   uint16
	fd       int32
	off      uint64
	addr     uint64
	len      uint32
	opFlags  uint32
	userData uint64
	_        [24]byte
}

// cqe is struct io_uring_cqe (16 bytes).
type cqe struct {
	userData uint64
	res      int32
	flags    uint32
}

// params is struct io_uring_params with its two offset blocks as arrays:
// sqOff = head, tail, ring_mask, ring_entries, flags, dropped, array, ...;
// cqOff = head, tail, ring_mask, ring_entries, overflow, cqes, flags, ...
type params struct {
	sqEntries, cqEntries, flags, sqThreadCPU, sqThreadIdle, features, wqFd uint32
	_                                                                      [3]uint32
	sqOff                                                                  [10]uint32
	cqOff                                                                  [10]uint32
}

// ring is one io_uring instance, used by one thread.
type ring struct {
	fd                     int
	sqTail, sqMask         *uint32
	sqArray                []uint32
	sqes                   []sqe
	cqHead, cqTail, cqMask *uint32
	cqes                   []cqe
	queued                 uint32 // SQEs filled but not yet published by enter
}

// newRing sets up a ring with room for entries submissions, deferring
// completion work to io_uring_enter when the kernel allows (6.1+).
func newRing(entries uint32) (*ring, error) {
	var p params
	p.flags = setupSingleIssuer | setupDeferTaskrun
	fd, _, errno := syscall.Syscall(sysSetup, uintptr(entries), uintptr(unsafe.Pointer(&p)), 0)
	if errno == unix.EINVAL {
		p = params{}
		fd, _, errno = syscall.Syscall(sysSetup, uintptr(entries), uintptr(unsafe.Pointer(&p)), 0)
	}
	if errno != 0 {
		return nil, fmt.Errorf("io_uring_setup: %w", errno)
	}
	size := max(p.sqOff[6]+p.sqEntries*4, p.cqOff[5]+p.cqEntries*uint32(unsafe.Sizeof(cqe{})))
	rings, err := unix.Mmap(int(fd), 0, int(size), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED|unix.MAP_POPULATE)
	if err != nil {
		return nil, fmt.Errorf("mmap rings: %w", err)
	}
	sqes, err := unix.Mmap(int(fd), offSQEs, int(p.sqEntries)*int(unsafe.Sizeof(sqe{})), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED|unix.MAP_POPULATE)
	if err != nil {
		return nil, fmt.Errorf("mmap sqes: %w", err)
	}
	at := func(off uint32) *uint32 { return (*uint32)(unsafe.Pointer(&rings[off])) }
	return &ring{
		fd:     int(fd),
		sqTail: at(p.sqOff[1]), sqMask: at(p.sqOff[2]),
		sqArray: unsafe.Slice(at(p.sqOff[6]), p.sqEntries),
		sqes:    unsafe.Slice((*sqe)(unsafe.Pointer(&sqes[0])), p.sqEntries),
		cqHead:  at(p.cqOff[0]), cqTail: at(p.cqOff[1]), cqMask: at(p.cqOff[2]),
		cqes: unsafe.Slice((*cqe)(unsafe.Pointer(&rings[p.cqOff[5]])), p.cqEntries),
	}, nil
}

// next returns a zeroed SQE to fill; enter publishes it.
func (r *ring) next() *sqe {
	idx := (atomic.LoadUint32(r.sqTail) + r.queued) & *r.sqMask
	r.sqArray[idx] = idx
	r.queued++
	s := &r.sqes[idx]
	*s = sqe{}
	return s
}

// enter submits the queued SQEs and waits for at least one completion.
func (r *ring) enter() error {
	atomic.StoreUint32(r.sqTail, atomic.LoadUint32(r.sqTail)+r.queued)
	submit := r.queued
	r.queued = 0
	for {
		_, _, errno := syscall.Syscall6(sysEnter, uintptr(r.fd), uintptr(submit), 1, enterGetEvents, 0, 0)
		switch errno {
		case 0:
			return nil
		case unix.EINTR:
			submit = 0 // the submissions went in; only the wait was cut short
		default:
			return fmt.Errorf("io_uring_enter: %w", errno)
		}
	}
}

// userData tags: the connection's index, and whether the completion is a send.
const sendTag = 1 << 32

// uring drives the connections with one io_uring: a request is a send
// linked to a recv, submitted together; every turn of the loop submits
// what the last completions queued and waits for the next.
func (c *client) uring() error {
	runtime.LockOSThread() // SINGLE_ISSUER: every enter from this thread
	defer runtime.UnlockOSThread()
	entries := uint32(4096)
	for entries < uint32(2*len(c.fds)) {
		entries *= 2
	}
	r, err := newRing(entries)
	if err != nil {
		return err
	}
	defer unix.Close(r.fd)
	bufs := make([][]byte, len(c.fds))
	for i := range c.fds {
		bufs[i] = make([]byte, 16<<10)
		c.queue(r, i, bufs[i], true)
	}
	for c.done < c.n {
		if err := r.enter(); err != nil {
			return err
		}
		if err := c.reap(r, bufs); err != nil {
			return err
		}
		c.expire()
	}
	return nil
}

// queue adds a recv on connection i, preceded by a linked send of its
// next batch when withSend (and nothing when no request is left).
func (c *client) queue(r *ring, i int, buf []byte, withSend bool) {
	if withSend {
		b := c.next(i)
		if len(b) == 0 {
			return
		}
		s := r.next()
		s.opcode, s.flags, s.fd = opSend, sqeIOLink, int32(c.fds[i])
		s.addr, s.len, s.userData = uint64(uintptr(unsafe.Pointer(&b[0]))), uint32(len(b)), uint64(i)|sendTag
	}
	s := r.next()
	s.opcode, s.fd = opRecv, int32(c.fds[i])
	s.addr, s.len, s.userData = uint64(uintptr(unsafe.Pointer(&buf[0]))), uint32(len(buf)), uint64(i)
}

// reap handles every completion in the ring.
func (c *client) reap(r *ring, bufs [][]byte) error {
	head, tail := atomic.LoadUint32(r.cqHead), atomic.LoadUint32(r.cqTail)
	defer func() { atomic.StoreUint32(r.cqHead, head) }()
	for ; head != tail; head++ {
		e := r.cqes[head&*r.cqMask]
		i := int(e.userData &^ sendTag)
		switch {
		case e.userData&sendTag != 0 && e.res < 0:
			return fmt.Errorf("send on connection %d: %w", i, syscall.Errno(-e.res))
		case e.userData&sendTag != 0 && int(e.res) != c.inflight[i]*len(c.req):
			return fmt.Errorf("send on connection %d: %d bytes of %d", i, e.res, c.inflight[i]*len(c.req))
		case e.userData&sendTag != 0:
		case e.res < 0:
			return fmt.Errorf("recv on connection %d: %w", i, syscall.Errno(-e.res))
		case e.res == 0:
			return errors.New("a connection was closed by the server")
		default:
			c.queue(r, i, bufs[i], c.received(i, int(e.res)))
		}
	}
	return nil
}
