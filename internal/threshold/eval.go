package threshold

import (
	"fmt"
	"strconv"

	"github.com/gb-bench/gb/stats"
)

// Result is a threshold measured on a run.
type Result struct {
	Threshold
	Measured float64 // in the threshold's base unit (see Threshold.Value)
	Known    bool    // false when the run has no such measurement (a latency without samples)
	Pass     bool    // Known and the comparison holds
}

// Eval measures t on r. A latency threshold on a phase without samples
// (no response, or corrected/lag outside rate mode) fails, unknown.
func (t Threshold) Eval(r *stats.Result) Result {
	res := Result{Threshold: t, Known: true}
	tot := r.Totals()
	switch t.Kind {
	case Latency:
		d := r.Latency[t.Phase]
		if d == nil || d.Count == 0 {
			res.Known = false
			return res
		}
		res.Measured = latencyStat(d, t)
	case Errors:
		res.Measured = pick(t.Rate, tot.ErrorRate, tot.Failed)
	case Non2xx:
		res.Measured = pick(t.Rate, tot.Non2xxRate, tot.Non2xx)
	case RPS:
		res.Measured = r.RPS()
	}
	res.Pass = t.Op.holds(res.Measured, t.Value)
	return res
}

// Evaluate measures every threshold on r.
func Evaluate(ts []Threshold, r *stats.Result) []Result {
	rs := make([]Result, len(ts))
	for i, t := range ts {
		rs[i] = t.Eval(r)
	}
	return rs
}

// Passed reports whether every result passed (true for none).
func Passed(rs []Result) bool {
	for _, r := range rs {
		if !r.Pass {
			return false
		}
	}
	return true
}

// Failures counts the results that did not pass.
func Failures(rs []Result) int {
	n := 0
	for _, r := range rs {
		if !r.Pass {
			n++
		}
	}
	return n
}

// latencyStat returns d's statistic for t in µs: the percentiles are the
// report's (stats.Dist.Percentile), min and max exact.
func latencyStat(d *stats.Dist, t Threshold) float64 {
	switch t.Stat {
	case "mean":
		return d.Mean()
	case "min":
		return float64(d.Min)
	case "max":
		return float64(d.Max)
	}
	return float64(d.Percentile(t.P))
}

// pick returns the share when rate, else the count.
func pick(rate bool, share float64, count int64) float64 {
	if rate {
		return share
	}
	return float64(count)
}

// holds reports whether "a op b".
func (o Op) holds(a, b float64) bool {
	switch o {
	case Less:
		return a < b
	case LessEq:
		return a <= b
	case Greater:
		return a > b
	case GreaterEq:
		return a >= b
	}
	return a == b
}

// Canonical returns the threshold as gb writes it in its text report:
// the metric with its phase when not total, the operator, the value in
// the unit written, and "pct" for a share (the report never prints a
// number followed by a percent sign), e.g. "corrected.p99.9<200ms",
// "errors<0.1pct".
func (t Threshold) Canonical() string {
	return t.metric() + string(t.Op) + t.format(t.Value)
}

// metric returns the left side, with the phase when it is not total.
func (t Threshold) metric() string {
	switch t.Kind {
	case Errors:
		return "errors"
	case Non2xx:
		return "non2xx"
	case RPS:
		return "rps"
	}
	if t.Phase != stats.Total {
		return t.Phase.String() + "." + t.Stat
	}
	return t.Stat
}

// format writes v, in t's base unit, in the unit t was written in.
func (t Threshold) format(v float64) string {
	switch {
	case t.Kind == Latency:
		return strconv.FormatFloat(v/latencyUnits[t.Unit], 'f', -1, 64) + t.Unit
	case t.Rate:
		return strconv.FormatFloat(v*100, 'f', -1, 64) + "pct"
	case t.Kind == RPS:
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	return strconv.FormatFloat(v, 'f', 0, 64)
}

// MeasuredText returns the measured value in the threshold's unit with a
// fixed precision (latency: 3 decimals of ms, µs as integers, 6 of s;
// shares: 3 decimals of pct; rps: 2 decimals), or "none" when unknown.
func (r Result) MeasuredText() string {
	if !r.Known {
		return "none"
	}
	switch {
	case r.Kind == Latency:
		return fmt.Sprintf("%.*f%s", map[string]int{"us": 0, "ms": 3, "s": 6}[r.Unit], r.Measured/latencyUnits[r.Unit], r.Unit)
	case r.Rate:
		return fmt.Sprintf("%.3fpct", r.Measured*100)
	case r.Kind == RPS:
		return fmt.Sprintf("%.2f", r.Measured)
	}
	return r.format(r.Measured)
}
