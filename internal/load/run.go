package load

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/gb-bench/gb/internal/clock"
	"github.com/gb-bench/gb/internal/evloop"
	"github.com/gb-bench/gb/internal/pace"
	"github.com/gb-bench/gb/internal/record"
	"github.com/gb-bench/gb/stats"
)

// Config describes a run. The zero value of each field selects the
// default beside it; NewConn is required.
type Config struct {
	Concurrency int                            // workers, each with one connection; 0 = 1
	Requests    int64                          // request budget; 0 = no count limit (set Duration)
	Duration    time.Duration                  // time limit from the start; 0 = none
	NewConn     func(ctx context.Context) Conn // builds each worker's Conn; ctx ends when the run stops
	KeepSamples bool                           // keep one stats.Sample per response (ab's -g file)
	KeepOpen    bool                           // workers leave their Conn open at the end, for the caller to reuse (gb ramp)
	// Pacer, when set, makes the run open-model: request i is sent at
	// start + Pacer.Due(i) by whichever worker is free, and latency is also
	// measured from that intended time. nil = closed loop.
	Pacer pace.Pacer
	// Pipeline, when above 1, makes each worker send this many requests at
	// once on its connection (HTTP/1.1 pipelining; the Conn must be a
	// Batcher), never more than the request budget. At most MaxPipeline.
	// Closed loop only.
	Pipeline int
	// MaxConnectFailures stops the run (StopError) when this many connect
	// failures happen before any connection succeeds; 0 = 10, as ab.
	MaxConnectFailures int
	// Progress, when set, is called from one goroutine every
	// ProgressInterval (0 = 100 ms) with a snapshot of the workers'
	// counters, and once more after the workers stopped.
	Progress         func(Progress)
	ProgressInterval time.Duration
	// Observe, when set, is called by each worker after every request
	// (ab's -v 3 and 4). It must be safe for concurrent use; it costs the
	// hot path its speed, so set it only when asked.
	Observe func(x *Exchange, o stats.Outcome)
	// Loops, when above 0, runs the workers as tasks of this many event
	// loops (package evloop) instead of one goroutine each; NewConn then
	// gets a context carrying the worker's task (evloop.FromContext) and its
	// Conn must do I/O only through it. Not with KeepOpen.
	// 0 = a goroutine per worker.
	Loops int
	// TaskOnly, with Loops, runs every exchange on its worker's task: the
	// loops then never run a kept-alive exchange themselves (Driven), as
	// they do by default. For comparisons and tests.
	TaskOnly bool
	// Interval is the length of each point of the result's time series
	// (stats.Result.Series): requests, errors and latencies per interval,
	// aligned to whole multiples of Interval in Unix time. 0 = one second;
	// negative = no series.
	Interval time.Duration
	// Warmup, when above 0, runs the load this long before measuring:
	// connections are opened and requests sent (at the Pacer's rate in
	// rate mode) but recorded apart, in Result.Warmup; Requests, Duration,
	// the schedule and Result.Start all count from its end. 0 = none.
	Warmup time.Duration
	// OnMeasure, when set, is called once when the warm-up ends and
	// measuring begins, from a timer's goroutine, while the load goes on
	// (gb reads its own CPU and starts the server's profile there, so that
	// both cover the measured load only). Run returns only after it did;
	// it is not called when the run stops during the warm-up.
	OnMeasure func()
	// Order spreads the requests over several targets (Exchange.Target),
	// and makes the result count each target apart (base.Targets must
	// then name them). The zero value = one target.
	Order Order
	// Feed, when set, gives each request its target instead of Order
	// (see Feed); Order.Targets then sizes the per-target account. Not
	// with Pipeline. nil = Order's.
	Feed Feed
}

// DefaultInterval is the time series' interval when Config.Interval is 0.
const DefaultInterval = time.Second

// ErrNoBound is returned by New for a run with neither a request budget
// nor a time limit nor a Feed (whose end ends it): gb never runs
// unbounded.
var ErrNoBound = errors.New("load: a run needs a request count or a time limit")

