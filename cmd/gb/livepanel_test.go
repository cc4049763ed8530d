package main

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/gb-bench/gb"
	"github.com/gb-bench/gb/stats"
)

// fixedSnap is a rate-mode run 2.5 s into 10 s, with failures of two
// classes and gb near its CPU limit.
func fixedSnap() panel {
	var out stats.Outcomes
	out[stats.OK], out[stats.Non2xx], out[stats.TimeoutFirstByte], out[stats.FailConnect] = 2400, 90, 7, 3
	return panel{
		limits: liveLimits{Duration: 10 * time.Second, Rate: 1000, Cores: 2},
		snap: liveSnap{
			Progress: gb.Progress{Done: 2500, Elapsed: 2500 * time.Millisecond, OK: 2400, Non2xx: 90, Failed: 10,
				Outcomes: out, Retries: 2, Late: 40, ConnsOpen: 12, P50: 6100 * time.Microsecond, P99: 1500 * time.Millisecond},
			RecentRate: 980, History: []float64{1000, 500}, CPU: 1.9,
		},
	}
}

func TestPanelView80(t *testing.T) {
	want := strings.Join([]string{
		"elapsed 2.5s / 10.0s  2500 req  [███████░░░░░░░░░░░░░░░░░░░░░░░]  25%  ETA 7.5s",
		"req/s 980  (avg 1000)  █▅",
		"latency p50 6.1ms  p99 1.50s  (a closed interval)",
		"ok 2400  non-2xx 90  failed 10 (timeout.ttfb 7, connect 3)  retries 2",
		"connections 12 open",
		"rate target 1000/s  achieved 980/s  late 40  dropped 0",
		"gb cpu 1.90 cores (of 2)  gb itself may be the bottleneck",
	}, "\n")
	if got := fixedSnap().View(); got != want {
		t.Errorf("View at 80 columns:\n%s\nwant:\n%s", got, want)
	}
}

// TestPanelNarrow checks that no line outgrows a narrow terminal and the
// sparkline keeps the newest seconds.
func TestPanelNarrow(t *testing.T) {
	p := fixedSnap()
	p.snap.History = []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40}
	for _, w := range []int{80, 40, 20} {
		p.width = w
		for _, l := range strings.Split(p.View(), "\n") {
			if cellWidth(l) > w {
				t.Errorf("width %d: line %q is %d wide", w, l, cellWidth(l))
			}
		}
	}
	p.width = 40
	// 17 columns are left: seconds 24..40, scaled to 40.
	if l, want := strings.Split(p.View(), "\n")[1], "req/s 980  (avg 1000)  ▅▅▆▆▆▆▆▆▇▇▇▇▇▇███"; l != want {
		t.Errorf("req/s line at 40 columns %q, want %q: the newest seconds that fit", l, want)
	}
}

// TestTrackerRates feeds the tracker a steady 1000 req/s at 100 ms ticks:
// the last second's rate and each whole second of history are 1000.
func TestTrackerRates(t *testing.T) {
	var tr tracker
	var s liveSnap
	for i := int64(1); i <= 25; i++ {
		s = tr.add(gb.Progress{Done: i * 100, Elapsed: time.Duration(i) * 100 * time.Millisecond}, 0)
	}
	if s.RecentRate != 1000 || len(s.History) != 2 || s.History[0] != 1000 || s.History[1] != 1000 {
		t.Errorf("recent %v history %v, want 1000 and [1000 1000]", s.RecentRate, s.History)
	}
	s = tr.add(gb.Progress{Done: 10, Elapsed: 100 * time.Millisecond}, 0) // --repeat's next run
	if len(s.History) != 0 {
		t.Errorf("history %v after a new run, want none", s.History)
	}
}

// TestPanelServer: with --profile's readings the panel adds the server's
// cores and GC cycles (total and in the last second); without them no line.
func TestPanelServer(t *testing.T) {
	p := fixedSnap()
	if strings.Contains(p.View(), "server") {
		t.Errorf("a run without --profile shows a server line:\n%s", p.View())
	}
	p.snap.Server = gb.ServerLive{Known: true, CPU: 1.234, GC: 57, GCRecent: 4}
	lines := strings.Split(p.View(), "\n")
	if got, want := lines[len(lines)-1], "server: cpu 1.23 cores, gc 57 (+4)"; got != want {
		t.Errorf("server line %q, want %q", got, want)
	}
	p.snap.Server = gb.ServerLive{Known: true, GC: 3}
	lines = strings.Split(p.View(), "\n")
	if got, want := lines[len(lines)-1], "server: cpu - cores, gc 3 (+0)"; got != want {
		t.Errorf("server line without the cpu kind %q, want %q", got, want)
	}
}

// TestTrackerCPUInCores: gb's CPU in the panel is in cores, the report's
// unit (CPU seconds per second of wall time), whatever its cores: half a
// core's time per second is 0.50, shown as "0.50 cores (of N)".
func TestTrackerCPUInCores(t *testing.T) {
	var tr tracker
	var s liveSnap
	for i := int64(1); i <= 25; i++ {
		s = tr.add(gb.Progress{Done: i * 100, Elapsed: time.Duration(i) * 100 * time.Millisecond}, time.Duration(i)*50*time.Millisecond)
	}
	if math.Abs(s.CPU-0.5) > 1e-9 {
		t.Errorf("CPU %v, want 0.5 cores", s.CPU)
	}
	p := panel{limits: liveLimits{Cores: 3}, snap: s}
	if got, want := p.cpuLine().String(), "gb cpu 0.50 cores (of 3)"; got != want {
		t.Errorf("cpu line %q, want %q", got, want)
	}
}
