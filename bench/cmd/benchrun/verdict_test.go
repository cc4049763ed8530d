package main

import (
	"strings"
	"testing"
)

// TestVerdict: a gb row whose median missed the goal is "no" when its runs
// are all above the peer's (or the floor's × 1.05), and "not shown worse"
// when they overlap.
func TestVerdict(t *testing.T) {
	peer := row{tool: "ab", cpus: []float64{1.50, 1.52, 1.55, 1.49, 1.51}}
	floor := row{tool: "floor epoll", cpus: []float64{1.60, 1.62, 1.61, 1.63, 1.59}}
	above := row{tool: "gb", cpus: []float64{1.80, 1.82, 1.85, 1.79, 1.81}}
	mixed := row{tool: "gb", cpus: []float64{1.45, 1.58, 1.53, 1.49, 1.60}}
	for _, c := range []struct {
		name            string
		g               row
		bestOK, floorOK bool
		want            string
	}{
		{"above the peer", above, false, true, "no (p="},
		{"above the floor", above, true, false, "no (p="},
		{"overlapping the peer", mixed, false, true, "not shown worse (p="},
	} {
		if got := verdict(c.g, peer, floor, c.bestOK, c.floorOK); !strings.HasPrefix(got, c.want) {
			t.Errorf("%s: %q, want %s…", c.name, got, c.want)
		}
	}
}
