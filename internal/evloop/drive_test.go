//go:build linux

package evloop

import (
	"errors"
	"io"
	"net"
	"os"
	"testing"
	"time"

	"github.com/gb-bench/gb/internal/testsupport"
)

// dialConn connects to addr on tk; nil (the test failed) if it cannot.
func dialConn(t *testing.T, tk *Task, addr string) *Conn {
	nc, err := dial(tk, addr)
	if err != nil {
		t.Error(err)
		return nil
	}
	return nc.(*Conn)
}

// TestDriveRunsExchangesWithoutResuming: a task sends a line and hands its
// connection to a handler that reads each echo and sends the next line,
// 200 rounds, on the loop's stack. The task is resumed once at the start
// and once when the handler gives the connection back, not per round.
func TestDriveRunsExchangesWithoutResuming(t *testing.T) {
	addr := testsupport.EchoLines(t)
	l, err := New()
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	const rounds = 200
	var echoed int
	l.Go(func(tk *Task) {
		c := dialConn(t, tk, addr)
		if c == nil {
			return
		}
		defer c.Close()
		buf := make([]byte, 64)
		got := 0
		if _, err := c.Write([]byte("ping\n")); err != nil {
			t.Error(err)
			return
		}
		before := l.resumes
		err = c.Drive(func() bool {
			n, err := c.ReadNow(buf[got:])
			if err != nil {
				t.Errorf("ReadNow: %v", err)
				return false
			}
			if got += n; got < 5 {
				return true // part of a line: wait for the rest
			}
			if string(buf[:5]) != "ping\n" {
				t.Errorf("echo %q", buf[:got])
				return false
			}
			got = 0
			if echoed++; echoed == rounds {
				return false
			}
			if _, err := c.Write([]byte("ping\n")); err != nil {
				t.Errorf("Write from the handler: %v", err)
				return false
			}
			return true
		})
		if err != nil {
			t.Errorf("Drive: %v", err)
		}
		if r := l.resumes - before; r != 1 {
			t.Errorf("the task was resumed %d times over %d driven rounds, want once (at the end)", r, rounds)
		}
	})
	l.Run()
	if echoed != rounds {
		t.Errorf("%d rounds, want %d", echoed, rounds)
	}
}

// TestDriveHandlerCannotPark: from a handler, the calls that would park the
// task (a Read of a drained socket, WaitReadable) return ErrWouldWait, and
// ReadNow returns 0 with no error.
func TestDriveHandlerCannotPark(t *testing.T) {
	addr := testsupport.EchoLines(t)
	runAll(t, func(tk *Task) {
		c := dialConn(t, tk, addr)
		if c == nil {
			return
		}
		defer c.Close()
		_, _ = c.Write([]byte("x\n"))
		buf := make([]byte, 64)
		_ = c.Drive(func() bool {
			if n, err := c.ReadNow(buf); n != 2 || err != nil {
				t.Errorf("ReadNow = %d, %v; want the echo", n, err)
			}
			if n, err := c.ReadNow(buf); n != 0 || err != nil {
				t.Errorf("ReadNow on a drained socket = %d, %v; want 0, nil", n, err)
			}
			if _, err := c.Read(buf); err != ErrWouldWait {
				t.Errorf("Read from a handler = %v, want ErrWouldWait", err)
			}
			if err := c.WaitReadable(); err != ErrWouldWait {
				t.Errorf("WaitReadable from a handler = %v, want ErrWouldWait", err)
			}
			return false
		})
	})
}

// TestDriveEndsAtDeadline: a handed-off connection whose peer never
// answers gives the task back when its deadline passes, and the task's
// next read fails as timed out, as after any parked wait.
func TestDriveEndsAtDeadline(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		c, err := ln.Accept()
		if err == nil {
			defer c.Close()
			_, _ = io.Copy(io.Discard, c) // reads, never answers
		}
	}()
	runAll(t, func(tk *Task) {
		nc, err := dial(tk, ln.Addr().String())
		if err != nil {
			t.Error(err)
			return
		}
		defer nc.Close()
		start := time.Now()
		_ = nc.SetDeadline(start.Add(50 * time.Millisecond))
		calls := 0
		_ = nc.(*Conn).Drive(func() bool { calls++; return true })
		if waited := time.Since(start); waited < 40*time.Millisecond || calls != 0 {
			t.Errorf("Drive returned after %v with %d handler calls; want the deadline, none", waited, calls)
		}
		if _, err := nc.Read(make([]byte, 8)); !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Errorf("read after a driven wait ran out = %v, want a deadline error", err)
		}
	})
}
