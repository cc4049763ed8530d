package main

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"time"

	"github.com/gb-bench/gb/internal/outfile"
	"github.com/gb-bench/gb/internal/pace"
	"github.com/gb-bench/gb/internal/report"
	"github.com/gb-bench/gb/stats"
)

// rampRun is a ramp in progress: the plan of one benchmark, re-aimed at
// each step's load, the connections carried between steps, and the steps
// done so far.
type rampRun struct {
	p      *plan
	ro     *rampOptions
	levels []int64
	pool   *connPool
	rp     report.Ramp // the completed steps
	cut    *stats.Result
	stdout io.Writer
	stderr io.Writer
}

func newRampRun(p *plan, ro *rampOptions, levels []int64) *rampRun {
	by := report.ByConcurrency
	if ro.byRate() {
		by = report.ByRate
	}
	return &rampRun{p: p, ro: ro, levels: levels, pool: newConnPool(p.client),
		rp: report.Ramp{Version: stats.FormatVersion, GBVersion: version, Command: redactArgs(p.args), By: by}}
}

// run runs the steps in order and returns the exit code: 0 when every step
// ran, 1 when the ramp was interrupted, a step could not connect at all,
// or a file could not be written.
func (r *rampRun) run(stdout, stderr io.Writer, sig <-chan os.Signal) int {
	if r.p.o.cpus > 0 {
		runtime.GOMAXPROCS(r.p.o.cpus)
	}
	if r.ro.writesStdout() {
		stdout = stderr // stdout carries the file alone
	}
	r.stdout, r.stderr = stdout, stderr
	defer r.pool.close()
	r.intro()
	if r.p.o.verbosity >= 2 {
		dumpRequest(stdout, r.p.client.Request)
		r.p.load.Observe = newObserver(stdout, r.p.o.verbosity)
	}
	_ = report.RampHeader(stdout, r.rp.By)
	code := exitOK
	for i, l := range r.levels {
		if i > 0 && !r.between(i, sig) {
			fmt.Fprintln(stderr, "gb ramp: interrupted between steps")
			code = exitFailure
			break
		}
		res, rates := r.step(l, i == len(r.levels)-1, sig)
		if res.StoppedBy == stats.StopSignal {
			r.cut = res // kept in --json only: a partial step is no point of the curve
			fmt.Fprintf(stderr, "gb ramp: interrupted in step %d\n", i+1)
			code = exitFailure
			break
		}
		r.rp.Steps = append(r.rp.Steps, res)
		r.rp.ReplyRates = append(r.rp.ReplyRates, rates)
		r.rp.Saturation = report.Saturation(r.rp.By, r.rp.Steps) + 1
		_ = report.RampStep(stdout, r.rp.By, i+1, res)
		if err := r.writeFiles(false); err != nil {
			fmt.Fprintf(stderr, "gb: %v\n", err)
			return exitFailure
		}
		if res.StoppedBy == stats.StopError {
			fmt.Fprintf(stderr, "\nTest aborted: %s%s\n\n", res.StopError, hint(res.StopError))
			code = exitFailure
			break
		}
	}
	_ = report.RampSummary(stdout, &r.rp)
	if err := r.writeFiles(true); err != nil {
		fmt.Fprintf(stderr, "gb: %v\n", err)
		return exitFailure
	}
	r.outro()
	return code
}

// intro prints what the ramp will do.
func (r *rampRun) intro() {
	o, first, last := r.p.o, r.levels[0], r.levels[len(r.levels)-1]
	fmt.Fprintf(r.stdout, "gb ramp: %s %s\n", r.p.method, r.p.target.url.Redacted())
	var what string
	if r.rp.By == report.ByRate {
		what = fmt.Sprintf("rate %d to %d req/s in %d steps of %v over %d connections", first, last, len(r.levels), r.ro.stepTime, o.concurrency)
	} else {
		what = fmt.Sprintf("concurrency %d to %d in %d steps, %d requests per connection", first, last, len(r.levels), r.ro.stepRequests(1))
		if r.ro.stepTime > 0 {
			what += fmt.Sprintf(" (at most %v)", r.ro.stepTime)
		}
	}
	ka := "no keep-alive"
	if o.keepAlive {
		ka = "keep-alive, connections carried across steps"
	}
	fmt.Fprintf(r.stdout, "steps: %s; %s; pause %v\n\n", what, ka, r.ro.pause)
}

// outro says how to render the plot.
func (r *rampRun) outro() {
	if r.ro.plotFile != "" {
		fmt.Fprintf(r.stdout, "plot: gnuplot %s (writes %s)\n", r.ro.plotFile, pngPath(r.ro.plotFile))
	}
}

