package compare

import (
	"slices"
	"strings"
	"sync"

	"github.com/gb-bench/gb/stats"
)

// A Metric is one row of a comparison: a number taken from each run.
type Metric struct {
	// Key names the metric in --max-regression, e.g. "rps", "p99",
	// "corrected.p99.9", "errors" (the names of gb's --threshold).
	Key string
	// Label is the row's label in the text table.
	Label string
	// Unit is how values are measured and printed: UnitRate (per
	// second), UnitTime (seconds), UnitBytes, UnitCount or UnitRatio (a
	// fraction, printed as a percentage).
	Unit Unit
	// HigherIsBetter is true for throughput; a change of the other sign
	// is a regression.
	HigherIsBetter bool
	// Bench is the metric's unit in the Go benchmark format
	// (BenchFormat): times are in it as nanoseconds ("p99-ns").
	Bench string
	// Diagnosis marks a row of the server's diagnosis (--profile): the
	// text table leaves it out when all its values are 0, and the
	// benchmark format declares its unit only when a run measured it.
	Diagnosis bool

	value func(r *stats.Result) (float64, bool)
	// estimated reports whether r's value is an estimate (nil: never).
	estimated func(r *stats.Result) bool
}

// Estimated reports whether m's value of run r is an estimate: the
// server's allocations from its sampled allocs profile, when it has no
// expvar memstats.
func (m Metric) Estimated(r *stats.Result) bool { return m.estimated != nil && m.estimated(r) }

// Value returns m of run r, and false when r did not measure it.
func (m Metric) Value(r *stats.Result) (float64, bool) { return m.value(r) }

// Unit is the unit of a Metric's values.
type Unit int

// The units.
const (
	UnitRate  Unit = iota // per second
	UnitTime              // seconds
	UnitBytes             // bytes
	UnitCount             // a plain number
	UnitRatio             // a fraction of 1
)

// Metrics are the rows a comparison can have, in order. A row is shown
// when every run of every input has it: corrected latency only in rate
// mode, the server's CPU and allocations and the diagnosis's rows
// (diagnosisMetrics) only with --profile.
// They are built at first use (the diagnosis's rows by reflection), not
// when gb starts.
var Metrics = sync.OnceValue(func() []Metric {
	return slices.Concat(coreMetrics, diagnosisMetrics(), []Metric{
		{Key: "gb.cpu", Label: "gb CPU/req", Unit: UnitTime, Bench: "gb-cpu-ns/op", value: clientCPU},
	})
})

// coreMetrics are the rows of the load and the server profile's totals.
var coreMetrics = []Metric{
	{Key: "rps", Label: "req/s", Unit: UnitRate, HigherIsBetter: true, Bench: "req/s", value: rps},
	latency("p50", "", stats.Total, 50),
	latency("p90", "", stats.Total, 90),
	latency("p99", "", stats.Total, 99),
	latency("p99.9", "", stats.Total, 99.9),
	latency("p50", "corrected.", stats.Corrected, 50),
	latency("p90", "corrected.", stats.Corrected, 90),
	latency("p99", "corrected.", stats.Corrected, 99),
	latency("p99.9", "corrected.", stats.Corrected, 99.9),
	{Key: "errors", Label: "error rate", Unit: UnitRatio, Bench: "errors/op", value: (*stats.Result).ErrorRate},
	{Key: "non2xx", Label: "non-2xx rate", Unit: UnitRatio, Bench: "non2xx/op", value: (*stats.Result).Non2xxRate},
	{Key: "server.cpu", Label: "server CPU/req", Unit: UnitTime, Bench: "server-cpu-ns/op", value: serverCPU},
	{Key: "server.alloc_bytes", Label: "server alloc/req", Unit: UnitBytes, Bench: "server-B/op", value: serverAlloc(false), estimated: allocEstimated},
	{Key: "server.allocs", Label: "server allocs/req", Unit: UnitCount, Bench: "server-allocs/op", value: serverAlloc(true), estimated: allocEstimated},
}

// MetricByKey returns the metric named key.
func MetricByKey(key string) (Metric, bool) {
	for _, m := range Metrics() {
		if m.Key == key {
			return m, true
		}
	}
	return Metric{}, false
}

// rps is ab's "Requests per second": complete responses ÷ elapsed time.
func rps(r *stats.Result) (float64, bool) {
	if r.Elapsed <= 0 {
		return 0, false
	}
	return float64(r.Complete()) / r.Elapsed.Seconds(), true
}

// latency is the metric of phase ph's percentile p in seconds: service
// time (Total) or, with prefix "corrected.", latency from the intended
// send time (rate mode).
func latency(name, prefix string, ph stats.Phase, p float64) Metric {
	label, bench := "latency "+name, name+"-ns"
	if prefix != "" {
		label, bench = "corrected "+name, "corrected-"+bench
	}
	return Metric{Key: prefix + name, Label: label, Unit: UnitTime, Bench: bench, value: func(r *stats.Result) (float64, bool) {
		d := r.Latency[ph]
		if d == nil || d.Hist == nil || d.Count == 0 {
			return 0, false
		}
		return float64(d.Percentile(p)) / 1e6, true
	}}
}

// serverCPU is the server's CPU seconds per response: the cores it used
// while the CPU profile covered the load, over the whole load.
func serverCPU(r *stats.Result) (float64, bool) {
	p := r.Profile
	if p == nil || p.CPU == nil || p.Requests <= 0 || p.CPU.Load <= 0 {
		return 0, false
	}
	return p.CPU.Cores * p.CPU.Load.Seconds() / float64(p.Requests), true
}

// serverAlloc is the server's allocation per response, objects or bytes,
// as gb's report has it (stats.ServerProfile.AllocPerRequest): from its
// runtime memory statistics, else estimated from its allocs profile.
func serverAlloc(objects bool) func(r *stats.Result) (float64, bool) {
	return func(r *stats.Result) (float64, bool) {
		b, o, _, ok := r.Profile.AllocPerRequest()
		if objects {
			return o, ok
		}
		return b, ok
	}
}

// allocEstimated reports whether r's allocations are estimated from the
// allocs profile.
func allocEstimated(r *stats.Result) bool {
	_, _, est, _ := r.Profile.AllocPerRequest()
	return est
}

// clientCPU is gb's own CPU seconds per complete response.
func clientCPU(r *stats.Result) (float64, bool) {
	if r.Client.CPU <= 0 || r.Complete() == 0 {
		return 0, false
	}
	return r.Client.CPU.Seconds() / float64(r.Complete()), true
}

// keys lists the metric keys for an error message.
func keys() string {
	ks := make([]string, len(Metrics()))
	for i, m := range Metrics() {
		ks[i] = m.Key
	}
	return strings.Join(ks, ", ")
}
