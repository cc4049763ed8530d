package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/gb-bench/gb"
	"github.com/gb-bench/gb/internal/getopt"
	"github.com/gb-bench/gb/internal/outfile"
	"github.com/gb-bench/gb/internal/report"
	"github.com/gb-bench/gb/stats"
)

// bench is the ab-compatible benchmark mode.
func bench(args []string, stdout, stderr io.Writer, sig <-chan os.Signal) int {
	if wantsHelp(args) { // gb URL --help; -h stays ab's (stderr, 22)
		printUsage(stdout)
		return exitOK
	}
	o := defaultOptions()
	args, o.cfg.ScriptArgs = scriptArgs(args)
	rest, err := parseAll(args, abSpecs, &o)
	switch {
	case err != nil:
		return fail(stderr, err)
	case o.help:
		printUsage(stderr)
		return exitUsage
	case o.version:
		_ = report.Banner(stdout, gb.Version, false)
		return exitOK
	case len(rest) == 0 && o.targetsFile == "":
		return fail(stderr, getopt.Errorf(true, "wrong number of arguments"))
	}
	p, err := o.plan(o.setURLs(rest), redactArgs(args), stderr)
	if err != nil {
		return fail(stderr, err)
	}
	defer p.Close()
	return execute(p, &o, stdout, stderr, sig)
}

// scriptArgs splits off the arguments after "--" for --script's init(args),
// as wrk takes them (gb --script s.lua URL -- a b); without --script, "--"
// keeps getopt's meaning.
func scriptArgs(args []string) (own, script []string) {
	if !slices.ContainsFunc(args, func(a string) bool { return a == "--script" || strings.HasPrefix(a, "--script=") }) {
		return args, nil
	}
	if i := slices.Index(args, "--"); i >= 0 {
		return args[:i], args[i+1:]
	}
	return args, nil
}

// checkScript refuses, in the command line's words, what --script cannot
// be combined with.
func (o *options) checkScript() error {
	c := &o.cfg
	switch {
	case c.Script == "":
	case c.Protocol != "" && c.Protocol != gb.ProtocolHTTP1:
		return getopt.Errorf(false, "--script speaks HTTP/1.1 only: not with --http2, --h2c or --http3")
	case c.Pipeline > 1:
		return getopt.Errorf(false, "--script and --pipeline cannot be combined: a script pipelines by returning several requests")
	case len(o.moreURLs) > 0 || o.targetsFile != "":
		return getopt.Errorf(false, "--script and several targets cannot be combined: the script makes the requests")
	}
	return nil
}

// plan turns the command line into a checked gb.Plan: ab's own checks
// first (in ab's order), then the output files and the body file, then
// everything gb.NewPlan checks. Warnings during the run go to stderr.
func (o *options) plan(url string, argv []string, stderr io.Writer) (*gb.Plan, error) {
	cfg := o.cfg
	cfg.URL = url
	if cfg.Concurrency < 1 || cfg.Concurrency > gb.MaxConcurrency {
		return nil, getopt.Errorf(true, "Invalid Concurrency [Range 1..%d]", gb.MaxConcurrency)
	}
	if o.requestsSet && cfg.Requests <= 0 {
		return nil, getopt.Errorf(false, "Invalid number of requests")
	}
	if o.lazy && !o.requestsSet {
		cfg.Requests = 0 // the stream's end ends the load (or -t)
	}
	if cfg.Rate.Freq > 0 && !o.requestsSet && cfg.Duration == 0 && !o.lazy {
		return nil, getopt.Errorf(false, "-R needs -n or -t: gb never runs unbounded") // not ab's default -n 1
	}
	if cfg.Rate.Freq > 0 && cfg.Duration > 0 && cfg.Rate.Within(cfg.Duration) == 0 {
		return nil, getopt.Errorf(false, "-R %.6g sends no request within -t %v: its first interval, 1/rate, ends after it", cfg.Rate.PerSecond(), cfg.Duration)
	}
	if cfg.Duration > 0 && !o.requestsSet {
		cfg.Requests = 0 // -t alone: no count limit
	}
	if cfg.Requests > 0 && int64(cfg.Concurrency) > cfg.Requests && cfg.Shard.IsZero() { // a shard's share is gb.NewPlan's to check

		return nil, getopt.Errorf(true, "Cannot use concurrency level greater than total number of requests")
	}
	if n := runtime.NumCPU(); cfg.CPUs > n {
		fmt.Fprintf(stderr, "gb: warning: -G %d: this machine has %d cores; using %d\n", cfg.CPUs, n, n)
		cfg.CPUs = n
	}
	if err := o.checkScript(); err != nil {
		return nil, err
	}
	if err := o.checkFiles(); err != nil {
		return nil, err
	}
	if err := o.checkPGO(); err != nil {
		return nil, err
	}
	var err error
	if cfg.Body, err = readBody(o); err != nil {
		return nil, err
	}
	if cfg.Method == "" {
		cfg.Method = o.methodKind
	}
	cfg.KeepSamples = o.gnuplotFile != "" || o.csvFile != ""
	if cfg.Interval == 0 && !o.readsSeries(stderr) {
		cfg.Interval = -1 // no time series: nothing this run writes reads one
	}
	if err := o.addTargets(&cfg); err != nil {
		return nil, err
	}
	var mu sync.Mutex
	opts := []gb.Option{
		gb.WithCommand(argv),
		gb.WithProfile(o.profile),
		gb.WithWarnings(func(msg string) {
			mu.Lock()
			defer mu.Unlock()
			fmt.Fprintf(stderr, "gb: warning: %s\n", msg)
		}),
	}
	return gb.NewPlan(cfg, opts...)
}

