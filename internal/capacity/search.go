package capacity

import (
	"context"
	"errors"
	"math"
)

// Defaults of a search.
const (
	DefaultRateMax   = 1_000_000 // requests per second
	DefaultPrecision = 0.05      // the bracket's width relative to the capacity
	DefaultConns     = 16        // the first probe's pool when Config.Conns is 0
	MaxConns         = 20000     // gb's most connections
	maxRetries       = 3         // reruns of one rate for each cause
	minGain          = 1.02      // a rerun must send this much more than the last to earn another
)

// Config bounds a search.
type Config struct {
	RateMin   int64   // first probe's rate, requests per second (at least 1)
	RateMax   int64   // highest rate probed; 0 = DefaultRateMax
	Precision float64 // stop when (failing - passing) <= Precision × passing; 0 = DefaultPrecision
	Conns     int     // the first probe's connection pool; 0 = DefaultConns
}

// RunFunc runs one probe: a load at rate requests per second on conns
// connections, judged (see Judge). An error ends the search.
type RunFunc func(ctx context.Context, rate int64, conns int) (Probe, error)

// Status says how a search ended.
type Status string

// The statuses (Outcome.Status).
const (
	Found       Status = "found"        // a passing rate below a failing one, within the precision
	AboveMax    Status = "above-max"    // even RateMax passed: the capacity is at least that
	BelowMin    Status = "below-min"    // even RateMin failed
	ClientBound Status = "client-bound" // a probe failed while gb used its cores: no answer
	Interrupted Status = "interrupted"  // the context ended the search
)

// Outcome is a search's answer and every probe it ran, in order.
type Outcome struct {
	Status    Status  `json:"status"`
	Capacity  int64   `json:"capacity"`  // highest passing rate, req/s; 0 = none passed
	Failed    int64   `json:"failed"`    // lowest failing rate above it, req/s; 0 = none failed
	Precision float64 `json:"precision"` // the relative bracket width asked for
	RateMin   int64   `json:"rate_min"`  // the bounds searched
	RateMax   int64   `json:"rate_max"`  //
	Probes    []Probe `json:"probes"`    // every probe, reruns included
}

// Search runs probes until the capacity is bracketed within cfg's
// precision, or a bound, gb's own saturation, an interrupted probe or ctx
// ends it. each, if not nil, sees every probe as it ends (Retry set when
// the rate is run again). Errors are run's, or a Config out of range.
func Search(ctx context.Context, cfg Config, run RunFunc, each func(Probe)) (*Outcome, error) {
	if cfg.RateMin < 1 || cfg.RateMax < 0 || (cfg.RateMax > 0 && cfg.RateMax < cfg.RateMin) {
		return nil, errors.New("capacity: want 1 <= RateMin <= RateMax")
	}
	if cfg.Precision < 0 || cfg.Precision >= 1 {
		return nil, errors.New("capacity: want 0 < Precision < 1")
	}
	s := &searcher{run: run, each: each, conns: cfg.Conns}
	if s.conns <= 0 {
		s.conns = DefaultConns
	}
	o := &Outcome{Precision: cfg.Precision, RateMin: cfg.RateMin, RateMax: cfg.RateMax}
	if o.Precision == 0 {
		o.Precision = DefaultPrecision
	}
	if o.RateMax == 0 {
		o.RateMax = max(DefaultRateMax, cfg.RateMin)
	}
	s.out = o
	err := s.search(ctx)
	return o, err
}

// searcher is one search's state.
type searcher struct {
	run   RunFunc
	each  func(Probe)
	out   *Outcome
	conns int     // the pool of the next probe
	svc   float64 // the last passing probe's mean service time, seconds; 0 = none passed
}

