package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/gb-bench/gb"
	"github.com/gb-bench/gb/internal/capacity"
	"github.com/gb-bench/gb/internal/getopt"
	"github.com/gb-bench/gb/internal/htmlreport"
	"github.com/gb-bench/gb/internal/outfile"
	"github.com/gb-bench/gb/internal/ramp"
	"github.com/gb-bench/gb/internal/report"
	"github.com/gb-bench/gb/stats"
)

// rampOptions is gb ramp's own command line; the request options are ab's
// (options). Zero numbers mean "not given".
type rampOptions struct {
	from, to, step             int   // concurrency steps
	rateFrom, rateTo, rateStep int64 // rate steps, requests per second
	perUser                    int64 // requests per connection in a concurrency step
	stepTime                   time.Duration
	pause                      time.Duration
	maxSockets                 int     // -1: the default (half the ephemeral port range)
	maxErrors                  float64 // share 0..1
	csvFile, autobenchFile     string
	plotFile, jsonFile         string
	htmlFile                   string
	poolSet                    bool // -c was given
	help                       bool
}

// Defaults of gb ramp.
const (
	defaultPause = time.Second
)

func defaultRampOptions() rampOptions {
	return rampOptions{pause: defaultPause, maxSockets: -1, maxErrors: capacity.DefaultMaxErrors}
}

// rampSpecs returns gb ramp's options: its step options, then ab's request
// options with the ones the ramp sets or cannot honour refusing with a
// pointer to what to use instead. The step options come first, so --csv
// and --json are the ramp's.
func rampSpecs(ro *rampOptions) []flagSpec {
	positive := func(dst *int) func(*options, string) error {
		return func(_ *options, v string) (err error) { *dst, err = getopt.Positive(v); return err }
	}
	rate := func(dst *int64) func(*options, string) error {
		return func(_ *options, v string) (err error) { *dst, err = parseRate(v); return err }
	}
	file := func(dst *string) func(*options, string) error {
		return func(_ *options, v string) error { *dst = v; return nil }
	}
	specs := []flagSpec{
		opt(0, "from", "concurrency", "Concurrency of the first step", positive(&ro.from)),
		opt(0, "to", "concurrency", "Concurrency of the last step (at most the open-file limit)", positive(&ro.to)),
		opt(0, "step", "n", "Concurrency added per step (default: --from)", positive(&ro.step)),
		opt(0, "per-user", "requests", "Requests per connection in a step: -n = per-user x concurrency\n(default 100)", func(_ *options, v string) error {
			n, err := getopt.Count(v)
			if err == nil && (n <= 0 || n > math.MaxInt64/gb.MaxConcurrency) {
				err = errors.New("want a positive whole number")
			}
			ro.perUser = n
			return err
		}),
		opt(0, "rate-from", "rate", "Target rate of the first step, requests per second", rate(&ro.rateFrom)),
		opt(0, "rate-to", "rate", "Target rate of the last step", rate(&ro.rateTo)),
		opt(0, "rate-step", "rate", "Rate added per step (default: --rate-from)", rate(&ro.rateStep)),
		opt(0, "step-time", "duration", "Length of a rate step (default 10s); caps a concurrency step", func(_ *options, v string) (err error) {
			ro.stepTime, err = getopt.Seconds(v)
			return err
		}),
		opt(0, "pause", "duration", "Pause between steps (default 1s; 0 = none)", func(_ *options, v string) error {
			d, err := time.ParseDuration(v)
			if n, aerr := strconv.Atoi(v); aerr == nil {
				d, err = time.Duration(n)*time.Second, nil
			}
			if err != nil || d < 0 {
				return errors.New("want seconds (1) or a duration (500ms)")
			}
			ro.pause = d
			return nil
		}),
		opt(0, "max-sockets", "n", "Before a step, wait while more sockets toward the target are in\nTIME_WAIT or established (default: half the ephemeral ports; 0 = no wait)", func(_ *options, v string) (err error) {
			ro.maxSockets, err = strconv.Atoi(v)
			if err != nil || ro.maxSockets < 0 {
				return errors.New("want a whole number")
			}
			return nil
		}),
		opt(0, "max-errors", "pct", "Share of a step's requests that may fail or be answered non-2xx\nbefore the step counts as saturated (default 1%; 0 = none)", func(_ *options, v string) (err error) {
			ro.maxErrors, err = parseShare(v)
			return err
		}),
		opt(0, "csv", "file", "Write one CSV row per step (ab+.sh's columns, then gb's)", file(&ro.csvFile)),
		opt(0, "autobench", "file", "Write autobench's columns (tab separated; comma for *.csv)", file(&ro.autobenchFile)),
		opt(0, "plot", "file", "Draw the curve to file.png; file.gp also writes a gnuplot script\nthat renders the --csv file to file.png", file(&ro.plotFile)),
		opt(0, "html", "file", "Write the ramp's HTML report (charts inlined, opens offline)", file(&ro.htmlFile)),
		opt(0, "json", "file", "Write every step's full result as JSON (- = stdout)", file(&ro.jsonFile)),
		opt('h', "help", "", "Display usage information (this message)", func(*options, string) error { ro.help = true; return nil }),
	}
	for _, s := range abSpecs {
		if msg := rampRefusal(s); msg != "" {
			s.Set = func(*options, string) error { return getopt.Errorf(false, "%s", msg) }
		} else if s.Short == 'c' {
			set := s.Set
			s.Set = func(o *options, v string) error { ro.poolSet = true; return set(o, v) }
		}
		specs = append(specs, s)
	}
	return specs
}

