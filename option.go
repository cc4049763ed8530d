package gb

import (
	"context"
	"errors"
	"sync/atomic"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/gb-bench/gb/internal/load"
	"github.com/gb-bench/gb/internal/profile"
	"github.com/gb-bench/gb/stats"
)

// An Option adds to a run what its Config does not describe: who watches
// it (progress, every exchange, warnings), the server profile captured
// beside it, and how its Result is labelled.
type Option func(*options)

type options struct {
	progress      func(Progress)
	progressEvery time.Duration
	observe       func(Exchange)
	warnf         func(string)
	profile       Profile
	command       []string
	carry         bool
	live          func(*Live)
	scriptDone    func(done func() error)
}

// Progress is a snapshot of a running load, read from the workers'
// counters (never from their histograms, so taking it costs the hot path
// nothing).
type Progress struct {
	Done      int64          // requests ended so far, any outcome
	Elapsed   time.Duration  // since the load started
	OK        int64          // ended with a 2xx response (outcome ok)
	Non2xx    int64          // ended with another final status
	Failed    int64          // Σfailed.*: no complete response (connect, read, timeout ...)
	Outcomes  stats.Outcomes // every outcome's count, for failures by class
	Retries   int64          // keep-alive close races retried on a new connection
	Late      int64          // rate mode: requests sent more than stats.LateAfter after their time
	ConnsOpen int64          // connections open (opened minus closed, as of the last ended request)
	P50, P99  time.Duration  // total latency in a recently closed interval of the series (--interval, about two old); 0 until one closed
	Server    ServerLive     // the server's CPU and GC while WithProfile captures; zero without it
}

// WithProgress calls f every interval (0 = 100 ms) while the load runs,
// from one goroutine, and once more after the workers stopped.
func WithProgress(interval time.Duration, f func(Progress)) Option {
	return func(o *options) { o.progress, o.progressEvery = f, interval }
}

// Live is one load's figures for a watcher that reads them at its own
// pace (a metrics scrape), from any goroutine, while the load runs and
// after it ended (then its final figures). Reading costs the load
// nothing: the workers' counters are atomics and the latency comes from
// the closed intervals of the series, never a histogram being written.
type Live struct {
	run     *load.Run
	capture *atomic.Pointer[profile.Capture]
	rate    float64
}

// Progress returns the load's counters as WithProgress would see them
// now; the zero Progress before the load started.
func (l *Live) Progress() Progress { return progressOf(l.run.Snapshot(), l.capture) }

// Latency sets dst to copies of the load's latency (µs) over the
// intervals of the series closed so far: dst[0] the total (service)
// latency, dst[1] the corrected latency (rate mode; empty otherwise). The
// copies are new and the caller's. It returns the
// same intervals' status classes and bytes. After the load ended they
// hold all of it.
func (l *Live) Latency(dst *[2]*hdrhistogram.Histogram) stats.Closed { return l.run.Closed(dst) }

// Rate returns the load's target rate in requests per second; 0 when it
// has none.
func (l *Live) Rate() float64 { return l.rate }

// WithLive gives f each load's Live when the load is about to start (once
// per Plan.Run or Step). f runs on the caller's goroutine and must return
// quickly; it may keep the Live.
func WithLive(f func(*Live)) Option {
	return func(o *options) { o.live = f }
}

// Exchange is one request's end, as WithObserver sees it.
type Exchange struct {
	Outcome stats.Outcome // how it ended
	Status  int           // the response's status code; 0 when none came
	Err     error         // why it failed; nil for a response
}

// WithObserver calls f after every request (ab's -v 3 and 4), from the
// worker that ran it: f must be safe for concurrent use, and it costs the
// hot path its speed, so set it only when asked.
func WithObserver(f func(Exchange)) Option {
	return func(o *options) { o.observe = f }
}

