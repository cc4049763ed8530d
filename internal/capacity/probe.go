package capacity

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/gb-bench/gb/internal/threshold"
	"github.com/gb-bench/gb/stats"
)

// Thresholds of a probe's verdict.
const (
	// MinAchieved is the share of the target rate a passing probe sends.
	MinAchieved = 0.99
	// BusyClient is the share of gb's cores above which gb itself may be
	// the limit (report's self-bottleneck warning uses the same).
	BusyClient = 0.9
	// MaxLag is the p99 of send lag above which a probe's latency is
	// gb's as much as the server's (report's warning uses the same).
	MaxLag = 5 * time.Millisecond
	// poolHeadroom is how many connections a probe has per connection
	// Little's law says it needs: the pool is too small below it.
	poolHeadroom = 1.25
)

// Probe is one load at a fixed target rate and its verdict.
type Probe struct {
	Rate      int64   `json:"rate"`       // target, requests per second
	Conns     int     `json:"conns"`      // connection pool (-c)
	Achieved  float64 `json:"achieved"`   // requests sent per second
	P50       int64   `json:"p50_us"`     // corrected latency median, µs; 0 = no response
	P99       int64   `json:"p99_us"`     // corrected latency p99, µs; 0 = no response
	Errors    int64   `json:"errors"`     // requests that failed or were answered non-2xx
	Non2xx    int64   `json:"non2xx"`     // of Errors, the non-2xx responses
	Dropped   int64   `json:"dropped"`    // requests never sent before the probe's end
	ClientCPU float64 `json:"client_cpu"` // gb's CPU use, cores

	// ErrorShare is Errors over the requests that ended (responses and
	// failures; stats.Totals' ErrorRate + Non2xxRate), 0..1.
	ErrorShare float64 `json:"error_share"`
	// ErrorsOver is set when ErrorShare was above the bound allowed
	// (--max-errors): the probe failed, and the failure is the server's
	// however late gb sent.
	ErrorsOver bool `json:"errors_over"`

	// Need is the connections the rate needs by Little's law (target
	// rate times mean service time); 0 when no response came.
	Need float64 `json:"need"`
	// ClientBusy is set when gb used at least 90% of its cores.
	ClientBusy bool `json:"client_busy"`
	// PoolShort is set when the pool had fewer connections than Need
	// with headroom: a failure may be the client's, not the server's.
	PoolShort bool `json:"pool_short"`

	// LagP99 is the p99 of how late gb sent requests behind their
	// schedule, µs; ClientLate is set when Diagnose blames gb's sends
	// (CauseClientLag): gb was starved of CPU, and its delay is in the
	// corrected latency.
	LagP99     int64 `json:"lag_p99_us"`
	ClientLate bool  `json:"client_late"`
	// Cause is Diagnose's verdict on the probe's schedule; "" when it
	// was kept.
	Cause Cause `json:"cause,omitempty"`

	// Retry says why the search ran the rate again and did not count
	// this probe's failure: RetryPool, RetryLate or RetryConfirm; "" =
	// counted.
	Retry string `json:"retry,omitempty"`

	// Interrupted is set when a signal cut the probe short: it is
	// neither a pass nor a failure (Pass is false, Reason says so).
	Interrupted bool `json:"interrupted,omitempty"`

	Pass   bool          `json:"pass"`
	Reason string        `json:"reason,omitempty"` // why it failed, one phrase; "" when it passed
	SLOs   []SLOResult   `json:"slos"`             // each SLO measured
	Result *stats.Result `json:"result,omitempty"` // the full run; nil in tests of the search
}

// Why a probe was run again (Probe.Retry).
const (
	RetryPool    = "more connections" // the pool was too small for the rate
	RetryLate    = "gb ran late"      // gb's sends lagged while its pool sufficed
	RetryConfirm = "to confirm"       // a rate at or below a passing one failed: run again before concluding
)

// DefaultMaxErrors is the share of a probe's requests that may fail or
// be answered non-2xx before it fails (--max-errors' default, 1%).
const DefaultMaxErrors = 0.01

// SLOs parses the --slo expressions (threshold syntax). A latency SLO on
// the total phase (the default) is judged on the corrected latency.
func SLOs(exprs []string) ([]threshold.Threshold, error) {
	ts, err := threshold.ParseAll(exprs)
	if err != nil {
		return nil, err
	}
	for i := range ts {
		if ts[i].Kind == threshold.Latency && ts[i].Phase == stats.Total {
			ts[i].Phase = stats.Corrected
		}
	}
	return ts, nil
}

