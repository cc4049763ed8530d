package testserver_test

import (
	"runtime"
	"testing"
	"time"

	"github.com/gb-bench/gb/internal/testserver"
	"github.com/gb-bench/gb/internal/testsupport"
)

// TestSlowEndpoints: each /slow/ endpoint answers 200, refuses bad
// parameters with 400, and /slow/leak's goroutines end when the server
// closes.
func TestSlowEndpoints(t *testing.T) {
	s := testsupport.Server(t, testserver.Options{})
	c := client()
	for _, path := range []string{"/slow/cpu?n=1000", "/slow/mutex?d=1ms", "/slow/garbage?n=10", "/slow/syscall?n=3", "/slow/leak", "/slow/starved?n=10", "/slow/starved?n=10&g=3"} {
		if resp, body := get(t, c, s.URL()+path); resp.StatusCode != 200 || body == "" {
			t.Errorf("%s: %d %q", path, resp.StatusCode, body)
		}
	}
	for _, path := range []string{"/slow/cpu?n=x", "/slow/cpu?n=-1", "/slow/cpu?n=50000001", "/slow/mutex?d=2s",
		"/slow/mutex?d=x", "/slow/garbage?n=1000001", "/slow/syscall?n=x", "/slow/starved?n=x", "/slow/starved?g=65", "/slow/starved?g=-1"} {
		if resp, _ := get(t, c, s.URL()+path); resp.StatusCode != 400 {
			t.Errorf("%s: %d, want 400", path, resp.StatusCode)
		}
	}
}

// TestSlowLeakEndsAtClose: the goroutines /slow/leak keeps end with the
// server, so tests that use it leave none behind.
func TestSlowLeakEndsAtClose(t *testing.T) {
	before := runtime.NumGoroutine()
	s, err := testserver.Start(testserver.Options{})
	if err != nil {
		t.Fatal(err)
	}
	c := client()
	for range 50 {
		get(t, c, s.URL()+"/slow/leak")
	}
	if n := runtime.NumGoroutine(); n < before+50 {
		t.Fatalf("%d goroutines after 50 leaks, %d before", n, before)
	}
	c.CloseIdleConnections()
	s.Close()
	for deadline := time.Now().Add(30 * time.Second); runtime.NumGoroutine() >= before+50; {
		if time.Now().After(deadline) {
			t.Fatalf("%d goroutines 30s after Close, %d before", runtime.NumGoroutine(), before)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
