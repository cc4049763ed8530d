package main

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"syscall"
	"time"

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
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
		s.cpu = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
		s.maxRSS = ru.Maxrss
	}
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
	}
}

// gcSummary writes GoHttpBench's GC summary line of gb's own runtime
// (NumGC, last and mean pause, pause overhead, heap, allocation rate, pause
// quantiles) for -v 2. It goes to stderr: its "NN%" token must not follow
// ab's report on stdout.
func gcSummary(w io.Writer, elapsed time.Duration) {
	var gs debug.GCStats
	gs.PauseQuantiles = make([]time.Duration, 100)
	debug.ReadGCStats(&gs)
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	secs := max(elapsed.Seconds(), 1e-9)
	if gs.NumGC == 0 {
		fmt.Fprintf(w, "Alloc:%s Sys:%s Alloc(Rate):%s/s\n", sizeString(ms.Alloc), sizeString(ms.Sys),
			sizeString(uint64(float64(ms.TotalAlloc)/secs)))
		return
	}
	fmt.Fprintf(w, "NumGC:%d Pause:%s Pause(Avg):%s Overhead:%3.2f%% Alloc:%s Sys:%s Alloc(Rate):%s/s Histogram:%s %s %s\n",
		gs.NumGC, durString(gs.Pause[0]), durString(gs.PauseTotal/time.Duration(len(gs.Pause))),
		100*gs.PauseTotal.Seconds()/secs, sizeString(ms.Alloc), sizeString(ms.Sys),
		sizeString(uint64(float64(ms.TotalAlloc)/secs)),
		durString(gs.PauseQuantiles[94]), durString(gs.PauseQuantiles[98]), durString(gs.PauseQuantiles[99]))
}

// durString prints a duration as GoHttpBench does: two decimals and the
// largest fitting unit, "0" for zero.
func durString(d time.Duration) string {
	switch {
	case d == 0:
		return "0"
	case d < time.Microsecond:
		return fmt.Sprintf("%.2fns", float64(d))
	case d < time.Millisecond:
		return fmt.Sprintf("%.2fus", float64(d)/1e3)
	case d < time.Second:
		return fmt.Sprintf("%.2fms", float64(d)/1e6)
	case d < time.Minute:
		return fmt.Sprintf("%.2fs", d.Seconds())
	case d < time.Hour:
		return fmt.Sprintf("%.2fm", d.Minutes())
	}
	return fmt.Sprintf("%.2fh", d.Hours())
}

// sizeString prints bytes in base 1024 as GoHttpBench does.
func sizeString(b uint64) string {
	switch {
	case b < 1<<10:
		return fmt.Sprintf("%dB", b)
	case b < 1<<20:
		return fmt.Sprintf("%.2fK", float64(b)/(1<<10))
	case b < 1<<30:
		return fmt.Sprintf("%.2fM", float64(b)/(1<<20))
	}
	return fmt.Sprintf("%.2fG", float64(b)/(1<<30))
}
