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

// Dialer is unavailable off Linux.
type Dialer struct {
	Timeout   time.Duration
	LocalAddr *net.TCPAddr
	SockBuf   int
}

// New fails off Linux.
func New() (*Loop, error) { return nil, errUnsupported }

// Available returns why loops cannot run here.
func Available() error { return errUnsupported }

func (l *Loop) Go(fn func(t *Task)) *Task { return &Task{} }
func (l *Loop) Run()                      {}
func (l *Loop) Close()                    {}
func (l *Loop) Interrupt()                {}
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