// readsSeries reports whether something this run shows or writes reads
// its time series (Result.Series): the live panel (--live on, or a
// terminal on stderr; its closed intervals' latency), the --web page
// (throughput over time), the Prometheus endpoint (its latency histograms
// are the closed intervals'), the JSON (and so gb report, compare and merge
// later), the HTML page, the HdrHistogram log, or a script (done()'s
// requests statistics are per interval). Without them gb keeps no series,
// which costs memory in proportion to the run's length (a sparse histogram
// per second, tens of KB at 30k requests/s), as ab keeps no samples
// without -g or -e.
func (o *options) readsSeries(stderr io.Writer) bool {
	live := o.live == "on" || o.live != "off" && isTerminal(stderr)
	return live || o.web.addr != "" || o.metrics.addr != "" || o.jsonFile != "" || o.htmlFile != "" || o.hlogFile != "" || o.cfg.Script != ""
}

// checkFiles checks the output files before the run (checkOutputs).
func (o *options) checkFiles() error {
	return checkOutputs([]reportFile{{"-g", o.gnuplotFile, nil}, {"-e", o.csvFile, nil}, {"--json", o.jsonFile, nil},
		{"--html", o.htmlFile, nil}, {"--hgrm", o.hgrmFile, nil}, {"--hlog", o.hlogFile, nil}, {"--junit", o.junitFile, nil},
		{"--bench-out", o.benchOut, nil}, {"--pgo", o.pgoFile, nil}})
}

// execute runs the plan and prints and writes its results.
func execute(p *gb.Plan, o *options, stdout, stderr io.Writer, sig <-chan os.Signal) int {
	useCores(p)
	o.stdout = stdout // where "-" output files go
	for _, f := range []string{o.jsonFile, o.htmlFile, o.hgrmFile, o.hlogFile, o.csvFile, o.gnuplotFile, o.junitFile, o.benchOut} {
		if f == outfile.Stdout {
			stdout = stderr // stdout carries that file alone
		}
	}
	exp, err := startMetrics(&o.metrics, p)
	if err != nil {
		return fail(stderr, err)
	}
	defer exp.linger(sig) // after the deferred signal watch below has stopped
	page, err := startWeb(&o.web, stderr)
	if err != nil {
		return fail(stderr, err)
	}
	defer page.linger(sig)
	prog := newProgress(o, stderr)
	_ = report.Banner(stdout, gb.Version, o.html)
	if !o.html {
		via := o.cfg.Proxy
		if sock := p.UnixSocket(); sock != "" {
			via = "unix:" + sock
		}
		_ = report.Benchmarking(stdout, p.Load().Host, via, prog.on)
	}
	var opts []gb.Option
	if o.verbosity >= 2 {
		dumpRequest(stdout, p.Request())
		opts = append(opts, gb.WithObserver(newObserver(stdout, o.verbosity)))
	}
	if prog.on {
		opts = append(opts, gb.WithProgress(0, prog.update))
	}
	opts = append(opts, watchers(exp, page)...)
	var dones []func() error // each run's script done(), called after the report as wrk does
	opts = append(opts, gb.WithScriptDone(func(done func() error) { dones = append(dones, done) }))
	s, err := repeatRuns(p, o, sig, opts)
	if err != nil {
		prog.stop()
		return fail(stderr, err)
	}
	page.finish(s.report())
	prog.finish(s.last())
	if !prog.on {
		_ = report.Done(stdout)
	}
	// The load is over: its report and files are written unless a second
	// signal comes (the first may have stopped the load).
	nth := 2
	if s.interrupted {
		nth = 1
	}
	defer exitOnSignal("gb", sig, stderr, nth)()
	code := conclude(s, o, stdout, stderr)
	for _, done := range dones {
		if err := done(); err != nil {
			fmt.Fprintf(stderr, "gb: %v\n", err)
			code = max(code, exitFailure)
		}
	}
	if o.pgoFile != "" {
		if err := gb.WritePGO(o.pgoFile, s.runs...); err != nil {
			fmt.Fprintf(stderr, "gb: --pgo %s: %v\n", o.pgoFile, err)
			code = max(code, exitFailure)
		}
	}
	return code
}

