package ramp

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/gb-bench/gb/internal/capacity"
	"github.com/gb-bench/gb/stats"
)

// Ramp is a load ramp (gb ramp): one Result per step, in the order run,
// each with a constant load, and what the ramp derived from them. It is
// also the shape of gb ramp's --json file.
type Ramp struct {
	Version   int      `json:"version"` // stats.FormatVersion of the steps
	GBVersion string   `json:"gb_version"`
	Command   []string `json:"command"` // argv with secrets redacted
	// By names the load that changes from step to step: "concurrency"
	// (closed loop, Target.Concurrency) or "rate" (open model,
	// Target.Rate, with Target.Concurrency as the connection pool).
	By string `json:"steps_by"`
	// Saturation is the 1-based number of the saturation step (see
	// [Saturation]); 0 when the ramp found none.
	Saturation int `json:"saturation_step"`
	// Stopped is the 1-based number of the step in which the server
	// stopped answering (see [Stopped]); 0 when it answered every step.
	Stopped int `json:"stopped_step,omitempty"`
	// MaxErrors is the share of a step's requests that may fail or be
	// answered non-2xx before the step counts as saturated (--max-errors);
	// 0 = none may.
	MaxErrors float64         `json:"max_errors"`
	Steps     []*stats.Result `json:"steps"`
	// ReplyRates holds, per step, the requests ended per second in each
	// whole second of the step, from which the autobench file takes its
	// min/avg/max/stddev reply rates. nil or empty for a step shorter
	// than a second.
	ReplyRates [][]float64 `json:"reply_rates"`
}

// UnmarshalJSON reads a ramp file; one written before max_errors existed
// gets the default bound (capacity.DefaultMaxErrors), not 0.
func (rp *Ramp) UnmarshalJSON(b []byte) error {
	type plain Ramp // Ramp's fields without this method
	p := plain{MaxErrors: capacity.DefaultMaxErrors}
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	*rp = Ramp(p)
	return nil
}

// Loads that a ramp steps through (Ramp.By, Spec.By).
const (
	ByConcurrency = "concurrency"
	ByRate        = "rate"
)

// The saturation rule (see [Saturation]).
const (
	saturationGain    = 0.05 // later throughput at most 5% above the step's
	saturationLoad    = 0.10 // the load rose at least 10% after the step
	saturationLatency = 0.05 // later p99 (median) at least 5% above the step's
	saturationBlipsAt = 3    // with this many later steps, one may be a blip above the band
)

// The rule for rate steps (see [Saturation] and [Missed]).
const (
	rateHeld    = 0.95                 // a step that served less than this share of its target rate missed it
	rateJump    = 4                    // corrected p50 above this many times the lightest earlier p99 is a jump...
	rateJumpMin = 5 * time.Millisecond // ...if it is also this much above it
	rateLagP50  = 5 * time.Millisecond // half the requests sent later than this: the schedule slipped
)

// Analyse sets rp's Stopped and Saturation from its steps.
func (rp *Ramp) Analyse() {
	rp.Stopped = Stopped(rp.Steps) + 1
	rp.Saturation = Saturation(rp.By, rp.Steps, rp.MaxErrors) + 1
}

// Stopped returns the index of the step in which the server stopped
// answering (a server that died, not one that saturated), or -1 when it
// answered to the end. That is the first dead step (requests were sent,
// none got a response, and connections were refused or failed to open),
// or the step before it when most of that step's failures were failed
// connections too: the server died during it.
func Stopped(steps []*stats.Result) int {
	for i, s := range steps {
		if s.Counts.Dispatched > 0 && s.Complete() == 0 && s.Breakdown().Connect > 0 {
			if i > 0 && 2*steps[i-1].Breakdown().Connect > steps[i-1].Totals().Failed && steps[i-1].Breakdown().Connect > 0 {
				return i - 1
			}
			return i
		}
	}
	return -1
}