// Judge measures the SLOs on res, a rate-mode run, and gives the verdict.
// res is kept in the Probe. maxErrors is the share of the requests that
// may fail or be answered non-2xx (0 = none may). A run a signal cut
// short is Interrupted: neither passed nor failed.
func Judge(res *stats.Result, conns int, slos []threshold.Threshold, maxErrors float64) Probe {
	d := Diagnose(SignalsOf(res, conns))
	tot := res.Totals()
	p := Probe{Rate: int64(math.Round(res.Load.Rate)), Conns: conns, Result: res,
		Dropped: tot.Dropped, Errors: tot.Failed + tot.Non2xx, Non2xx: tot.Non2xx, ErrorShare: tot.ErrorRate + tot.Non2xxRate,
		Achieved: d.Achieved, ClientCPU: d.ClientCores, Need: d.Need, ClientBusy: d.Busy, LagP99: d.LagP99, Cause: d.Cause}
	if dc := res.Latency[stats.Corrected]; dc != nil && dc.Count > 0 {
		p.P50, p.P99 = dc.Percentile(50), dc.Percentile(99)
	}
	p.PoolShort = d.Need*poolHeadroom > float64(conns)
	p.ClientLate = d.Cause == CauseClientLag
	for _, r := range threshold.Evaluate(slos, res) {
		p.SLOs = append(p.SLOs, SLOResult{r})
	}
	if res.StoppedBy == stats.StopSignal {
		p.Interrupted, p.Reason = true, "interrupted"
		return p
	}
	p.ErrorsOver = p.ErrorShare > maxErrors
	p.Reason = reason(&p, maxErrors)
	p.Pass = p.Reason == ""
	return p
}

// reason names every way p failed, or "". Errors above maxErrors (a
// share) fail it.
func reason(p *Probe, maxErrors float64) string {
	var why []string
	for _, r := range p.SLOs {
		if !r.Pass {
			why = append(why, fmt.Sprintf("%s %s", sloName(r.Threshold), measured(r.Result)))
		}
	}
	if p.ErrorsOver {
		why = append(why, fmt.Sprintf("errors %s (%d, %d of them non-2xx; --max-errors %s)",
			Percent(p.ErrorShare), p.Errors, p.Non2xx, Percent(maxErrors)))
	}
	if p.Achieved < MinAchieved*float64(p.Rate) {
		why = append(why, fmt.Sprintf("achieved %s req/s", Group(int64(math.Round(p.Achieved)))))
	}
	if p.Dropped > 0 {
		why = append(why, fmt.Sprintf("%d dropped", p.Dropped))
	}
	return strings.Join(why, ", ")
}

// Percent writes a share (0..1) as a percentage with up to three
// significant digits: "1%", "0.25%", "37.5%".
func Percent(share float64) string {
	return strconv.FormatFloat(100*share, 'g', 3, 64) + "%"
}

// sloName is the left side of an SLO as the user wrote it (corrected is
// how every latency SLO is judged, so it is not repeated).
func sloName(t threshold.Threshold) string {
	c := t.Canonical()
	c = strings.TrimPrefix(c, "corrected.")
	if i := strings.IndexAny(c, "<>="); i > 0 {
		return c[:i]
	}
	return c
}

// measured is an SLO's measured value for a person: "17.8 ms", "0.2%".
func measured(r threshold.Result) string {
	if !r.Known {
		return "none"
	}
	switch {
	case r.Kind == threshold.Latency:
		return Millis(int64(r.Measured))
	case r.Rate:
		return fmt.Sprintf("%.3g%%", r.Measured*100)
	case r.Kind == threshold.RPS:
		return fmt.Sprintf("%.1f", r.Measured)
	}
	return fmt.Sprintf("%.0f", r.Measured)
}

// Millis writes a latency in µs as milliseconds with three significant
// digits: "17.8 ms", "310 ms", "0.512 ms".
func Millis(us int64) string {
	ms := float64(us) / 1000
	switch {
	case ms >= 100:
		return fmt.Sprintf("%.0f ms", ms)
	case ms >= 10:
		return fmt.Sprintf("%.1f ms", ms)
	case ms >= 1:
		return fmt.Sprintf("%.2f ms", ms)
	}
	return fmt.Sprintf("%.3f ms", ms)
}

// Group writes n with its thousands separated by spaces: "4 200".
func Group(n int64) string {
	s := fmt.Sprint(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(' ')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}