// Run is one benchmark run: Config's workers driving their connections
// until the budget, the time limit or Stop ends it.
type Run struct {
	cfg        Config
	workers    []*worker
	recs       recorders // the workers' recorders, each once
	groups     []*record.Group
	next       atomic.Int64 // index of the next request; the budget is spent when it reaches limit
	limit      int64        // the budget: Requests, or the Pacer's requests within Duration when fewer (see budget)
	holdToEnd  bool         // limit is the schedule's: the run lasts its Duration (workers wait for the stop)
	warmNext   atomic.Int64 // index of the next warm-up request
	measuring  atomic.Bool  // the warm-up is over
	begun      atomic.Bool  // Run has made the recorders (Snapshot reads them only then)
	warmStart  time.Time    // the warm-up's start; r.start is its end
	warmGroups []*record.Group
	stopped    atomic.Bool
	cause      atomic.Pointer[stopCause]
	opened     atomic.Int64 // workers that got past connecting, for the connect-failure abort
	connFail   atomic.Int64
	fedAll     atomic.Bool // the Feed ended: the run ends as when its budget is spent
	loops      []*evloop.Loop
	mu         sync.Mutex // guards workers and cancel against a concurrent Stop
	cancel     context.CancelFunc
	stopCh     chan struct{}
	start      time.Time
	startMono  clock.Mono // start as a Mono: the Exchanges' times count from it
}

type stopCause struct {
	reason string // stats.Stop*
	err    error
	at     time.Time
}

// New validates cfg and prepares a run. With Config.Loops it also makes
// the event loops (Run closes them), and returns the error that prevents
// one: the caller may then fall back to goroutines.
func New(cfg Config) (*Run, error) {
	if cfg.Requests <= 0 && cfg.Duration <= 0 && cfg.Feed == nil {
		return nil, ErrNoBound
	}
	if cfg.NewConn == nil {
		return nil, errors.New("load: Config.NewConn is nil")
	}
	if cfg.Pipeline > 1 && cfg.Pacer != nil {
		return nil, errors.New("load: pipelining is closed-loop only")
	}
	if cfg.Pipeline > 1 && cfg.Feed != nil {
		return nil, errors.New("load: pipelining takes no Feed")
	}
	if cfg.Pipeline > MaxPipeline {
		return nil, fmt.Errorf("load: pipeline depth %d is above the maximum, %d", cfg.Pipeline, MaxPipeline)
	}
	if cfg.Loops > 0 && cfg.KeepOpen {
		return nil, errors.New("load: the event loops do not keep connections open")
	}
	cfg.Concurrency = max(cfg.Concurrency, 1)
	if cfg.MaxConnectFailures <= 0 {
		cfg.MaxConnectFailures = 10
	}
	loops, err := newLoops(&cfg)
	if err != nil {
		return nil, err
	}
	r := &Run{cfg: cfg, loops: loops, stopCh: make(chan struct{})}
	r.limit, r.holdToEnd = budget(&cfg)
	return r, nil
}

// budget returns how many requests the run may send, and whether the
// schedule, not Requests, sets that: with a Pacer and a time limit, the
// requests whose interval ends within Duration (Pacer.Within: -R 200 -t 2
// sends 400, the last due at 1.995 s) when that is fewer. No limit is
// math.MaxInt64.
func budget(cfg *Config) (limit int64, schedule bool) {
	limit = cfg.Requests
	if limit <= 0 {
		limit = math.MaxInt64
	}
	if cfg.Pacer != nil && cfg.Duration > 0 {
		if n := cfg.Pacer.Within(cfg.Duration); n < limit {
			return n, true
		}
	}
	return limit, false
}

// Done returns how many requests have ended so far. Safe for concurrent use
// (0 until Run has made the recorders).
func (r *Run) Done() int64 {
	if !r.begun.Load() {
		return 0
	}
	var n int64
	for _, rec := range r.recs.main {
		n += rec.Done()
	}
	return n
}

// Progress is a snapshot of a running load, read from the workers'
// atomics (never from a histogram or under a lock).
type Progress struct {
	Done    int64         // requests ended so far, any outcome (warmup excluded)
	Elapsed time.Duration // since the measured load started
	record.LiveCounts
	// P50 and P99 are the total latency's in a recently closed interval of
	// the time series (record.ClosedLatency); 0 until one closed.
	P50, P99 time.Duration
}

// Snapshot returns the run's counters so far. Safe for concurrent use
// once Run has started the workers.
// Before that it returns the zero Progress.
func (r *Run) Snapshot() Progress {
	if !r.begun.Load() {
		return Progress{}
	}
	p := Progress{Elapsed: time.Since(r.start)}
	for _, rec := range r.recs.main {
		p.Done += rec.Done()
		rec.AddLive(&p.LiveCounts)
	}
	if p50, p99, ok := record.ClosedLatency(r.groups); ok {
		p.P50, p.P99 = time.Duration(p50)*time.Microsecond, time.Duration(p99)*time.Microsecond
	}
	return p
}

