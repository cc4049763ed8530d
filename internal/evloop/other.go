//go:build !linux

package evloop

import (
	"context"
	"errors"
	"net"
	"time"
)

// errUnsupported is why New fails off Linux: gb then runs goroutines.
var errUnsupported = errors.New("evloop: needs Linux (epoll)")

// ErrNoTask is returned by DialContext when the context carries no task.
var ErrNoTask = errors.New("evloop: dial outside a task")

// FilesPerLoop is 0 off Linux: there are no loops.
const FilesPerLoop = 0

// Loop is unavailable off Linux; New always fails.
type Loop struct{}

// Task is unavailable off Linux.
type Task struct{}

// Conn is unavailable off Linux: no Dialer makes one.
type Conn struct{ net.Conn }

// Dialer is unavailable off Linux: its fields mirror the Linux Dialer's so
// that callers compile, and DialContext always fails.
type Dialer struct {
	Task      *Task
	Timeout   time.Duration
	LocalAddr *net.TCPAddr
	SockBuf   int
	Nagle     bool
	Target    *Target
}

// Target is unavailable off Linux; ParseTarget always fails.
type Target struct{}

// ParseTarget fails off Linux.
func ParseTarget(string) (*Target, error) { return nil, errUnsupported }

// Prepare does nothing off Linux.
func (d *Dialer) Prepare() {}

// New fails off Linux.
func New() (*Loop, error) { return nil, errUnsupported }

// Available returns why loops cannot run here.
func Available() error { return errUnsupported }

func (l *Loop) Go(fn func(t *Task)) *Task { return &Task{} }
func (l *Loop) Run()                      {}
func (l *Loop) Close()                    {}
func (l *Loop) Interrupt()                {}
func (l *Loop) OnLoop(fn func())          { fn() }
func (t *Task) Sleep(d time.Duration)     {}

func (d *Dialer) DialContext(context.Context, string, string) (net.Conn, error) {
	return nil, errUnsupported
}

// Pending is always false off Linux.
func (c *Conn) Pending() bool { return false }

// ErrWouldWait is never returned off Linux: there is no loop to drive.
var ErrWouldWait = errors.New("evloop: the operation would wait, outside the task")

// Drive fails off Linux: no Conn exists to drive.
func (c *Conn) Drive(func() bool) error { return errUnsupported }