// step runs one step at load l and returns its result and its reply-rate
// samples (requests ended in each whole second). Connections stay open
// for the next step when keep-alive is on and this is not the last step.
func (r *rampRun) step(l int64, last bool, sig <-chan os.Signal) (*stats.Result, []float64) {
	p, o := r.p, r.p.o
	p.load.Requests = r.ro.stepRequests(l)
	p.load.Duration = r.ro.stepTime
	if r.rp.By == report.ByRate {
		// A rate step is bounded by its request count, so it ends without
		// cutting requests off (and its connections stay usable); it is
		// cut at twice its time when the server cannot keep up.
		p.load.Duration = 2 * r.ro.stepTime
		o.rate = pace.Constant{Freq: l, Per: time.Second}
		p.load.Pacer = o.rate
	} else {
		o.concurrency = int(l)
	}
	o.timeLimit = p.load.Duration
	p.load.Concurrency = o.concurrency
	p.load.KeepOpen = o.keepAlive && !last
	p.load.NewConn = r.pool.newConn
	var rates []float64
	var prevDone int64
	var prevAt time.Duration
	p.load.ProgressInterval = time.Second
	p.load.Progress = func(done int64, at time.Duration) {
		if at > prevAt {
			rates = append(rates, float64(done-prevDone)/(at-prevAt).Seconds())
		}
		prevDone, prevAt = done, at
	}
	res, _ := p.runLoad(sig) // load.New cannot fail: the step is bounded and NewConn set
	if len(rates) > 0 {
		rates = rates[:len(rates)-1] // the last call came after the workers stopped: a partial second
	}
	if info, ok := p.client.TLSSession(); ok {
		res.Server.TLSProtocol, res.Server.TLSCipher, res.Server.TLSTempKey = info.Version, info.Cipher, info.TempKey
		res.Server.TLSServerName, res.Server.TLSKeyBits = info.ServerName, info.KeyBits
	}
	for _, err := range res.Check() {
		fmt.Fprintf(r.stderr, "gb: BUG: accounting invariant broken: %v (please report this)\n", err)
	}
	// Connections carry over only from a step that ended by its count: a
	// stop interrupts its clients for good. The step's timer may have
	// fired after the count ended it; if less than its time has passed
	// now, after Run stopped the timer, it never fired.
	keep := p.load.KeepOpen && res.StoppedBy == stats.StopCount &&
		(p.load.Duration == 0 || time.Since(res.Start) < p.load.Duration)
	r.pool.settle(keep)
	return res, rates
}

// between pauses before step i and waits for the sockets of the last step
// to drain; it reports false when a signal came first.
func (r *rampRun) between(i int, sig <-chan os.Signal) bool {
	if !sleepOrSignal(r.ro.pause, sig) {
		return false
	}
	if r.ro.maxSockets == 0 {
		return true
	}
	limit := r.ro.maxSockets
	if limit < 0 {
		limit = defaultMaxSockets()
	}
	d := drain{addr: r.p.client.Addr, limit: limit, held: r.pool.held(), sig: sig}
	if !r.p.o.quiet {
		d.note = func(s string) { fmt.Fprintf(r.stderr, "gb ramp: before step %d: %s\n", i+1, s) }
	}
	d.warn = func(s string) { fmt.Fprintf(r.stderr, "gb ramp: warning: before step %d: %s\n", i+1, s) }
	return d.wait()
}

// sleepOrSignal sleeps for d and reports false when a signal came first.
func sleepOrSignal(d time.Duration, sig <-chan os.Signal) bool {
	if d <= 0 {
		return true
	}
	select {
	case <-time.After(d):
		return true
	case <-sig:
		return false
	}
}

// writesStdout reports whether an output file is stdout ("-").
func (ro *rampOptions) writesStdout() bool {
	for _, f := range ro.files() {
		if f.path == outfile.Stdout {
			return true
		}
	}
	return false
}

// writeFiles writes the output files: after each step (final false) the
// regular files, so an interrupted ramp keeps its completed steps, and at
// the end (final) every file, stdout and devices included. The --json
// file also holds an interrupted step.
func (r *rampRun) writeFiles(final bool) error {
	for _, f := range r.ro.files() {
		if !final && !isRegularOrNew(f.path) {
			continue
		}
		rp := &r.rp
		if f.flag == "--json" && r.cut != nil {
			all := *rp
			all.Steps = append(append([]*stats.Result{}, rp.Steps...), r.cut)
			all.ReplyRates = append(append([][]float64{}, rp.ReplyRates...), nil)
			rp = &all
		}
		if err := outfile.Write(f.path, 0o600, func(w io.Writer) error { return f.write(w, rp) }); err != nil {
			return fmt.Errorf("cannot write %s %s: %v", f.flag, f.path, err)
		}
	}
	return nil
}

// isRegularOrNew reports whether path names a regular file or nothing yet
// (not stdout, a device or a pipe, which are written once, at the end).
func isRegularOrNew(path string) bool {
	if path == outfile.Stdout {
		return false
	}
	fi, err := os.Stat(path)
	return err != nil || fi.Mode().IsRegular()
}
