package gb

import (
	"runtime"
	"runtime/metrics"
	"sync/atomic"
	"time"

	"github.com/gb-bench/gb/internal/profile"
	"github.com/gb-bench/gb/internal/rusage"
	"github.com/gb-bench/gb/stats"
)

// measure brackets the measured part of one load: gb's own cost and the
// server's profile cover it, from the warm-up's end when there is one
// (load.Config.OnMeasure), else from just before the load.
type measure struct {
	first   selfSample                 // before the load and its warm-up: the baseline RSS
	before  atomic.Pointer[selfSample] // when measuring began; nil while warming up
	capture *profile.Capture           // prepared before the load; nil = no profile
}

// begin starts the measure. Before the load, the profile begins first
// (it waits until its first window is on the wire) and gb's CPU is read
// after, so the capture's start is not charged to gb. After a warm-up the
// load is running: gb's CPU is read at once, at the measured load's
// start, and the capture begins after (its start is charged to gb, as
// its windows during the load are).
func (m *measure) begin(during bool) {
	if m.capture != nil && !during {
		m.capture.Begin()
	}
	s := readSelf()
	m.before.Store(&s)
	if m.capture != nil && during {
		m.capture.BeginDuring()
	}
}

// cost is gb's cost from the measure's begin to end, with the baseline
// RSS from before the load. A load that stopped during its warm-up
// measured nothing and costs nothing.
func (m *measure) cost(end selfSample) stats.Client {
	before := m.before.Load()
	if before == nil {
		before = &end
	}
	c := selfCost(*before, end)
	c.BaseRSS = m.first.maxRSS << 10
	return c
}

// selfSample is a reading of gb's own costs; two readings bracket a run.
type selfSample struct {
	at     time.Time // when it was read (monotonic)
	maxRSS int64     // KiB
	cpu    time.Duration
	gc     int64
	pause  float64 // seconds
	allocs int64
}

var selfMetrics = []string{"/gc/cycles/total:gc-cycles", "/sched/pauses/total/gc:seconds", "/gc/heap/allocs:bytes"}

// readSelf reads gb's costs now: readSelfNow, or a tests' script.
var readSelf = readSelfNow

// readSelfNow reads gb's CPU time (getrusage) and its GC counters
// (runtime/metrics, which does not stop the world).
func readSelfNow() selfSample {
	s := selfSample{at: time.Now()}
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
		CPUWindow:  after.at.Sub(before.at),
		MaxProcs:   runtime.GOMAXPROCS(0),
		GCCycles:   after.gc - before.gc,
		GCPause:    time.Duration((after.pause - before.pause) * 1e9),
		HeapAllocs: after.allocs - before.allocs,
		MaxRSS:     after.maxRSS << 10,
		BaseRSS:    before.maxRSS << 10,
	}
}