// Closed sets dst to copies of the run's latency histograms over the
// intervals closed so far and returns their status classes and bytes
// (record.CopyClosed): a watcher's read, from any goroutine, that never
// touches a histogram being written. After Run returned it holds the
// whole run; before Run made its recorders, dst holds empty histograms.
func (r *Run) Closed(dst *[2]*hdrhistogram.Histogram) stats.Closed {
	var groups []*record.Group
	if r.begun.Load() {
		groups = r.groups
	}
	return record.CopyClosed(groups, dst)
}

// Stop ends the run early for reason (stats.StopSignal, stats.StopTime or
// stats.StopError): no request is dispatched after it, and requests in
// flight end as aborted. Safe for concurrent use; the first call wins.
func (r *Run) Stop(reason string, err error) {
	if !r.cause.CompareAndSwap(nil, &stopCause{reason: reason, err: err, at: time.Now()}) {
		return
	}
	r.stopped.Store(true)
	close(r.stopCh)
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cancel != nil {
		r.cancel()
	}
	for _, w := range r.workers {
		w.conn.Interrupt()
	}
	for _, l := range r.loops {
		l.Interrupt()
	}
}

// Run drives the workers until the run ends and returns the merged
// result. base supplies what the engine does not know (Target, Command,
// ...). Run must be called once. Cancelling ctx stops the run as a signal.
func (r *Run) Run(ctx context.Context, base stats.Result) *stats.Result {
	parent := ctx
	// The Conns' context ends only through Stop, after the run is marked
	// stopped: a dial or handshake it cuts short is then aborted, never
	// failed.
	ctx, cancel := context.WithCancel(context.WithoutCancel(parent))
	defer cancel()
	recs := r.newRecorders(r.recorderCount(), r.cfg.Warmup > 0)
	workers := make([]*worker, r.cfg.Concurrency)
	for i := range workers {
		rec := recs.main[i%len(recs.main)]
		w := &worker{run: r, rec: rec, main: rec, slot: i}
		if r.cfg.Warmup > 0 {
			w.warm = recs.warm[i%len(recs.warm)]
			w.rec, w.warming = w.warm, true
		}
		wctx := ctx
		if len(r.loops) > 0 {
			w.task = r.loops[i%len(r.loops)].Go(func(*evloop.Task) { w.loop() })
			wctx = evloop.WithTask(ctx, w.task)
		}
		w.conn = r.cfg.NewConn(wctx)
		w.drive()
		workers[i] = w
	}
	r.mu.Lock()
	r.workers, r.recs, r.cancel = workers, recs, cancel
	r.mu.Unlock()
	if r.stopped.Load() {
		cancel()
	}
	r.warmStart = time.Now()
	base.Start = r.warmStart.Add(r.cfg.Warmup)
	r.start = base.Start
	r.startMono = clock.Of(r.start)
	r.startSeries()
	r.begun.Store(true) // after the recorders and start are set: Snapshot may read them
	stopWatch := context.AfterFunc(parent, func() { r.Stop(stats.StopSignal, nil) })
	defer stopWatch()
	if r.cfg.Warmup > 0 {
		defer r.endWarmup()()
	}
	var timer *time.Timer
	if r.cfg.Duration > 0 {
		timer = time.AfterFunc(r.cfg.Warmup+r.cfg.Duration, func() { r.Stop(stats.StopTime, nil) })
		defer timer.Stop()
	}
	var wg sync.WaitGroup
	if len(r.loops) > 0 {
		for _, l := range r.loops {
			wg.Go(l.Run)
		}
	} else {
		for _, w := range r.workers {
			wg.Go(w.loop)
		}
	}
	if r.cfg.Progress != nil {
		done := make(chan struct{})
		go func() { wg.Wait(); close(done) }()
		r.progress(done)
	}
	wg.Wait()
	if timer != nil && !timer.Stop() {
		// It fired as the load ended: its Stop, which interrupted the
		// clients, may still be on its way. Make it now, so that the
		// result says so (Stopped).
		r.Stop(stats.StopTime, nil)
	}
	for _, l := range r.loops {
		l.Close()
	}
	return r.result(base)
}

// Stopped reports whether Stop ran: the run was cut short, or its timer
// or a signal came as it ended; either way its clients are interrupted
// for good. Valid after Run returned.
func (r *Run) Stopped() bool { return r.stopped.Load() }

// endWarmup starts the timer that ends the warm-up (and calls
// OnMeasure) and returns what Run defers: stop the timer, or wait for
// OnMeasure when it fired, so that no hook outlives the run.
func (r *Run) endWarmup() (wait func()) {
	done := make(chan struct{})
	t := time.AfterFunc(r.cfg.Warmup, func() {
		defer close(done)
		r.measuring.Store(true)
		if r.cfg.OnMeasure != nil {
			r.cfg.OnMeasure()
		}
	})
	return func() {
		if !t.Stop() {
			<-done
		}
	}
}