// checkPGO makes --pgo capture the CPU profile: it turns on
// --profile=cpu when --profile is not given, and refuses a --profile
// without cpu or a --pgo on stdout.
func (o *options) checkPGO() error {
	switch {
	case o.pgoFile == "":
		return nil
	case o.pgoFile == outfile.Stdout:
		return getopt.Errorf(false, "--pgo needs a file, not stdout")
	case o.profile.Kinds == "":
		o.profile.Kinds = "cpu"
	case !slices.ContainsFunc(strings.Split(o.profile.Kinds, ","), func(k string) bool { return strings.TrimSpace(k) == "cpu" }):
		return getopt.Errorf(false, "--pgo needs cpu in --profile=%s", o.profile.Kinds)
	}
	return nil
}

// runProfile is the profile option of run i of --repeat: each run saves
// its profiles in its own run-<i+1> folder of --profile-dir, so that gb
// compare sees every run's (the runs would overwrite each other's files).
func (o *options) runProfile(i int) gb.Option {
	pr := o.profile
	if o.repeat > 1 && pr.Kinds != "" && pr.Dir != "" {
		pr.Dir = filepath.Join(pr.Dir, fmt.Sprintf("run-%d", i+1))
	}
	return gb.WithProfile(pr)
}

// series is what a run or --repeat's runs gave.
type series struct {
	runs []*gb.Result // the runs that ran to their end, in order (a single run: even when interrupted)
	// partial is the run of --repeat that a signal cut short, nil when
	// none: it is reported but left out of the statistics.
	partial *gb.Result
	// interrupted: a signal ended the series, in a run or in a pause.
	interrupted bool
}

// last is the series' last run.
func (s *series) last() *gb.Result {
	if s.partial != nil {
		return s.partial
	}
	return s.runs[len(s.runs)-1]
}

// repeatRuns runs the plan once, or --repeat times with --pause between
// runs; a signal ends the series in the run or pause it interrupted.
func repeatRuns(p *gb.Plan, o *options, sig <-chan os.Signal, opts []gb.Option) (*series, error) {
	s := &series{}
	n := max(o.repeat, 1)
	_, err := runSignalled(sig, func(ctx context.Context) (*gb.Result, error) {
		for i := range n {
			if i > 0 && o.pause > 0 {
				select {
				case <-time.After(o.pause):
				case <-ctx.Done():
				}
			}
			if i > 0 && ctx.Err() != nil {
				break
			}
			res, err := p.Run(ctx, append(opts, o.runProfile(i))...)
			if err != nil {
				return nil, err
			}
			if n > 1 && res.StoppedBy == stats.StopSignal {
				s.partial = res
				break
			}
			s.runs = append(s.runs, res)
			if ctx.Err() != nil {
				break
			}
		}
		s.interrupted = ctx.Err() != nil
		return nil, nil
	})
	return s, err
}

// readBody reads the -p or -u file: a regular file, read once.
func readBody(o *options) ([]byte, error) {
	path := o.postFile
	if o.methodKind == "PUT" {
		path = o.putFile
	}
	if path == "" {
		return nil, nil
	}
	fi, err := os.Stat(path)
	if err != nil {
		//lint:ignore ST1005 ab's wording, byte for byte
		return nil, fmt.Errorf("Could not open %s data file (%s): %v", o.methodKind, path, unwrapPath(err))
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s data file %s is not a regular file", o.methodKind, path)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		//lint:ignore ST1005 ab's wording, byte for byte
		return nil, fmt.Errorf("Could not read %s data file (%s): %v", o.methodKind, path, unwrapPath(err))
	}
	if b == nil {
		b = []byte{}
	}
	return b, nil
}

// unwrapPath drops the *PathError wrapping that would repeat the path.
func unwrapPath(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}
