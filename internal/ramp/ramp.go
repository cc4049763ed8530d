// Package ramp is gb ramp's engine and model: one load per step of rising
// concurrency or rate, run by the caller's Runner (gb ramp's runs a step
// of a gb.Plan, keep-alive connections carried from step to step), the
// sockets of a step drained before the next; and the curve the steps make
// (Ramp, the --json file's shape) with its analysis: the saturation step
// (Saturation, Missed, Overloaded) and the step in which the server
// stopped answering (Stopped). It imports stats and capacity's diagnosis,
// not package gb nor a renderer: package report renders a Ramp.
package ramp

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/gb-bench/gb/stats"
)

// Defaults of a ramp.
const (
	DefaultPerUser  = 100              // requests per connection in a concurrency step
	DefaultStepTime = 10 * time.Second // length of a rate step
	MaxSteps        = 1000
)

// Spec is a ramp: the steps' loads and how the steps follow each other.
// The zero value of each field selects the default beside it.
type Spec struct {
	By       string        // ByConcurrency or ByRate
	Levels   []int64       // each step's concurrency, or rate in requests per second, in order
	PerUser  int64         // concurrency steps: requests per connection; 0 = DefaultPerUser
	StepTime time.Duration // a rate step's length (0 = DefaultStepTime); caps a concurrency step (0 = no cap)
	Pause    time.Duration // between steps; 0 = none
	// MaxSockets: before a step, wait while more sockets toward the
	// target are in TIME_WAIT or established by others; 0 = no wait,
	// negative = half the ephemeral port range.
	MaxSockets int
	// MaxErrors is the share of a step's requests that may fail or be
	// answered non-2xx before the step counts as saturated; 0 = none may.
	MaxErrors float64
}

// Load is one step's load, which a Runner turns into a run.
type Load struct {
	Requests    int64         // the step's request budget
	Duration    time.Duration // its time limit; 0 = none
	Concurrency int           // concurrency steps: the connections; 0 in rate steps (the pool is the Runner's)
	Rate        int64         // rate steps: requests per second; 0 in concurrency steps
	Last        bool          // the ramp's last step: no connection needs to outlive it
}

// Runner runs a ramp's steps; gb ramp's runs them on a gb.Plan.
type Runner interface {
	// Step runs one step at load l and returns its result (a step a
	// signal cut short has StoppedBy stats.StopSignal). progress, when
	// the Runner can, is called about once a second while the step runs
	// with the requests ended and the time elapsed so far, and once more
	// after the step's workers stopped.
	Step(ctx context.Context, l Load, progress func(done int64, elapsed time.Duration)) (*stats.Result, error)
	// Addr is the target's host:port, for the socket count between steps.
	Addr() string
	// Held is the connections kept open for the next step.
	Held() int
}

// Hooks let the caller watch a ramp; nil fields are skipped.
type Hooks struct {
	// Step is called after each completed step (1-based i) with the
	// ramp so far, that step last; an error ends the ramp and is
	// returned by Run.
	Step func(i int, rp *Ramp) error
	// Start is called as step i (1-based) is about to run, after the
	// pause and the socket drain before it.
	Start func(i int)
	Note  func(msg string) // progress between steps
	Warn  func(msg string) // a drain that gave up
}

// Outcome is what a ramp did: the completed steps, and how it ended.
type Outcome struct {
	Ramp Ramp
	// Cut is a step a signal interrupted: no point of the curve, kept for
	// the JSON file only. nil when none was.
	Cut *stats.Result
	// Interrupted is the step (1-based) the ramp was interrupted in or
	// before; 0 when it was not.
	Interrupted int
	// Between reports that the interruption came between steps.
	Between bool
	// Aborted is the step whose run was aborted (StopError); 0 when none.
	Aborted int
}

// Requests is the request count of a step at load l: per-user ×
// concurrency, or rate × step time.
func (s *Spec) Requests(l int64) int64 {
	if s.By == ByRate {
		return int64(float64(l) * s.stepTime().Seconds())
	}
	perUser := s.PerUser
	if perUser == 0 {
		perUser = DefaultPerUser
	}
	return perUser * l
}

func (s *Spec) stepTime() time.Duration {
	if s.StepTime == 0 && s.By == ByRate {
		return DefaultStepTime
	}
	return s.StepTime
}

// Step returns the load of the step at level l. A rate step is bounded
// by its request count, so it ends without cutting requests off (and its
// connections stay usable); it is cut at twice its time when the server
// cannot keep up.
func (s *Spec) Step(l int64) Load {
	ld := Load{Requests: s.Requests(l), Duration: s.stepTime()}
	if s.By == ByRate {
		ld.Duration, ld.Rate = 2*s.stepTime(), l
	} else {
		ld.Concurrency = int(l)
	}
	return ld
}

