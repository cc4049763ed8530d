package profile

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/gb-bench/gb/stats"
)

// maxVars caps the /debug/vars body: memstats is a few kilobytes, the
// rest (cmdline, the server's own variables) is read past but not kept.
const maxVars = 4 << 20

// memStats is the part of runtime.MemStats that expvar publishes under
// "memstats" and gb uses.
type memStats struct {
	TotalAlloc   uint64
	Mallocs      uint64
	NumGC        uint32
	PauseTotalNs uint64
	HeapAlloc    uint64
	PauseNs      [256]uint64 // the last 256 GC pauses, the latest at (NumGC+255)%256
}

// noMemstatsError is readVars' error when the target serves no expvar
// memstats (as opposed to a reading that failed): Why says what it
// served instead.
type noMemstatsError struct{ Why string }

func (e *noMemstatsError) Error() string { return e.Why }

// readVars fetches /debug/vars and returns its memstats. A missing page
// (an HTTP error status), a body that is not expvar's JSON or one without
// memstats is a *noMemstatsError; other errors are the fetch's.
func (f *fetcher) readVars(ctx context.Context, rel string) (*memStats, error) {
	b, err := f.get(ctx, rel, maxVars, nil)
	if se, ok := errors.AsType[*StatusError](err); ok {
		return nil, &noMemstatsError{se.Error()}
	}
	if err != nil {
		return nil, err
	}
	defer b.free()
	var v struct {
		MemStats *memStats `json:"memstats"`
	}
	if err := json.NewDecoder(b.reader()).Decode(&v); err != nil {
		return nil, &noMemstatsError{"not expvar JSON"}
	}
	if v.MemStats == nil {
		return nil, &noMemstatsError{"no memstats in its JSON"}
	}
	return v.MemStats, nil
}

// runtimeDelta is what the server's runtime did between two readings.
// Counters that went backwards (a restarted server) give nil.
func runtimeDelta(before, after *memStats) *stats.ServerRuntime {
	if before == nil || after == nil || after.TotalAlloc < before.TotalAlloc ||
		after.Mallocs < before.Mallocs || after.NumGC < before.NumGC || after.PauseTotalNs < before.PauseTotalNs {
		return nil
	}
	return &stats.ServerRuntime{
		AllocBytes:   int64(after.TotalAlloc - before.TotalAlloc),
		AllocObjects: int64(after.Mallocs - before.Mallocs),
		GCCycles:     int64(after.NumGC - before.NumGC),
		GCPause:      time.Duration(after.PauseTotalNs - before.PauseTotalNs),
		HeapAlloc:    int64(min(after.HeapAlloc, 1<<62)),
		GCMaxPause:   maxPause(before.NumGC, after),
	}
}

// maxPause is the longest pause of the GC cycles after cycle since, up
// to after's (at most its last 256, those the ring holds).
func maxPause(since uint32, after *memStats) time.Duration {
	var m uint64
	for k := after.NumGC; k > since && after.NumGC-k < uint32(len(after.PauseNs)); k-- {
		m = max(m, after.PauseNs[(k+255)%256])
	}
	return time.Duration(min(m, 1<<62))
}