// search grows the rate until a probe fails, then bisects.
func (s *searcher) search(ctx context.Context) error {
	o := s.out
	for r := o.RateMin; ; r = min(2*r, o.RateMax) {
		pass, done, err := s.probe(ctx, r)
		if err != nil || done {
			return err
		}
		if !pass {
			o.Failed = r
			break
		}
		o.Capacity = r
		if r >= o.RateMax {
			o.Status = AboveMax
			return nil
		}
	}
	if o.Capacity == 0 {
		o.Status = BelowMin
		return nil
	}
	for o.Failed-o.Capacity > max(1, int64(o.Precision*float64(o.Capacity))) {
		mid := o.Capacity + (o.Failed-o.Capacity)/2
		pass, done, err := s.probe(ctx, mid)
		if err != nil || done {
			return err
		}
		if pass {
			o.Capacity = mid
		} else {
			o.Failed = mid
		}
	}
	o.Status = Found
	return nil
}

// probe runs rate, and runs it again when its failure may be gb's:
// with a larger pool while the pool held it back (it fell short of the
// rate while Little's law, on the service time of the last passing probe
// or of this one before any passed, says it had too few connections, and
// each rerun sends more; or slow responses held every connection, see
// CausePoolDry), or as it was when gb's sends ran late though its pool
// sufficed. A failure that is the server's is run once more to confirm
// it: one noisy probe does not end the search, the rate fails only when
// it fails twice. done is set when the search must stop (Status set).
func (s *searcher) probe(ctx context.Context, rate int64) (pass, done bool, err error) {
	s.conns = min(max(s.conns, s.pool(float64(rate)*s.svc)), MaxConns)
	t := &tries{conns: s.conns}
	for {
		p, err := s.run(ctx, rate, t.conns)
		if err != nil {
			return false, true, err
		}
		p.Retry = s.retry(ctx, rate, &p, t)
		s.record(p)
		switch {
		case ctx.Err() != nil || p.Interrupted:
			s.out.Status = Interrupted
			return false, true, nil
		case !p.Pass && !p.ErrorsOver && (p.ClientBusy || p.ClientLate && p.Retry == ""):
			s.out.Status = ClientBound
			return false, true, nil
		case p.Retry != "":
			continue
		}
		if p.Pass && p.Need > 0 {
			s.svc = p.Need / float64(rate)
			s.conns = max(s.conns, t.conns)
		}
		return p.Pass, false, nil
	}
}

// tries is the state of one rate's reruns.
type tries struct {
	conns     int     // the pool of the next run
	late      int     // reruns because gb ran late
	pool      int     // reruns with a larger pool
	last      float64 // the achieved rate of the last pool rerun; 0 = none
	confirmed bool    // a failure was run again to confirm it
}

// retry says why p, a run of rate, is run again ("" = it counts) and
// updates t for the next run.
func (s *searcher) retry(ctx context.Context, rate int64, p *Probe, t *tries) string {
	switch {
	case p.Pass || p.Interrupted || ctx.Err() != nil:
		return ""
	case p.ErrorsOver: // the server's failure, whatever gb's state
		if t.confirmed {
			return ""
		}
		t.confirmed = true
		return RetryConfirm
	case p.ClientBusy:
		return ""
	}
	need := p.Need
	if s.svc > 0 {
		need = float64(rate) * s.svc
	}
	grown := min(s.pool(need), MaxConns)
	if p.Cause == CausePoolDry {
		grown = min(2*t.conns, MaxConns)
	}
	switch {
	case p.ClientLate && t.late < maxRetries:
		t.late++
		return RetryLate
	case grown > t.conns && t.pool < maxRetries && (t.last == 0 || p.Achieved > minGain*t.last) &&
		(p.Cause == CausePoolDry || p.Achieved < MinAchieved*float64(rate) && need*poolHeadroom > float64(t.conns)):
		t.pool++
		t.conns, t.last = grown, p.Achieved
		return RetryPool
	case !p.ClientLate && !t.confirmed:
		t.confirmed = true
		return RetryConfirm
	}
	return ""
}

// pool is the connections for need (Little's law) with room to spare:
// twice as many, so a latency spike does not starve the schedule.
func (s *searcher) pool(need float64) int {
	return int(math.Ceil(2 * need))
}

// record keeps p and shows it.
func (s *searcher) record(p Probe) {
	s.out.Probes = append(s.out.Probes, p)
	if s.each != nil {
		s.each(p)
	}
}
