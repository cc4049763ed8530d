package load

import (
	"testing"
	"time"
)

// TestBackoffDoesNotDependOnWorkers: before any connection of the run has
// opened, every failed connect waits 10 ms, so the 10-failure abort comes
// as soon with one worker as with fifty (it took 3.3 s with -c 1 when each
// worker doubled its own wait); a worker that cannot connect while others
// can doubles up to 1 s.
func TestBackoffDoesNotDependOnWorkers(t *testing.T) {
	var d, total time.Duration
	for range 9 { // the 10th failure aborts the run
		d = nextBackoff(d, false, false)
		total += d
	}
	if total != 90*time.Millisecond {
		t.Errorf("-c 1 waits %v before the abort, want 90ms", total)
	}
	d = 0
	for _, want := range []time.Duration{10, 20, 40, 80, 160, 320, 640, 1000, 1000} {
		if d = nextBackoff(d, false, true); d != want*time.Millisecond {
			t.Errorf("backlog full: %v, want %vms", d, want)
		}
	}
	if d = nextBackoff(time.Second, true, true); d != 10*time.Millisecond {
		t.Errorf("a connected worker refused now and then waits %v", d)
	}
}
