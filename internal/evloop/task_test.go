//go:build linux

package evloop

import (
	"io"
	"net"
	"runtime"
	"strings"
	"testing"

	"github.com/gb-bench/gb/internal/testsupport"
)

// TestTaskAlternatesTwoConnections: one task keeps a connection to each
// of two servers and alternates between them (a worker of a run whose
// targets are on two addresses): every exchange is answered on its own
// connection, neither is closed by the other's use, and when one server
// closes its idle connection the loop is not woken over and over while
// the task works on the other.
func TestTaskAlternatesTwoConnections(t *testing.T) {
	echo := testsupport.EchoLines(t)
	closer := sayAndClose(t, "bye")
	l, err := New()
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var got [2]int
	var eof error
	l.Go(func(tk *Task) {
		a, err := dial(tk, echo)
		if err != nil {
			t.Error(err)
			return
		}
		defer a.Close()
		b, err := dial(tk, closer)
		if err != nil {
			t.Error(err)
			return
		}
		defer b.Close()
		buf := make([]byte, 64)
		if n, err := io.ReadAtLeast(b, buf, 3); err != nil || string(buf[:n]) != "bye" {
			t.Errorf("first server: %q, %v", buf[:n], err)
			return
		}
		got[1]++
		// b's server has closed it by now, or soon: b is idle while a works.
		for range 200 {
			if !exchange(t, a, buf) {
				return
			}
			got[0]++
		}
		_, eof = b.Read(buf)
	})
	l.Run()
	if got != [2]int{200, 1} {
		t.Errorf("exchanges %v, want [200 1]", got)
	}
	if eof != io.EOF {
		t.Errorf("idle connection's read after its server closed: %v, want EOF", eof)
	}
	if l.waits > 2000 { // about one per exchange; the spin makes hundreds of thousands
		t.Errorf("%d epoll waits for 200 exchanges: the idle closed socket kept waking the loop", l.waits)
	}
}

// exchange writes a line on c and reads its echo.
func exchange(t *testing.T, c net.Conn, buf []byte) bool {
	if _, err := c.Write([]byte("ping\n")); err != nil {
		t.Error(err)
		return false
	}
	if n, err := io.ReadAtLeast(c, buf, 5); err != nil || string(buf[:n]) != "ping\n" {
		t.Errorf("echo %q, %v", buf[:n], err)
		return false
	}
	return true
}

// TestOnLoopRunsOnTheLoopGoroutine: a task's OnLoop runs its function on
// the loop's own goroutine (not the task's coroutine), at once, and the
// same task goes on right after it, before any other task; with no task
// running the function runs in place.
func TestOnLoopRunsOnTheLoopGoroutine(t *testing.T) {
	l, err := New()
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var order []string
	var loopG, fnG, taskG string
	fn := func() { fnG = goroutineID(); order = append(order, "fn") }
	l.Go(func(*Task) {
		taskG = goroutineID()
		order = append(order, "a1")
		l.OnLoop(fn)
		order = append(order, "a2")
	})
	l.Go(func(*Task) { order = append(order, "b") })
	loopG = goroutineID()
	l.Run()
	if got := strings.Join(order, " "); got != "a1 fn a2 b" {
		t.Errorf("order %q, want %q", got, "a1 fn a2 b")
	}
	if fnG != loopG || fnG == taskG {
		t.Errorf("fn ran on goroutine %s; the loop's is %s, the task's %s", fnG, loopG, taskG)
	}
	ran := false
	l.OnLoop(func() { ran = true })
	if !ran {
		t.Error("OnLoop with no task running did not run its function")
	}
}

// goroutineID returns the calling goroutine's number, from its stack
// header ("goroutine 7 [running]:").
func goroutineID() string {
	buf := make([]byte, 64)
	buf = buf[:runtime.Stack(buf, false)]
	f := strings.Fields(string(buf))
	return f[1]
}