// WithWarnings gives f the run's warnings (one line each, e.g. a profile
// that could not be captured); by default they are dropped.
func WithWarnings(f func(msg string)) Option {
	return func(o *options) { o.warnf = f }
}

// WithProfile captures the server's pprof profiles during the load; the
// summary lands in Result.Profile and the files in Profile.Dir. A target
// without pprof is a warning, not an error.
func WithProfile(p Profile) Option {
	return func(o *options) { o.profile = p }
}

// WithScriptDone leaves a Config.Script's done() to the caller, who
// calls it after printing the run's report, as wrk does: instead of
// calling done() before Run returns (the default), the run gives f a
// function that calls it with the run's numbers and then frees the
// script's Lua states. Call it once; its error is the one the script
// raised, one line ("file:line: message (in done)"), for the caller to
// print. f is not called when the script defines no done()
// or a callback failed during the load.
func WithScriptDone(f func(done func() error)) Option {
	return func(o *options) { o.scriptDone = f }
}

// WithCommand records the command line that asked for the run in
// Result.Command. The caller redacts secrets first.
func WithCommand(argv []string) Option {
	return func(o *options) { o.command = argv }
}

// Carry keeps the run's keep-alive connections open when it ends by its
// request count, for the Plan's next run (gb ramp's steps); Plan.Close
// closes them. It needs the goroutine engine and KeepAlive; elsewhere it
// does nothing.
func Carry() Option {
	return func(o *options) { o.carry = true }
}

func (o *options) warn(msg string) {
	if o.warnf != nil {
		o.warnf(msg)
	}
}

// observer adapts WithObserver's f to the engine's hook.
func (o *options) observer() func(*load.Exchange, stats.Outcome) {
	f := o.observe
	if f == nil {
		return nil
	}
	return func(x *load.Exchange, out stats.Outcome) {
		f(Exchange{Outcome: out, Status: x.Status, Err: x.Err})
	}
}

// progressOf is the engine's snapshot s as Progress, with the server's
// live state from capture.
func progressOf(s load.Progress, capture *atomic.Pointer[profile.Capture]) Progress {
	return Progress{Done: s.Done, Elapsed: s.Elapsed, OK: s.Outcomes[stats.OK],
		Non2xx: s.Outcomes[stats.Non2xx], Failed: s.Outcomes.Failed(), Outcomes: s.Outcomes,
		Retries: s.Retries, Late: s.Late, ConnsOpen: s.ConnsOpen, P50: s.P50, P99: s.P99,
		Server: serverLive(capture.Load().Live())}
}

// checkProfile validates the profile request before the run: its errors
// are ConfigErrors like every other setting's.
func (o *options) checkProfile(t *target, tc TLS) error {
	if o.profile.Kinds == "" {
		if o.profile.URL != "" || o.profile.Dir != "" {
			return configErr("Profile.URL", "{Profile.URL} and {Profile.Dir} need {Profile.Kinds}")
		}
		return nil
	}
	_, err := o.profile.config(t, tc)
	return err
}

// prepareProfile prepares the capture of the target's profiles
// (profile.Prepare): it begins with the measured load (measure.begin).
// Without a profile request, or when the target has no pprof, it returns
// nil; then it warns once, before the load, and the run goes on.
func (o *options) prepareProfile(ctx context.Context, t *target, tc TLS) *profile.Capture {
	if o.profile.Kinds == "" {
		return nil
	}
	cfg, err := o.profile.config(t, tc)
	if o.progress != nil {
		cfg.LiveEvery = time.Second // for Progress.Server
	}
	if err == nil {
		var c *profile.Capture
		if c, err = profile.Prepare(ctx, cfg); err == nil {
			return c
		}
	}
	msg := "server profile: " + err.Error() + "; the run goes on without a profile"
	if _, ok := errors.AsType[*profile.NoPprofError](err); ok {
		msg += ` or a diagnosis (a Go server serves pprof with import _ "net/http/pprof")`
	}
	o.warn(msg)
	return nil
}