// rampRefusal says why gb ramp refuses one of ab's options, or "".
func rampRefusal(s flagSpec) string {
	switch s.Short {
	case 'n':
		return "-n is set per step: use --per-user (concurrency steps) or --step-time (rate steps)"
	case 't':
		return "-t: use --step-time to bound each step"
	case 'R':
		return "-R: use --rate-from, --rate-to and --rate-step for rate steps"
	case 'e', 'g', 'w', 'x', 'y', 'z':
		return fmt.Sprintf("-%c is for one run's report: gb ramp writes --csv, --autobench, --plot and --json", s.Short)
	}
	if strings.HasPrefix(s.Long, "profile") {
		return "--" + s.Long + " is for one run: profile the server with gb at the load of interest"
	}
	switch s.Long {
	case "threshold", "junit", "hgrm", "hlog", "bench-out", "repeat", "warmup", "shard":
		return "--" + s.Long + " is for one run (gb ramp's steps are judged by its saturation point)"
	case "web", "web-linger":
		return "--" + s.Long + " is for one run: gb ramp shows its steps live in the terminal"
	}
	return ""
}

// rampCmd is gb ramp: one benchmark per step of load, a line per step, the
// saturation point, and the CSV, autobench, gnuplot and JSON files.
func rampCmd(args []string, stdout, stderr io.Writer, sig <-chan os.Signal) int {
	ro := defaultRampOptions()
	o := defaultOptions()
	specs := rampSpecs(&ro)
	rest, err := parseAll(args, specs, &o)
	switch {
	case err != nil:
		return failRamp(stderr, err)
	case ro.help:
		printRampUsage(stderr, specs)
		return exitUsage
	case o.version:
		_ = report.Banner(stdout, gb.Version, false)
		return exitOK
	case len(rest) != 1:
		return failRamp(stderr, getopt.Errorf(false, "want one URL after the options (gb ramp -h for help)"))
	}
	spec, err := ro.spec(&o)
	if err != nil {
		return failRamp(stderr, err)
	}
	o.cfg, o.requestsSet = stepConfig(o.cfg, spec.Largest()), spec.By != ramp.ByRate // ab's checks see the largest step
	argv := redactArgs(append([]string{"ramp"}, args...))
	p, err := o.plan(rest[0], argv, stderr)
	if err == nil {
		err = ro.checkFiles()
	}
	if err != nil {
		return failRamp(stderr, err)
	}
	defer p.Close()
	return (&rampRun{p: &rampPlan{Plan: p, base: p.Config()}, o: &o, ro: &ro, spec: spec, argv: argv, stdout: stdout, stderr: stderr}).run(sig)
}

