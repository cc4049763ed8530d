package profile

import (
	"testing"
	"time"
)

// TestMaxPause: the longest pause is taken over the cycles of the load
// only, through the ring's wrap, and over its last 256 when there were
// more.
func TestMaxPause(t *testing.T) {
	ring := func(numGC uint32, pauses map[uint32]uint64) *memStats {
		m := &memStats{NumGC: numGC}
		for cycle, p := range pauses {
			m.PauseNs[(cycle+255)%256] = p
		}
		return m
	}
	for _, tc := range []struct {
		name  string
		since uint32
		after *memStats
		want  time.Duration
	}{
		{"no cycle", 5, ring(5, map[uint32]uint64{5: 900}), 0},
		{"load's cycles only", 5, ring(7, map[uint32]uint64{5: 900, 6: 100, 7: 300}), 300},
		{"through the wrap", 255, ring(258, map[uint32]uint64{256: 50, 257: 70, 258: 60}), 70},
		{"last 256", 0, ring(300, map[uint32]uint64{45: 9, 300: 8}), 9}, // cycles 45..300 are in the ring
	} {
		if got := maxPause(tc.since, tc.after); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}
