package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/gb-bench/gb"
	"github.com/gb-bench/gb/internal/outfile"
	"github.com/gb-bench/gb/internal/ramp"
	"github.com/gb-bench/gb/internal/report"
	"github.com/gb-bench/gb/stats"
)

// rampRun shows a ramp: its intro, a line per step, the summary, and the
// files, written after every step so an interrupted ramp keeps its steps.
type rampRun struct {
	p      *rampPlan
	o      *options
	ro     *rampOptions
	spec   ramp.Spec
	argv   []string   // the command line, redacted
	rp     *ramp.Ramp // the steps so far
	cut    *stats.Result
	stdout io.Writer
	stderr io.Writer
	out    io.Writer // the command's stdout, for "-" files
	live   *rampLive // the live panel on a terminal; nil without one
}

// run runs the ramp and returns the exit code: 0 when every step ran, 1
// when the ramp was interrupted, a step could not connect at all, or a
// file could not be written.
func (r *rampRun) run(sig <-chan os.Signal) int {
	if r.o.cfg.CPUs > 0 {
		useCores(r.p.Plan)
	}
	r.out = r.stdout // where "-" files go
	if r.ro.writesStdout() {
		r.stdout = r.stderr // stdout carries the file alone
	}
	r.intro()
	hooks := ramp.Hooks{Step: r.stepDone,
		Start: func(int) {
			if r.live != nil {
				r.live.stepStart(r.p)
			}
		},
		Warn: func(s string) { fmt.Fprintf(r.stderr, "gb ramp: warning: %s\n", s) }}
	if !r.o.quiet {
		hooks.Note = func(s string) { fmt.Fprintf(r.stderr, "gb ramp: %s\n", s) }
	}
	if r.o.verbosity >= 2 {
		dumpRequest(r.stdout, r.p.Request())
		r.p.opts = append(r.p.opts, gb.WithObserver(newObserver(r.stdout, r.o.verbosity)))
	}
	_ = report.RampHeader(r.stdout, r.spec.By)
	r.rp = r.label(&ramp.Ramp{By: r.spec.By, MaxErrors: r.spec.MaxErrors})
	var out *ramp.Outcome
	stopLive := r.startLive()
	_, err := runSignalled(sig, func(ctx context.Context) (*gb.Result, error) {
		if err := gb.WaitUntil(ctx, r.p.base.StartAt); err != nil {
			return nil, err
		}
		var err error
		out, err = ramp.Run(ctx, r.p, r.spec, hooks)
		return nil, err
	})
	stopLive()
	if err != nil {
		fmt.Fprintf(r.stderr, "gb ramp: %s\n", explain(err))
		return exitFailure
	}
	code := exitOK
	switch {
	case out.Between:
		fmt.Fprintln(r.stderr, "gb ramp: interrupted between steps")
		code = exitFailure
	case out.Interrupted > 0:
		r.cut = out.Cut // kept in --json only: a partial step is no point of the curve
		fmt.Fprintf(r.stderr, "gb ramp: interrupted in step %d\n", out.Interrupted)
		code = exitFailure
	case out.Aborted > 0:
		code = exitFailure
	}
	r.rp = r.label(&out.Ramp)
	_ = report.RampSummary(r.stdout, r.rp)
	if err := r.writeFiles(true); err != nil {
		fmt.Fprintf(r.stderr, "gb ramp: %s\n", explain(err))
		return exitFailure
	}
	if strings.HasSuffix(r.ro.plotFile, ".gp") {
		fmt.Fprintf(r.stdout, "plot: %s (gnuplot %s redraws it)\n", pngPath(r.ro.plotFile), r.ro.plotFile)
	}
	return code
}

// startLive draws the live panel on a terminal until the returned func
// is called; meanwhile what the ramp writes to the terminal is held, and
// written once the panel is gone.
func (r *rampRun) startLive() (stop func()) {
	if !wantRampLive(r.o, r.stderr) {
		return func() {}
	}
	stdout, stderr := r.stdout, r.stderr
	held := &heldWriter{}
	r.stderr = held
	if isTerminal(stdout) {
		r.stdout = held // the same screen: one buffer keeps the order
	}
	r.live = newRampLive(stderr, &r.spec)
	r.p.opts = append(r.p.opts, gb.WithProgress(0, r.live.update))
	return func() {
		r.live.live.stop()
		r.live, r.stdout, r.stderr = nil, stdout, stderr
		held.flush(stderr)
	}
}

// label names the ramp's format, gb's version and the command line.
func (r *rampRun) label(rp *ramp.Ramp) *ramp.Ramp {
	rp.Version, rp.GBVersion, rp.Command = stats.FormatVersion, gb.Version, r.argv
	return rp
}

// stepDone prints step i's line and writes the files so far.
func (r *rampRun) stepDone(i int, rp *ramp.Ramp) error {
	res := rp.Steps[len(rp.Steps)-1]
	for _, err := range res.Check() {
		fmt.Fprintf(r.stderr, "gb: BUG: accounting invariant broken: %v (please report this)\n", err)
	}
	r.rp = r.label(rp)
	_ = report.RampStep(r.stdout, r.rp.By, i, res)
	if r.live != nil {
		r.live.stepDone(i, res)
	}
	if err := r.writeFiles(false); err != nil {
		return err
	}
	if res.StoppedBy == stats.StopError {
		fmt.Fprintf(r.stderr, "\nTest aborted: %s%s\n\n", res.StopError, hint(res.StopError))
	}
	return nil
}

// intro prints what the ramp will do.
func (r *rampRun) intro() {
	s, t := &r.spec, r.p.Load()
	first, last := s.Levels[0], s.Levels[len(s.Levels)-1]
	fmt.Fprintf(r.stdout, "gb ramp: %s %s\n", t.Method, t.URL)
	var what string
	if s.By == ramp.ByRate {
		what = fmt.Sprintf("rate %d to %d req/s in %d steps of %v over %d connections", first, last, len(s.Levels), s.StepTime, t.Concurrency)
	} else {
		what = fmt.Sprintf("concurrency %d to %d in %d steps, %d requests per connection", first, last, len(s.Levels), s.Requests(1))
		if s.StepTime > 0 {
			what += fmt.Sprintf(" (at most %v)", s.StepTime)
		}
	}
	ka := "no keep-alive"
	if t.KeepAlive {
		ka = "keep-alive, connections carried across steps"
	}
	fmt.Fprintf(r.stdout, "steps: %s; %s; pause %v\n\n", what, ka, r.ro.pause)
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
		if (!final && !isRegularOrNew(f.path)) || (len(r.rp.Steps) == 0 && (f.flag == "--plot" || f.flag == "--html")) {
			continue
		}
		rp := r.rp
		if f.flag == "--json" && r.cut != nil {
			all := *rp
			all.Steps = append(append([]*stats.Result{}, rp.Steps...), r.cut)
			all.ReplyRates = append(append([][]float64{}, rp.ReplyRates...), nil)
			rp = &all
		}
		if err := writeOut(f.path, r.out, func(w io.Writer) error { return f.write(w, rp) }); err != nil {
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
