package gb

import (
	"runtime"
	"runtime/metrics"
	"time"

	"github.com/gb-bench/gb/internal/rusage"
	"github.com/gb-bench/gb/stats"
)

// selfSample is a reading of gb's own costs; two readings bracket a run.
type selfSample struct {
	maxRSS int64 // KiB
	cpu    time.Duration
	gc     int64
	pause  float64 // seconds
	allocs int64
}

var selfMetrics = []string{"/gc/cycles/total:gc-cycles", "/sched/pauses/total/gc:seconds", "/gc/heap/allocs:bytes"}

// readSelf reads gb's CPU time (getrusage) and its GC counters
// (runtime/metrics, which does not stop the world).
func readSelf() selfSample {
	var s selfSample
	s.cpu, s.maxRSS = rusage.Self()
	samples := make([]metrics.Sample, len(selfMetrics))
	for i, name := range selfMetrics {
		samples[i].Name = name
	}
	metrics.Read(samples)
	if samples[0].Value.Kind() == metrics.KindUint64 {
		s.gc = int64(samples[0].Value.Uint64())
	}
	if samples[1].Value.Kind() == metrics.KindFloat64Histogram {
		s.pause = histSum(samples[1].Value.Float64Histogram())
	}
	if samples[2].Value.Kind() == metrics.KindUint64 {
		s.allocs = int64(samples[2].Value.Uint64())
	}
	return s
}

// histSum estimates a runtime/metrics histogram's total from bucket
// midpoints (the runtime keeps no exact sum of pauses).
func histSum(h *metrics.Float64Histogram) float64 {
	var sum float64
	for i, n := range h.Counts {
		lo, hi := h.Buckets[i], h.Buckets[i+1]
		switch {
		case n == 0:
		case lo < -1e300:
			sum += float64(n) * hi
		case hi > 1e300:
			sum += float64(n) * lo
		default:
			sum += float64(n) * (lo + hi) / 2
		}
	}
	return sum
}

// selfCost returns what gb spent between two readings.
func selfCost(before, after selfSample) stats.Client {
	return stats.Client{
		CPU:        after.cpu - before.cpu,
		MaxProcs:   runtime.GOMAXPROCS(0),
		GCCycles:   after.gc - before.gc,
		GCPause:    time.Duration((after.pause - before.pause) * 1e9),
		HeapAllocs: after.allocs - before.allocs,
		MaxRSS:     after.maxRSS << 10,
		BaseRSS:    before.maxRSS << 10,
	}
}
