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

// TestGoalsAgainstMeasuringFloor: the keep-alive goal table shows gb
// against the plain floor and against the floor that measures every
// response (what measuring costs without gb's engine).
func TestGoalsAgainstMeasuringFloor(t *testing.T) {
	m := mode{name: "keep-alive", tools: []tool{{key: "gb", name: "gb"}}, targets: []*target{{name: "nginx 6 B"}}, conc: []int{50}}
	cells := map[cellKey][]row{{"keep-alive", "nginx 6 B", 50}: {
		{tool: "gb", ok: 1, runs: 1, cpu: 1.33, rps: 50000},
		{tool: "ab", ok: 1, runs: 1, cpu: 1.38, rps: 50000},
		{tool: "floor epoll", ok: 1, runs: 1, cpu: 1.30, rps: 50000},
		{tool: "floor epoll -measure", ok: 1, runs: 1, cpu: 1.40, rps: 50000},
	}}
	out := goals([]mode{m}, cells)
	if want := "| nginx 6 B | 50 | gb | 1.33 | ab 1.38 | 0.96 | 1.02 | 0.95 | – | yes |"; !strings.Contains(out, want) {
		t.Errorf("missing %q in\n%s", want, out)
	}
}

// TestNewVerdict: the close goal's row is "yes" only when both medians
// meet it; a miss is "no" when the runs show it (CPU above ab's, or req/s
// below) and "not shown worse" when they overlap.
func TestNewVerdict(t *testing.T) {
	ab := row{tool: "ab", cpu: 7.0, rps: 14000, cpus: []float64{6.9, 7.0, 7.1, 6.95, 7.05}, rpss: []float64{13900, 14000, 14100, 13950, 14050}}
	for _, c := range []struct {
		name string
		g    row
		want string
	}{
		{"both met", row{cpu: 6.9, rps: 14100}, "yes"},
		{"CPU above in every run", row{cpu: 7.5, rps: 14100, cpus: []float64{7.4, 7.5, 7.6, 7.45, 7.55}}, "no (p="},
		{"req/s below in every run", row{cpu: 6.9, rps: 13000, rpss: []float64{12900, 13000, 13100, 12950, 13050}}, "no (p="},
		{"req/s overlapping", row{cpu: 6.9, rps: 13990, rpss: []float64{13800, 13990, 14200, 13850, 14150}}, "not shown worse (p="},
	} {
		if got := newVerdict(c.g, ab, 1, true); !strings.HasPrefix(got, c.want) {
			t.Errorf("%s: %q, want %s…", c.name, got, c.want)
		}
	}
}