// ErrorShare is the share of a step's ended requests (responses and
// failures) that failed or were answered non-2xx: stats.Totals'
// ErrorRate plus Non2xxRate.
func ErrorShare(r *stats.Result) float64 {
	t := r.Totals()
	return t.ErrorRate + t.Non2xxRate
}

// Overloaded says how step s's errors exceed maxErrors (a share), or
// returns "" when they do not.
func Overloaded(s *stats.Result, maxErrors float64) string {
	share := ErrorShare(s)
	if share <= maxErrors {
		return ""
	}
	t := s.Totals()
	return fmt.Sprintf("%s of its requests failed or were answered non-2xx (%d failed, %d non-2xx; --max-errors %s)",
		capacity.Percent(share), t.Failed, t.Non2xx, capacity.Percent(maxErrors))
}

// Saturation returns the index of the saturation step of steps (in load
// order, all of one kind), or -1 when there is none. Steps from the one
// in which the server stopped answering on (see [Stopped]) are left out:
// a dead server is not a saturated one.
//
// The first step whose errors exceed maxErrors (see [Overloaded]) is the
// saturation step, unless the rules below find an earlier one.
//
// In rate steps (by is ByRate) it is the first step that missed its
// target (see [Missed]): the server could not keep up with that rate.
//
// In concurrency steps it is the first step after which throughput stops
// rising while p99 keeps rising. Precisely, the first step i such that
//
//   - no later step's throughput is more than 5% above step i's, except
//     one blip when three or more steps follow (a shared machine or a
//     garbage collection makes one short step faster or slower now and
//     then; a trend is more than one step);
//   - the last step's load is at least 10% above step i's, so the server
//     was pushed well past it;
//   - the median p99 of the later steps is at least 5% above step i's.
//
// A step past which throughput falls (the server collapses) qualifies
// too, and so does the first step when the server was saturated from the
// start.
func Saturation(by string, steps []*stats.Result, maxErrors float64) int {
	if i := Stopped(steps); i >= 0 {
		steps = steps[:i]
	}
	k := knee(by, steps)
	for i, s := range steps {
		if Overloaded(s, maxErrors) != "" {
			if k >= 0 && k < i {
				return k
			}
			return i
		}
	}
	return k
}

// knee is Saturation's rule on latency and throughput alone.
func knee(by string, steps []*stats.Result) int {
	if by == ByRate {
		for i := range steps {
			if Missed(steps, i) != "" {
				return i
			}
		}
		return -1
	}
	if len(steps) < 2 {
		return -1
	}
	last := steps[len(steps)-1]
	for i, s := range steps[:len(steps)-1] {
		tput, later := s.RPS(), steps[i+1:]
		if tput <= 0 || Level(by, last) < (1+saturationLoad)*Level(by, s) {
			continue
		}
		if float64(medianP99(by, later)) < (1+saturationLatency)*float64(percentile(Latency(by, s), 99)) {
			continue
		}
		above := 0
		for _, t := range later {
			if t.RPS() > (1+saturationGain)*tput {
				above++
			}
		}
		if above == 0 || above == 1 && len(later) >= saturationBlipsAt {
			return i
		}
	}
	return -1
}

// Missed says how rate step i of steps missed its target rate, or returns
// "" when it held it. A step missed it when
//
//   - it served less than 95% of the target: complete responses per
//     second of the schedule (the step's elapsed time less its median
//     service time, the tail of the last requests) below 0.95 times the
//     target rate;
//   - or its corrected latency jumped: its corrected p50 (which includes
//     the dropped requests, see stats.Result.AddDropped) is more than four
//     times the lowest corrected p99 of the earlier steps, and at least
//     5 ms above it: requests queued behind the schedule;
//   - or the sends fell behind: its lag p50 is above 5 ms.
//
// When capacity.Diagnose finds that gb sent late (its pool ran dry, or
// it was short of CPU), the reason says so after a colon: the step missed
// its rate, but the server may not be why. (A pool short by Little's law
// is not named: a saturated server's queue makes the service time, and
// with it the connections needed, grow.)
func Missed(steps []*stats.Result, i int) string {
	why := missed(steps, i)
	if why == "" {
		return ""
	}
	if d := capacity.Diagnose(capacity.SignalsOf(steps[i], steps[i].Load.Concurrency)); d.GBs() && d.Cause != capacity.CausePool {
		why += ": " + d.Explain()
	}
	return why
}

