package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/gb-bench/gb"
	"github.com/gb-bench/gb/internal/capacity"
	"github.com/gb-bench/gb/internal/getopt"
	"github.com/gb-bench/gb/internal/htmlreport"
	"github.com/gb-bench/gb/internal/threshold"
	"github.com/gb-bench/gb/stats"
)

const capacityUsage = `Usage: gb capacity --slo EXPR [--slo EXPR ...] [options] URL
  Finds the highest request rate the server sustains within the SLOs: rate
  probes doubling from --rate-min until one fails, then bisection until the
  bracket is narrower than --precision. Each probe is an open-model run
  (keep-alive) of --warmup, then --step-time measured. A probe passes when
  every SLO holds (latency on the corrected latency, from each request's
  intended send time), it achieved 99% of its rate, dropped nothing, and
  at most --max-errors of its requests failed or were answered non-2xx.
  A failing probe is run once more: a rate fails only when it fails twice.
  Exit 0 when a capacity was found (or --rate-max passed), 99 when even
  --rate-min fails, 1 when gb itself was the limit or on a runtime failure.
Options:
    --slo expr        An SLO, as --threshold: p99<20ms, p99.9<=100ms, mean<5ms,
                      errors<0.1%, non2xx=0 (repeatable; at least one)
    --rate-min rate   First probe's rate, requests per second (default 100)
    --rate-max rate   Highest rate probed (default 1000000)
    --step-time d     Measured length of each probe (default 10s)
    --warmup d        Warm-up before each probe's measurement (default 2s)
    --max-errors pct  Share of a probe's requests that may fail or be answered
                      non-2xx before the probe fails (default 1%; 0 = none)
    --precision pct   Stop when the bracket is this narrow, relative to the
                      capacity: 5% (the default), 1%
    -c n              First probe's connections; the pool grows by Little's
                      law when a probe needs more (default 16)
    --compressed      Send Accept-Encoding: gzip, br, zstd and check that every
                      body decodes (one that does not is a failed request)
    --json file       Write every probe and the answer as JSON
    --html file       Write the HTML report: p99 against offered rate
`

// capacityOptions is gb capacity's command line.
type capacityOptions struct {
	slos               []string
	rateMin, rateMax   int64
	stepTime, warmup   time.Duration
	precision          float64
	maxErrors          float64 // share 0..1
	conns              int
	compressed         bool
	jsonFile, htmlFile string
	help               bool
}

var capacitySpecs = []getopt.Spec[capacityOptions]{
	getopt.New(0, "slo", "expr", "", func(o *capacityOptions, v string) error { o.slos = append(o.slos, v); return nil }),
	getopt.New(0, "rate-min", "rate", "", func(o *capacityOptions, v string) (err error) { o.rateMin, err = parseRate(v); return err }),
	getopt.New(0, "rate-max", "rate", "", func(o *capacityOptions, v string) (err error) { o.rateMax, err = parseRate(v); return err }),
	getopt.New(0, "step-time", "d", "", func(o *capacityOptions, v string) (err error) { o.stepTime, err = getopt.Seconds(v); return err }),
	getopt.New(0, "warmup", "d", "", func(o *capacityOptions, v string) error {
		d, err := time.ParseDuration(v)
		if v == "0" {
			d, err = 0, nil
		}
		if err != nil || d < 0 {
			return errors.New("want a duration (2s, 500ms) or 0")
		}
		o.warmup = d
		return nil
	}),
	getopt.New(0, "precision", "pct", "", func(o *capacityOptions, v string) error {
		f, err := strconv.ParseFloat(strings.TrimSuffix(v, "%"), 64)
		if err != nil || !(f > 0 && f < 100) {
			return errors.New("want a percentage between 0 and 100 (5%)")
		}
		o.precision = f / 100
		return nil
	}),
	getopt.New(0, "max-errors", "pct", "", func(o *capacityOptions, v string) (err error) { o.maxErrors, err = parseShare(v); return err }),
	getopt.New('c', "", "n", "", func(o *capacityOptions, v string) (err error) {
		if o.conns, err = getopt.Positive(v); err == nil && o.conns > gb.MaxConcurrency {
			err = fmt.Errorf("at most %d", gb.MaxConcurrency)
		}
		return err
	}),
	getopt.New(0, "compressed", "", "", func(o *capacityOptions, _ string) error { o.compressed = true; return nil }),
	getopt.New(0, "json", "file", "", func(o *capacityOptions, v string) error { o.jsonFile = v; return nil }),
	getopt.New(0, "html", "file", "", func(o *capacityOptions, v string) error { o.htmlFile = v; return nil }),
	getopt.New(0, "help", "", "", func(o *capacityOptions, _ string) error { o.help = true; return nil }),
}

