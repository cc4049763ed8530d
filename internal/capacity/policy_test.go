package capacity

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/gb-bench/gb/stats"
)

// TestLoadAt: a probe's budget is its rate over the step time (at least
// one request), its time limit the step time and half again (at least a
// second more), its pool never above its requests.
func TestLoadAt(t *testing.T) {
	for _, tc := range []struct {
		p     Policy
		rate  int64
		conns int
		want  Load
	}{
		{Policy{StepTime: 10 * time.Second}, 1000, 16, Load{Rate: 1000, Requests: 10000, Duration: 15 * time.Second, Conns: 16}},
		{Policy{}, 1000, 16, Load{Rate: 1000, Requests: 10000, Duration: 15 * time.Second, Conns: 16}}, // the default step time
		{Policy{StepTime: time.Second}, 3, 16, Load{Rate: 3, Requests: 3, Duration: 2 * time.Second, Conns: 3}},
		{Policy{StepTime: 100 * time.Millisecond}, 1, 8, Load{Rate: 1, Requests: 1, Duration: 1100 * time.Millisecond, Conns: 1}},
	} {
		if got := tc.p.LoadAt(tc.rate, tc.conns); got != tc.want {
			t.Errorf("%+v.LoadAt(%d, %d) = %+v, want %+v", tc.p, tc.rate, tc.conns, got, tc.want)
		}
	}
}

// scriptedStep is a StepFunc whose server serves up to limit req/s
// within 2 ms and answers slower (40 ms) above it; it keeps the loads it
// was asked to run.
type scriptedStep struct {
	limit int64
	loads []Load
}

func (s *scriptedStep) step(_ context.Context, l Load) (*stats.Result, error) {
	s.loads = append(s.loads, l)
	svc := int64(2000)
	if l.Rate > s.limit {
		svc = 40_000
	}
	r := rateResult(float64(l.Rate), l.Requests, 0, 0, svc, 100)
	r.Load.Concurrency = l.Conns
	return r, nil
}

// TestProberJudges: each probe runs the load LoadAt says and is judged
// on the SLOs and the errors allowed.
func TestProberJudges(t *testing.T) {
	slos, err := SLOs([]string{"p99<20ms"})
	if err != nil {
		t.Fatal(err)
	}
	s := &scriptedStep{limit: 1000}
	run := Policy{StepTime: time.Second, SLOs: slos, MaxErrors: DefaultMaxErrors}.Prober(s.step)
	pass, err := run(context.Background(), 800, 16)
	if err != nil || !pass.Pass || pass.Rate != 800 || pass.Conns != 16 {
		t.Fatalf("800 req/s: %v, pass %v rate %d conns %d: %s", err, pass.Pass, pass.Rate, pass.Conns, pass.Reason)
	}
	if want := (Load{Rate: 800, Requests: 800, Duration: 2 * time.Second, Conns: 16}); s.loads[0] != want {
		t.Errorf("load %+v, want %+v", s.loads[0], want)
	}
	fail, err := run(context.Background(), 1200, 16)
	if err != nil || fail.Pass || fail.Reason != "p99 40.1 ms" {
		t.Errorf("1200 req/s: %v, pass %v, reason %q", err, fail.Pass, fail.Reason)
	}
}

// TestProberNoResponse: a probe whose every request failed ends the
// search with the most common failure; one that ctx cut short, or a
// StepFunc's error, does not get judged either way.
func TestProberNoResponse(t *testing.T) {
	dead := func(_ context.Context, l Load) (*stats.Result, error) {
		r := rateResult(float64(l.Rate), 0, 0, 0, 0, 0)
		r.Counts.Dispatched = l.Requests
		r.Counts.Outcomes[stats.FailConnect] = l.Requests
		r.Counts.Errors = map[string]int64{"connect: connection refused": l.Requests - 1, "dial: no route": 1}
		return r, nil
	}
	run := Policy{StepTime: time.Second}.Prober(dead)
	if _, err := run(context.Background(), 500, 4); err == nil || err.Error() != "no response at 500 req/s: connect: connection refused" {
		t.Errorf("dead server: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if p, err := run(ctx, 500, 4); err != nil || p.Pass {
		t.Errorf("cut short: %v, pass %v", err, p.Pass)
	}
	broken := errors.New("plan closed")
	run = Policy{}.Prober(func(context.Context, Load) (*stats.Result, error) { return nil, broken })
	if _, err := run(context.Background(), 100, 1); !errors.Is(err, broken) {
		t.Errorf("step error: %v", err)
	}
}

// TestSearchWithProber runs a whole search through the policy on the
// scripted server: the capacity is bracketed below its limit, every
// probe's load had the policy's budget, and each failure was confirmed.
func TestSearchWithProber(t *testing.T) {
	slos, err := SLOs([]string{"p99<20ms"})
	if err != nil {
		t.Fatal(err)
	}
	s := &scriptedStep{limit: 1000}
	pol := Policy{StepTime: 2 * time.Second, SLOs: slos, MaxErrors: DefaultMaxErrors}
	o, err := Search(context.Background(), Config{RateMin: DefaultRateMin}, pol.Prober(s.step), nil)
	if err != nil {
		t.Fatal(err)
	}
	if o.Status != Found || o.Capacity > 1000 || o.Failed <= 1000 || o.Failed-o.Capacity > int64(DefaultPrecision*float64(o.Capacity)) {
		t.Fatalf("status %s, capacity %d, failed %d", o.Status, o.Capacity, o.Failed)
	}
	for i, l := range s.loads {
		if l.Requests != 2*l.Rate || l.Duration != 3*time.Second {
			t.Errorf("probe %d: load %+v", i+1, l)
		}
	}
	for _, p := range o.Probes {
		if !p.Pass && p.Retry == "" && p.Rate != o.Failed && p.Rate <= 1000 {
			t.Errorf("probe at %d failed below the limit: %s", p.Rate, p.Reason)
		}
	}
}