// missed is Missed's rule, without the diagnosis.
func missed(steps []*stats.Result, i int) string {
	s := steps[i]
	if s.Load.Rate <= 0 {
		return ""
	}
	if served := servedRate(s); served < rateHeld*s.Load.Rate {
		return fmt.Sprintf("it served %.2f of its %s req/s", s.RPS(), FormatLevel(ByRate, s))
	}
	p50 := percentile(Latency(ByRate, s), 50)
	if i > 0 {
		ref := int64(math.MaxInt64)
		for _, e := range steps[:i] {
			ref = min(ref, percentile(Latency(ByRate, e), 99))
		}
		if float64(p50) > rateJump*float64(ref) && p50-ref >= rateJumpMin.Microseconds() {
			return fmt.Sprintf("its corrected p50 jumped to %s ms (lowest earlier p99 %s ms)", ms(float64(p50)), ms(float64(ref)))
		}
	}
	if lag := percentile(s.Latency[stats.Lag], 50); lag > rateLagP50.Microseconds() {
		return fmt.Sprintf("its sends fell behind the schedule (lag p50 %s ms)", ms(float64(lag)))
	}
	return ""
}

// servedRate is the step's complete responses per second of its schedule:
// its elapsed time less the median service time (the last requests' tail),
// or all of it when that leaves nothing.
func servedRate(r *stats.Result) float64 {
	d := r.Elapsed - time.Duration(percentile(r.Latency[stats.Total], 50))*time.Microsecond
	if d <= 0 {
		d = r.Elapsed
	}
	if d <= 0 {
		return 0
	}
	return float64(r.Complete()) / d.Seconds()
}

// medianP99 is the median of the steps' p99 latencies in µs (the lower
// middle one of an even count).
func medianP99(by string, steps []*stats.Result) int64 {
	p := make([]int64, len(steps))
	for i, s := range steps {
		p[i] = percentile(Latency(by, s), 99)
	}
	slices.Sort(p)
	return p[(len(p)-1)/2]
}

// Level is step r's load: its concurrency, or its target rate in
// requests per second when by is ByRate.
func Level(by string, r *stats.Result) float64 {
	if by == ByRate {
		return r.Load.Rate
	}
	return float64(r.Load.Concurrency)
}

// FormatLevel formats step r's Level for text and files: "8", "1500".
func FormatLevel(by string, r *stats.Result) string {
	return strconv.FormatFloat(Level(by, r), 'f', -1, 64)
}

// LevelName names the load for people: "concurrency" or "rate".
func LevelName(by string) string {
	if by == ByRate {
		return "rate"
	}
	return "concurrency"
}

// Latency is the distribution a ramp reports for step r: service time
// (Total) in a closed loop, and in rate steps the latency from each
// request's intended send time (Corrected), which is what grows when the
// server or the connection pool falls behind the schedule. nil when the
// step has no samples of it.
func Latency(by string, r *stats.Result) *stats.Dist {
	if by == ByRate && r.Latency[stats.Corrected] != nil {
		return r.Latency[stats.Corrected]
	}
	return r.Latency[stats.Total]
}

// percentile is d's p-th percentile in µs; 0 for a nil d or one without
// samples.
func percentile(d *stats.Dist, p float64) int64 {
	if d == nil || d.Count == 0 {
		return 0
	}
	return d.Percentile(p)
}

// ms formats µs as milliseconds with three decimals: "10.150".
func ms(us float64) string { return strconv.FormatFloat(us/1000, 'f', 3, 64) }