// rampPlan runs gb ramp's steps on a Plan (a ramp.Runner): each step is
// base with the step's load, its connections carried to the next.
type rampPlan struct {
	*gb.Plan
	base gb.Config   // the Plan's Config
	opts []gb.Option // added to every step's run (the observer, the live panel)
}

// Step runs one step of the ramp.
func (rp *rampPlan) Step(ctx context.Context, l ramp.Load, progress func(int64, time.Duration)) (*stats.Result, error) {
	opts := append([]gb.Option{gb.WithProgress(time.Second, func(p gb.Progress) { progress(p.Done, p.Elapsed) })}, rp.opts...)
	if !l.Last {
		opts = append(opts, gb.Carry())
	}
	return rp.Plan.Step(ctx, stepOf(l), opts...)
}

// stepOf is the Plan's step of the load l (a rate step keeps the Plan's
// connections, a concurrency step its rate).
func stepOf(l ramp.Load) gb.Step {
	s := gb.Step{Requests: l.Requests, Duration: l.Duration, Concurrency: l.Concurrency}
	if l.Rate > 0 {
		s.Rate = gb.Rate{Freq: l.Rate, Per: time.Second}
	}
	return s
}

// stepConfig is base with the load l.
func stepConfig(base gb.Config, l ramp.Load) gb.Config {
	c := base
	c.Requests, c.Duration = l.Requests, l.Duration
	if l.Rate > 0 {
		c.Rate = gb.Rate{Freq: l.Rate, Per: time.Second}
	} else {
		c.Concurrency = l.Concurrency
	}
	return c
}

// failRamp prints err as one line and returns its exit code; ab's usage
// text never follows (gb ramp -h prints the ramp's).
func failRamp(stderr io.Writer, err error) int {
	return failAs(stderr, "gb ramp", err, nil)
}

// byRate reports whether the steps are rates.
func (ro *rampOptions) byRate() bool { return ro.rateFrom > 0 || ro.rateTo > 0 || ro.rateStep > 0 }

// spec checks the step options and returns the ramp they describe, on
// the request o describes (always the goroutine engine: its keep-alive
// connections outlive a step).
func (ro *rampOptions) spec(o *options) (ramp.Spec, error) {
	conc := ro.from > 0 || ro.to > 0 || ro.step > 0 || ro.perUser > 0
	switch {
	case conc && ro.byRate():
		return ramp.Spec{}, getopt.Errorf(false, "give concurrency steps (--from/--to) or rate steps (--rate-from/--rate-to), not both")
	case !conc && !ro.byRate():
		return ramp.Spec{}, getopt.Errorf(false, "give --from and --to (concurrency steps) or --rate-from and --rate-to (rate steps)")
	case conc && ro.poolSet:
		return ramp.Spec{}, getopt.Errorf(false, "-c is set by the steps (--from/--to/--step); it is the connection pool of rate steps only")
	case ro.byRate() && !ro.poolSet:
		return ramp.Spec{}, getopt.Errorf(false, "rate steps need -c, the connection pool (e.g. -c 100)")
	case strings.HasSuffix(ro.plotFile, ".gp") && ro.csvFile == "":
		return ramp.Spec{}, getopt.Errorf(false, "--plot file.gp needs --csv (the script plots the CSV file)")
	case conc && ro.to > gb.MaxConcurrency:
		return ramp.Spec{}, getopt.Errorf(false, "--to %d: concurrency is at most %d", ro.to, gb.MaxConcurrency)
	}
	o.cfg.Engine = gb.EngineGoroutine
	s := ramp.Spec{By: ramp.ByConcurrency, PerUser: ro.perUser, StepTime: ro.stepTime,
		Pause: ro.pause, MaxSockets: ro.maxSockets, MaxErrors: ro.maxErrors}
	var err error
	if conc {
		s.Levels, err = ramp.Levels("--from", "--to", int64(ro.from), int64(ro.to), int64(ro.step))
		return s, asUsage(err)
	}
	s.By, s.StepTime = ramp.ByRate, cmp.Or(ro.stepTime, ramp.DefaultStepTime)
	if s.Levels, err = ramp.Levels("--rate-from", "--rate-to", ro.rateFrom, ro.rateTo, ro.rateStep); err != nil {
		return s, asUsage(err)
	}
	if s.Requests(s.Levels[0]) < 1 {
		return s, getopt.Errorf(false, "--rate-from %d for --step-time %v is less than one request", s.Levels[0], ro.stepTime)
	}
	return s, nil
}

