package web

import (
	"encoding/json"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/gb-bench/gb/stats"
)

// Figures is one reading of a running load. A Source fills it; the zero
// value is a load that has not started.
type Figures struct {
	Elapsed    time.Duration  // since the measured load started
	Outcomes   stats.Outcomes // requests ended so far, by outcome (live counters)
	ConnsOpen  int64          // connections open
	TargetRate float64        // requests per second asked for; 0 = no rate
	// Latency is the total (service) latency in µs over every interval of
	// the series closed so far: a histogram the Source sets (a fresh copy)
	// and nothing else writes; nil = none yet.
	Latency   *hdrhistogram.Histogram
	ServerCPU float64       // cores the server was busy in its last CPU window
	ServerSet bool          // ServerCPU was read (--profile with cpu)
	ClientCPU time.Duration // gb's CPU time so far, user+system; 0 = unknown
}

// A Source fills f with a load's figures now. It is called from the
// sampler's goroutine, once a second, and must not block on the load.
type Source func(f *Figures)

// Sample is one second of a load as the page draws it: one "sample"
// event of /events, in JSON. Counters are cumulative since the run
// started; rates and latency cover the second since the previous sample.
type Sample struct {
	Run      int              `json:"run"`                 // the run of --repeat, from 1
	T        float64          `json:"t"`                   // seconds since the load started
	OK       int64            `json:"ok"`                  // requests ended with a 2xx
	Non2xx   int64            `json:"non2xx"`              // requests ended with another final status
	Other    map[string]int64 `json:"other,omitempty"`     // every other outcome with a count (failed.*, aborted.*, dropped)
	Rate     float64          `json:"rate"`                // responses (ok and non2xx) per second over the last second
	Target   float64          `json:"target,omitempty"`    // the rate asked for; absent without one
	Latency  *Latency         `json:"latency,omitempty"`   // absent when no interval closed in the last second
	Conns    int64            `json:"conns"`               // connections open
	Server   *float64         `json:"serverCPU,omitempty"` // the server's busy cores; absent without a CPU profile
	ClientGB float64          `json:"gbCPU"`               // gb's own busy cores over the last second
}

// Latency is the total (service) latency of the requests whose interval
// closed since the previous sample, in milliseconds.
type Latency struct {
	N   int64   `json:"n"` // responses they count
	P50 float64 `json:"p50"`
	P90 float64 `json:"p90"`
	P99 float64 `json:"p99"`
	Max float64 `json:"max"`
}

// sampler turns a Source's cumulative figures into Samples. Not safe for
// concurrent use: one goroutine samples.
type sampler struct {
	run    int
	fig    Figures
	prev   Figures
	counts []int64 // the previous reading's latency counts; nil before one
	diff   hdrhistogram.Snapshot
}

// reset starts a new run: the next sample is its first.
func (s *sampler) reset() {
	s.run++
	s.prev, s.counts = Figures{}, nil
}

// sample reads src and returns the Sample since the previous one.
func (s *sampler) sample(src Source) Sample {
	s.fig = Figures{}
	src(&s.fig)
	f, p := &s.fig, &s.prev
	out := Sample{Run: s.run, T: f.Elapsed.Seconds(), OK: f.Outcomes[stats.OK], Non2xx: f.Outcomes[stats.Non2xx],
		Target: f.TargetRate, Conns: f.ConnsOpen}
	for i, n := range f.Outcomes {
		if o := stats.Outcome(i); n > 0 && !o.Responded() {
			if out.Other == nil {
				out.Other = map[string]int64{}
			}
			out.Other[o.String()] = n
		}
	}
	if dt := (f.Elapsed - p.Elapsed).Seconds(); dt > 0 {
		out.Rate = float64(out.OK+out.Non2xx-p.Outcomes[stats.OK]-p.Outcomes[stats.Non2xx]) / dt
		if f.ClientCPU > 0 && p.ClientCPU > 0 {
			out.ClientGB = (f.ClientCPU - p.ClientCPU).Seconds() / dt
		}
	}
	if f.ServerSet {
		cpu := f.ServerCPU
		out.Server = &cpu
	}
	out.Latency = s.latency(f.Latency)
	s.prev = *f
	return out
}

// latency returns the percentiles of what cum (cumulative, µs) counts
// beyond the previous reading; nil when nothing new closed.
func (s *sampler) latency(cum *hdrhistogram.Histogram) *Latency {
	if cum == nil {
		return nil
	}
	snap := cum.Export() // a copy: kept as the next reading's base
	prev := s.counts
	s.counts = snap.Counts
	if len(prev) != len(snap.Counts) {
		prev = nil // the first reading, or another geometry: all of it is new
	}
	d := &s.diff
	*d = hdrhistogram.Snapshot{LowestTrackableValue: snap.LowestTrackableValue, HighestTrackableValue: snap.HighestTrackableValue,
		SignificantFigures: snap.SignificantFigures, Counts: d.Counts[:0]}
	var n int64
	for i, c := range snap.Counts {
		if prev != nil {
			c -= prev[i]
		}
		c = max(c, 0)
		n += c
		d.Counts = append(d.Counts, c)
	}
	if n == 0 {
		return nil
	}
	h := hdrhistogram.Import(d)
	ms := func(us int64) float64 { return float64(us) / 1e3 }
	return &Latency{N: n, P50: ms(h.ValueAtQuantile(50)), P90: ms(h.ValueAtQuantile(90)),
		P99: ms(h.ValueAtQuantile(99)), Max: ms(h.Max())}
}

// event encodes an SSE event of type name with v as its JSON data.
func event(name string, v any) []byte {
	data, err := json.Marshal(v)
	if err != nil { // a Sample always encodes; keep the stream well formed anyway
		data = []byte("{}")
	}
	b := make([]byte, 0, len(name)+len(data)+16)
	b = append(b, "event: "...)
	b = append(b, name...)
	b = append(b, "\ndata: "...)
	b = append(b, data...)
	return append(b, "\n\n"...)
}
