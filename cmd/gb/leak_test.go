package main

import (
	"io"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/gb-bench/gb/internal/testserver"
	"github.com/gb-bench/gb/internal/testsupport"
)

// TestInProcessNoLeaks (I10): after a run inside this process, goroutines
// and open file descriptors return to their baseline.
func TestInProcessNoLeaks(t *testing.T) {
	srv := testsupport.Server(t, testserver.Options{})
	url := srv.URL() + "/hello"
	// One warm-up run, so lazily started runtime goroutines exist in the baseline.
	run([]string{"-q", "-n", "10", url}, io.Discard, io.Discard, nil)
	time.Sleep(100 * time.Millisecond)
	g0, f0 := runtime.NumGoroutine(), openFDs(t)
	for _, args := range [][]string{
		{"-q", "-k", "-c", "20", "-n", "2000", url},
		{"-q", "-c", "5", "-n", "200", url},
		{"-q", "-k", "-c", "10", "-t", "1", "-R", "500", url},
		{"-q", "-c", "4", "-n", "8", "-s", "1", srv.FaultURL() + "/stall?ms=inf"}, // exits 1: no response
	} {
		want := 0
		if strings.Contains(args[len(args)-1], "/stall") {
			want = 1 // nothing got a response
		}
		if code := run(args, io.Discard, io.Discard, nil); code != want {
			t.Fatalf("gb %s: exit %d", strings.Join(args, " "), code)
		}
	}
	deadline := time.Now().Add(time.Minute) // a hang guard: the server's goroutines end when they are scheduled
	for {
		g, f := runtime.NumGoroutine(), openFDs(t)
		if g <= g0 && f <= f0 {
			return
		}
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<16)
			t.Fatalf("goroutines %d (baseline %d), fds %d (baseline %d)\n%s", g, g0, f, f0, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func openFDs(t *testing.T) int {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip("no /proc/self/fd")
	}
	return len(ents)
}
