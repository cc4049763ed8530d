package gb_test

import (
	"context"
	"math"
	"testing"

	"github.com/gb-bench/gb"
	"github.com/gb-bench/gb/stats"
)

// TestMergeIsLossless: two real runs merged hold every request of both:
// counts and histogram totals are sums, the exact mean is the weighted
// mean, min and max the extremes; a run of another URL is refused.
func TestMergeIsLossless(t *testing.T) {
	srv := startServer()
	defer srv.Close()
	run := func(path string, n int64) *gb.Result {
		res, err := gb.Run(context.Background(), gb.Config{URL: srv.URL() + path, KeepAlive: true, Concurrency: 2, Requests: n})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	a, b := run("/hello", 300), run("/hello", 500)
	m, err := gb.Merge(a, b)
	if err != nil {
		t.Fatal(err)
	}
	ta, tb, tm := a.Latency[stats.Total], b.Latency[stats.Total], m.Latency[stats.Total]
	if m.Complete() != 800 || m.Counts.Status[200] != 800 || m.Counts.Dispatched != 800 || m.Load.Requests != 800 {
		t.Errorf("merged counts: complete %d, 200s %d, dispatched %d, requests %d", m.Complete(), m.Counts.Status[200], m.Counts.Dispatched, m.Load.Requests)
	}
	if tm.Hist.TotalCount() != 800 || tm.Count != 800 || tm.Min != min(ta.Min, tb.Min) || tm.Max != max(ta.Max, tb.Max) {
		t.Errorf("merged total: hist %d count %d min %d max %d", tm.Hist.TotalCount(), tm.Count, tm.Min, tm.Max)
	}
	if want := (ta.Mean()*300 + tb.Mean()*500) / 800; math.Abs(tm.Mean()-want) > 1e-9 {
		t.Errorf("merged mean %v, want %v", tm.Mean(), want)
	}
	if errs := m.Check(); len(errs) > 0 {
		t.Errorf("merged result breaks invariants: %v", errs)
	}
	if a.Latency[stats.Total].Count != 300 {
		t.Error("merge changed its input")
	}
	if _, err := gb.Merge(a, run("/json", 10)); err == nil {
		t.Error("runs of different URLs merged")
	}
}
