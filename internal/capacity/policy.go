package capacity

import (
	"cmp"
	"context"
	"fmt"
	"time"

	"github.com/gb-bench/gb/internal/threshold"
	"github.com/gb-bench/gb/stats"
)

// Defaults of a probe (gb capacity's --rate-min, --step-time, --warmup).
const (
	DefaultRateMin  = 100              // requests per second
	DefaultStepTime = 10 * time.Second // measured length of a probe
	DefaultWarmup   = 2 * time.Second  // warm-up before each probe's measurement
)

// Load is one probe's load, which the caller's StepFunc runs as an
// open-model run (keep-alive, after its warm-up).
type Load struct {
	Rate     int64         // target, requests per second
	Requests int64         // the probe's budget: Rate over the step time, at least 1
	Duration time.Duration // its time limit, for a server that falls behind
	Conns    int           // the connection pool, at most Requests
}

// StepFunc runs one load and returns its result; a run a signal cut short
// has StoppedBy stats.StopSignal. An error ends the search.
type StepFunc func(ctx context.Context, l Load) (*stats.Result, error)

// Policy is how each probe of a search is run and judged; Prober turns it
// and the caller's StepFunc into Search's RunFunc.
type Policy struct {
	StepTime  time.Duration         // measured length of a probe; 0 = DefaultStepTime
	SLOs      []threshold.Threshold // see SLOs and Judge
	MaxErrors float64               // share of a probe's requests that may fail or be non-2xx; 0 = none may
}

// LoadAt is the load of a probe at rate on a pool of conns. It ends by its
// count (rate over the step time), so a request is dropped only when it
// was not sent by the time limit: the step time and half again, at least
// a second more. The pool is never larger than the requests.
func (p Policy) LoadAt(rate int64, conns int) Load {
	step := p.stepTime()
	l := Load{Rate: rate, Requests: max(1, int64(float64(rate)*step.Seconds()+0.5)), Duration: step + max(step/2, time.Second)}
	l.Conns = int(min(int64(conns), l.Requests))
	return l
}

func (p Policy) stepTime() time.Duration {
	if p.StepTime <= 0 {
		return DefaultStepTime
	}
	return p.StepTime
}

// Prober returns the RunFunc of a search that runs each probe on step at
// LoadAt's load and judges its result (Judge, on the pool asked for). A
// probe whose requests all went unanswered, though sent and not cut short
// by ctx, ends the search with an error naming the most common failure:
// a server that answers nothing has no capacity to bracket.
func (p Policy) Prober(step StepFunc) RunFunc {
	return func(ctx context.Context, rate int64, conns int) (Probe, error) {
		res, err := step(ctx, p.LoadAt(rate, conns))
		if err != nil {
			return Probe{}, err
		}
		if res.Complete() == 0 && res.Counts.Dispatched > 0 && ctx.Err() == nil {
			return Probe{}, fmt.Errorf("no response at %d req/s: %s", rate, cmp.Or(MostCommonError(res.Counts.Errors), "every request failed"))
		}
		return Judge(res, conns, p.SLOs, p.MaxErrors), nil
	}
}

// MostCommonError is the most frequent of a run's failure messages
// (stats.Counts.Errors; a tie goes to the first in byte order), or ""
// when none was kept.
func MostCommonError(errs map[string]int64) string {
	msg, n := "", int64(0)
	for m, c := range errs {
		if c > n || c == n && c > 0 && m < msg {
			msg, n = m, c
		}
	}
	return msg
}