// capacityCmd is gb capacity: the highest rate within the SLOs, a line per
// probe, the answer, and the JSON and HTML files.
func capacityCmd(args []string, stdout, stderr io.Writer, sig <-chan os.Signal) int {
	co := capacityOptions{rateMin: capacity.DefaultRateMin, stepTime: capacity.DefaultStepTime, warmup: capacity.DefaultWarmup,
		maxErrors: capacity.DefaultMaxErrors}
	rest, err := getopt.Parse(args, capacitySpecs, &co)
	switch {
	case err != nil:
	case co.help:
		fmt.Fprint(stdout, capacityUsage)
		return exitOK
	case len(rest) != 1:
		err = getopt.Errorf(false, "want one URL after the options (gb capacity --help)")
	case len(co.slos) == 0:
		err = getopt.Errorf(false, "give at least one --slo, e.g. --slo 'p99<20ms'")
	case co.rateMax > 0 && co.rateMax < co.rateMin:
		err = getopt.Errorf(false, "--rate-max %d is below --rate-min %d", co.rateMax, co.rateMin)
	}
	var slos []threshold.Threshold
	if err == nil {
		slos, err = capacity.SLOs(co.slos)
		err = asUsage(err)
	}
	if err != nil {
		return failCapacity(stderr, err)
	}
	argv := redactArgs(append([]string{"capacity"}, args...))
	p, err := gb.NewPlan(gb.Config{URL: rest[0], KeepAlive: true, Engine: gb.EngineGoroutine, Compressed: co.compressed,
		Concurrency: 1, Duration: co.stepTime, Warmup: co.warmup, Rate: gb.Rate{Freq: co.rateMin}},
		gb.WithCommand(argv), gb.WithWarnings(func(s string) { fmt.Fprintf(stderr, "gb capacity: warning: %s\n", s) }))
	if err == nil {
		err = checkOutputs([]reportFile{{"--json", co.jsonFile, nil}, {"--html", co.htmlFile, nil}})
	}
	if err != nil {
		return failCapacity(stderr, err)
	}
	defer p.Close()
	runtime.GOMAXPROCS(p.Procs())
	rep := &capacity.Report{GBVersion: gb.Version, Command: argv, URL: p.Load().URL, SLOs: co.slos,
		StepTime: co.stepTime, Warmup: co.warmup, MaxErrors: co.maxErrors}
	fmt.Fprintf(stdout, "gb capacity: %s, SLO %s, errors at most %s; probes of %v after %v warm-up\n",
		rep.URL, strings.Join(co.slos, ", "), capacity.Percent(co.maxErrors), co.stepTime, co.warmup)
	_ = capacity.Header(stdout)
	run := capacity.Policy{StepTime: co.stepTime, SLOs: slos, MaxErrors: co.maxErrors}.Prober(
		func(ctx context.Context, l capacity.Load) (*stats.Result, error) {
			return p.Step(ctx, gb.Step{Rate: gb.Rate{Freq: l.Rate}, Requests: l.Requests, Duration: l.Duration, Concurrency: l.Conns})
		})
	n := 0
	each := func(pr capacity.Probe) { n++; _ = capacity.Line(stdout, n, pr) }
	var out *capacity.Outcome
	_, err = runSignalled(sig, func(ctx context.Context) (*gb.Result, error) {
		var err error
		out, err = capacity.Search(ctx, capacity.Config{RateMin: co.rateMin, RateMax: co.rateMax,
			Precision: co.precision, Conns: co.conns}, run, each)
		return nil, err
	})
	if err != nil {
		fmt.Fprintf(stderr, "gb capacity: %s\n", explain(err))
		return exitFailure
	}
	rep.Outcome = *out
	_ = out.Answer(stdout, co.slos)
	if err := writeAll([]reportFile{
		{"--json", co.jsonFile, rep.WriteJSON},
		{"--html", co.htmlFile, func(w io.Writer) error { return htmlreport.Capacity(w, rep) }},
	}, stdout); err != nil {
		fmt.Fprintf(stderr, "gb capacity: %s\n", explain(err))
		return exitFailure
	}
	switch out.Status {
	case capacity.Found, capacity.AboveMax:
		return exitOK
	case capacity.BelowMin:
		return exitThresholds
	}
	return exitFailure
}

// failCapacity prints err as one line and returns its exit code: 22 for
// the command line's mistakes, 1 for the rest.
func failCapacity(stderr io.Writer, err error) int {
	return failAs(stderr, "gb capacity", err, nil)
}
