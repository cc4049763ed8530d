package stats

import (
	"testing"
	"time"
)

// TestClientCores: gb's cores are its CPU over the window it was read
// over; without one (older results), over elapsed; 0 when neither is
// known. Merged shards ran side by side: their window is the longest.
func TestClientCores(t *testing.T) {
	for _, tc := range []struct {
		c       Client
		elapsed time.Duration
		want    float64
	}{
		{Client{CPU: 1500 * time.Millisecond, CPUWindow: 2 * time.Second}, 200 * time.Millisecond, 0.75},
		{Client{CPU: 1500 * time.Millisecond}, 3 * time.Second, 0.5},
		{Client{CPU: time.Second}, 0, 0},
	} {
		if got := tc.c.Cores(tc.elapsed); got != tc.want {
			t.Errorf("%+v over %v: %v cores, want %v", tc.c, tc.elapsed, got, tc.want)
		}
	}
	a := Client{CPU: time.Second, CPUWindow: 2 * time.Second, MaxProcs: 1}
	a.add(&Client{CPU: 3 * time.Second, CPUWindow: 4 * time.Second, MaxProcs: 1})
	if a.CPUWindow != 4*time.Second || a.Cores(0) != 1 {
		t.Errorf("merged %+v: %v cores", a, a.Cores(0))
	}
}