// Largest is the load of the heaviest step, the one to check the run's
// configuration against (so that its checks see the largest load). Rate
// steps are checked as time-bounded runs (Requests 0).
func (s *Spec) Largest() Load {
	ld := s.Step(s.Levels[len(s.Levels)-1])
	if s.By == ByRate {
		ld.Requests = 0
	}
	ld.Last = true
	return ld
}

// Levels returns from, from+step, ... up to to; step 0 means from.
func Levels(fromName, toName string, from, to, step int64) ([]int64, error) {
	switch {
	case from == 0 || to == 0:
		return nil, fmt.Errorf("%s and %s are both needed", fromName, toName)
	case to < from:
		return nil, fmt.Errorf("%s %d is below %s %d", toName, to, fromName, from)
	}
	if step == 0 {
		step = from
	}
	if n := (to-from)/step + 1; n > MaxSteps {
		return nil, fmt.Errorf("%d steps; at most %d (raise the step)", n, MaxSteps)
	}
	var ls []int64
	for l := from; l <= to; l += step {
		ls = append(ls, l)
	}
	return ls, nil
}

// Run runs the steps in order on p. Cancelling ctx interrupts the ramp
// (the Outcome says where); every completed step is in the Outcome.
func Run(ctx context.Context, p Runner, s Spec, h Hooks) (*Outcome, error) {
	if len(s.Levels) == 0 {
		return nil, errors.New("ramp: no steps")
	}
	out := &Outcome{Ramp: Ramp{By: s.By, MaxErrors: s.MaxErrors}}
	for i, l := range s.Levels {
		if i > 0 && !s.between(ctx, p, i, h) {
			out.Interrupted, out.Between = i+1, true
			break
		}
		if h.Start != nil {
			h.Start(i + 1)
		}
		res, rates, err := s.step(ctx, p, l, i == len(s.Levels)-1)
		if err != nil {
			return out, err
		}
		if res.StoppedBy == stats.StopSignal {
			out.Cut, out.Interrupted = res, i+1
			break
		}
		out.Ramp.Steps = append(out.Ramp.Steps, res)
		out.Ramp.ReplyRates = append(out.Ramp.ReplyRates, rates)
		out.Ramp.Analyse()
		if h.Step != nil {
			if err := h.Step(i+1, &out.Ramp); err != nil {
				return out, err
			}
		}
		if res.StoppedBy == stats.StopError {
			out.Aborted = i + 1
			break
		}
	}
	return out, nil
}

// step runs one step at level l and returns its result and its
// reply-rate samples (requests ended in each whole second).
func (s *Spec) step(ctx context.Context, p Runner, l int64, last bool) (*stats.Result, []float64, error) {
	var rates []float64
	var prevDone int64
	var prevElapsed time.Duration
	ld := s.Step(l)
	ld.Last = last
	res, err := p.Step(ctx, ld, func(done int64, elapsed time.Duration) {
		if elapsed > prevElapsed {
			rates = append(rates, float64(done-prevDone)/(elapsed-prevElapsed).Seconds())
		}
		prevDone, prevElapsed = done, elapsed
	})
	if err != nil {
		return nil, nil, err
	}
	if len(rates) > 0 {
		rates = rates[:len(rates)-1] // the last call came after the workers stopped: a partial second
	}
	return res, rates, nil
}

// between pauses before step i (0-based) and waits for the sockets of the
// last step to drain; it reports false when ctx ended first.
func (s *Spec) between(ctx context.Context, p Runner, i int, h Hooks) bool {
	if !sleepCtx(ctx, s.Pause) {
		return false
	}
	if s.MaxSockets == 0 {
		return true
	}
	limit := s.MaxSockets
	if limit < 0 {
		limit = defaultMaxSockets()
	}
	d := drain{addr: p.Addr(), limit: limit, held: p.Held(), ctx: ctx, warn: func(string) {}}
	if h.Note != nil {
		d.note = func(msg string) { h.Note(stepMsg(i, msg)) }
	}
	if h.Warn != nil {
		d.warn = func(msg string) { h.Warn(stepMsg(i, msg)) }
	}
	return d.wait()
}

func stepMsg(i int, msg string) string { return "before step " + strconv.Itoa(i+1) + ": " + msg }

// sleepCtx sleeps for d and reports false when ctx ended first.
func sleepCtx(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