// startSeries makes the recorders keep the run's time series.
func (r *Run) startSeries() {
	every := r.cfg.Interval
	if every == 0 {
		every = DefaultInterval
	}
	for _, rec := range r.recs.main {
		rec.StartSeries(every, r.start)
	}
}

// newLoops makes a run's event loops: Loops of them, never more than
// there are workers. None when Loops is 0.
func newLoops(cfg *Config) ([]*evloop.Loop, error) {
	loops := make([]*evloop.Loop, 0, min(cfg.Loops, cfg.Concurrency))
	for range cap(loops) {
		l, err := evloop.New()
		if err != nil {
			for _, l := range loops {
				l.Close()
			}
			return nil, err
		}
		loops = append(loops, l)
	}
	return loops, nil
}

// progress calls cfg.Progress on a ticker until done is closed.
func (r *Run) progress(done <-chan struct{}) {
	every := r.cfg.ProgressInterval
	if every <= 0 {
		every = 100 * time.Millisecond
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			r.cfg.Progress(r.Snapshot())
		case <-done:
			r.cfg.Progress(r.Snapshot())
			return
		}
	}
}

// result merges the workers' recorders into the final Result.
func (r *Run) result(base stats.Result) *stats.Result {
	recs := r.recs.main
	var last, answered time.Time
	for _, w := range r.workers {
		base.Counts.Dispatched += w.dispatched
		if l := w.last.Time(); l.After(last) {
			last = l
		}
		if a := w.answered.Time(); a.After(answered) {
			answered = a
		}
	}
	base.StoppedBy = stats.StopCount
	if c := r.cause.Load(); c != nil {
		base.StoppedBy, last = c.reason, c.at
		// A response that raced the stop is counted: the run then lasts
		// until it ended, so that every counted response lies within
		// Start..End (and in a series point that the run covers).
		if answered.After(last) {
			last = answered
		}
		if c.err != nil {
			base.StopError = stats.Printable(c.err.Error()) // it may carry a server's bytes
		}
	}
	if last.IsZero() {
		last = time.Now()
	}
	base.Elapsed = max(last.Sub(base.Start), 0) // a stop in the warm-up measured nothing
	base.End = base.Start.Add(base.Elapsed)
	base.Warmup = r.warmup()
	res := record.Collect(base, recs, r.groups)
	if r.cfg.Pacer != nil {
		r.schedule(res)
	}
	return res
}

// warmup is the warm-up's own account (nil without one): every request
// it sent, in the outcome it ended with.
func (r *Run) warmup() *stats.Warmup {
	if r.cfg.Warmup <= 0 {
		return nil
	}
	recs := r.recs.warm
	var sent int64
	for _, w := range r.workers {
		sent += w.warmSent
	}
	res := record.Collect(stats.Result{Counts: stats.Counts{Dispatched: sent}}, recs, r.warmGroups)
	return &stats.Warmup{Duration: r.cfg.Warmup, Counts: res.Counts}
}

// schedule counts, in rate mode, the requests that were due before the
// run ended and the ones among them never sent (dropped), and records the
// dropped ones in the corrected latency at (end of run - intended send
// time), a censored value (stats.Result.AddDropped). Requests are taken in
// index order, so the dropped are taken to be the last scheduled indexes,
// Dispatched to Scheduled-1: the latest intended times, hence the smallest
// values any choice of them could give, so the corrected percentiles stay
// a lower bound.
func (r *Run) schedule(res *stats.Result) {
	c := &res.Counts
	c.Scheduled = min(r.cfg.Pacer.Scheduled(res.Elapsed), r.limit)
	c.Scheduled = max(c.Scheduled, c.Dispatched)
	if r.fedAll.Load() { // nothing was left to send
		c.Scheduled = c.Dispatched
	}
	c.Outcomes[stats.Dropped] = c.Scheduled - c.Dispatched
	pacer, first := r.cfg.Pacer, c.Dispatched
	res.AddDropped(func(k int64) time.Duration { return pacer.Due(first + k) })
}

// abortOutcome is the outcome of a request cut off by the stop.
func (r *Run) abortOutcome() stats.Outcome {
	if c := r.cause.Load(); c != nil {
		switch c.reason {
		case stats.StopTime:
			return stats.AbortedDeadline
		case stats.StopError:
			return stats.AbortedFatal
		}
	}
	return stats.AbortedSignal
}
