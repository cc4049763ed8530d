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
	"github.com/gb-bench/gb/internal/outfile"
	"github.com/gb-bench/gb/internal/report"
	"github.com/gb-bench/gb/internal/threshold"
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

// parseShare parses --max-errors: a percentage from 0 to 100, "%"
// optional, as a share 0..1.
func parseShare(v string) (float64, error) {
	f, err := strconv.ParseFloat(strings.TrimSuffix(v, "%"), 64)
	if err != nil || !(f >= 0 && f <= 100) {
		return 0, errors.New("want a percentage from 0 to 100 (1%)")
	}
	return f / 100, nil
}

// parseRate parses a rate in requests per second: a positive whole number.
func parseRate(v string) (int64, error) {
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n <= 0 || n > 1e9 {
		return 0, errors.New("want requests per second, a positive whole number")
	}
	return n, nil
}

// Defaults of gb capacity.
const (
	defaultRateMin        = 100
	defaultCapacityStep   = 10 * time.Second
	defaultCapacityWarmup = 2 * time.Second
)

// capacityCmd is gb capacity: the highest rate within the SLOs, a line per
// probe, the answer, and the JSON and HTML files.
func capacityCmd(args []string, stdout, stderr io.Writer, sig <-chan os.Signal) int {
	co := capacityOptions{rateMin: defaultRateMin, stepTime: defaultCapacityStep, warmup: defaultCapacityWarmup,
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
	for _, f := range []string{co.jsonFile, co.htmlFile} {
		if err == nil && f != "" {
			err = outfile.Check(f)
		}
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
	probe := func(ctx context.Context, rate int64, conns int) (capacity.Probe, error) {
		n := probeRequests(rate, co.stepTime)
		res, err := p.Step(ctx, gb.Step{Rate: gb.Rate{Freq: rate}, Requests: n, Duration: probeCap(co.stepTime),
			Concurrency: int(min(int64(conns), n))})
		if err != nil {
			return capacity.Probe{}, err
		}
		if res.Complete() == 0 && res.Counts.Dispatched > 0 && ctx.Err() == nil {
			return capacity.Probe{}, fmt.Errorf("no response at %d req/s: %s", rate, commonError(res.Counts.Errors))
		}
		return capacity.Judge(res, conns, slos, co.maxErrors), nil
	}
	n := 0
	each := func(pr capacity.Probe) { n++; _ = capacity.Line(stdout, n, pr) }
	var out *capacity.Outcome
	_, err = runSignalled(sig, func(ctx context.Context) (*gb.Result, error) {
		var err error
		out, err = capacity.Search(ctx, capacity.Config{RateMin: co.rateMin, RateMax: co.rateMax,
			Precision: co.precision, Conns: co.conns}, probe, each)
		return nil, err
	})
	if err != nil {
		fmt.Fprintf(stderr, "gb capacity: %v\n", err)
		return exitFailure
	}
	rep.Outcome = *out
	_ = out.Answer(stdout, co.slos)
	if err := writeAll([]reportFile{
		{"--json", co.jsonFile, rep.WriteJSON},
		{"--html", co.htmlFile, func(w io.Writer) error { return report.HTMLCapacityReport(w, rep) }},
	}, stdout); err != nil {
		fmt.Fprintf(stderr, "gb capacity: %v\n", err)
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

// probeRequests is a probe's budget: the requests its rate schedules
// over the step time (at least one). A probe ends by its count, so a
// request is dropped only when it was not sent by probeCap.
func probeRequests(rate int64, step time.Duration) int64 {
	return max(1, int64(float64(rate)*step.Seconds()+0.5))
}

// probeCap is a probe's time limit: the step time and half again (at
// least a second), for a server that falls behind.
func probeCap(step time.Duration) time.Duration { return step + max(step/2, time.Second) }

// commonError is the most frequent failure message, or "every request
// failed" when none was kept.
func commonError(errs map[string]int64) string {
	msg, n := "every request failed", int64(0)
	for m, c := range errs {
		if c > n || c == n && m < msg {
			msg, n = m, c
		}
	}
	return msg
}

// failCapacity prints err as one line and returns its exit code: 22 for
// the command line's mistakes, 1 for the rest.
func failCapacity(stderr io.Writer, err error) int {
	return failAs(stderr, "gb capacity", err, nil)
}