// checkFiles checks the output files before the first step
// (checkOutputs); --plot cannot be stdout.
func (ro *rampOptions) checkFiles() error {
	var files []reportFile
	for _, f := range ro.files() {
		if f.flag == "--plot" && f.path == outfile.Stdout {
			return getopt.Errorf(false, "--plot -: give a file name (file.png, or file.gp for a gnuplot script too)")
		}
		files = append(files, reportFile{f.flag, f.path, nil})
	}
	return checkOutputs(files)
}

// rampFile is one output file of gb ramp.
type rampFile struct {
	flag, path string
	write      func(io.Writer, *ramp.Ramp) error
}

// files returns the output files asked for, in the order written.
func (ro *rampOptions) files() []rampFile {
	sep := "\t"
	if strings.HasSuffix(strings.ToLower(ro.autobenchFile), ".csv") {
		sep = ","
	}
	all := []rampFile{
		{"--csv", ro.csvFile, report.RampCSV},
		{"--autobench", ro.autobenchFile, func(w io.Writer, rp *ramp.Ramp) error { return report.RampAutobench(w, rp, sep) }},
		{"--plot", ro.plotFile, htmlreport.RampPNG},
		{"--json", ro.jsonFile, report.RampJSON},
		{"--html", ro.htmlFile, htmlreport.Ramp},
	}
	if strings.HasSuffix(ro.plotFile, ".gp") {
		all[2].write = func(w io.Writer, rp *ramp.Ramp) error {
			return report.RampPlot(w, rp, ro.csvFile, pngPath(ro.plotFile))
		}
		all = append(all, rampFile{"--plot", pngPath(ro.plotFile), htmlreport.RampPNG})
	}
	var out []rampFile
	for _, f := range all {
		if f.path != "" {
			out = append(out, f)
		}
	}
	return out
}

// pngPath is the image beside a plot script: its own name with .png.
func pngPath(gp string) string { return strings.TrimSuffix(gp, filepath.Ext(gp)) + ".png" }

// printRampUsage writes gb ramp's usage: its step options, then a pointer
// to ab's request options.
func printRampUsage(w io.Writer, specs []flagSpec) {
	fmt.Fprintf(w, "Usage: gb ramp [step options] [ab options] [http[s]://]hostname[:port]/path\n")
	fmt.Fprintf(w, "  gb ramp -k --from 100 --to 2000 --step 100 --per-user 100 URL\n")
	fmt.Fprintf(w, "  gb ramp -k -c 100 --rate-from 1000 --rate-to 20000 --rate-step 1000 --step-time 10s URL\n")
	fmt.Fprintf(w, "Step options:\n")
	for i := range specs {
		if specs[i].Short == 'h' && specs[i].Long == "help" {
			break
		}
		s := &specs[i]
		lines := strings.Split(s.Help, "\n")
		fmt.Fprintf(w, "    %-24s %s\n", "--"+s.Long+" "+s.Arg, lines[0])
		for _, l := range lines[1:] {
			fmt.Fprintf(w, "%29s%s\n", "", l)
		}
	}
	fmt.Fprintf(w, "Request options are gb's (gb -h), except -n, -t, -R and the report options.\n")
}
