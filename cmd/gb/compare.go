package main

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/gb-bench/gb/internal/compare"
	"github.com/gb-bench/gb/internal/getopt"
)

// exitRegression is gb compare's exit code when --max-regression fails
// (k6's code for failed thresholds).
const exitRegression = 99

// compareOptions is gb compare's command line.
type compareOptions struct {
	files   []string
	limits  []compare.Limit
	diffDir string
	top     int
	help    bool // --help: usage on stdout, exit 0
	badHelp bool // -h: usage on stderr, exit 22, as ab's -h
}

const compareUsage = `Usage: gb compare [options] OLD.json NEW.json [NEW2.json ...]
Compares saved gb runs (gb --json FILE; a file may hold the K runs of --repeat K):
one row per metric, each file's median ± its 95% confidence interval, and for
each NEW file the change from OLD with the Mann-Whitney U test's p-value
("~": not significant at α=0.05). When both runs saved server profiles
(--profile), the rows of the server's diagnosis (CPU per request by cause, lock
and channel wait per request, GC, goroutines) and the functions whose CPU and
allocation per request changed most.
Options:
    --max-regression METRIC=±N%  Exit 99 when a significant change of the metric's
                       median is worse than N% (repeatable), e.g. p99=+10%, rps=-5%.
                       Metrics: rps, p50, p90, p99, p99.9, corrected.p50 ... corrected.p99.9,
                       errors, server.cpu, server.alloc_bytes, server.allocs, gb.cpu, and the
                       diagnosis's (--profile): diag.cpu.CAUSE (user_cpu, http_stack, gc, alloc,
                       scheduler, syscalls, runtime, other), diag.wait.mutex, diag.wait.block,
                       diag.gc.cycles_per_1000, diag.gc.max_pause, diag.gc.cpu_share,
                       diag.goroutines.during, diag.goroutines.after
    --profile-diff-dir DIR  Write each profile diff as KIND.old.pb.gz and KIND.new.pb.gz
                       (one subdirectory per NEW file when there are several) for
                       go tool pprof -diff_base KIND.old.pb.gz KIND.new.pb.gz
    --top N            Functions per direction in the profile diff (default 5; 0: none)
    --help             Print this help
Exit codes: 0 compared; 1 a file cannot be read; 22 usage; 99 a regression beyond a limit.
`

// compareCmd runs gb compare with args (after "compare") and returns the
// exit code.
func compareCmd(args []string, stdout, stderr io.Writer) int {
	co, err := parseCompare(args)
	if err != nil {
		return failAs(stderr, "gb compare", asUsage(err), nil)
	}
	switch {
	case co.help:
		fmt.Fprint(stdout, compareUsage)
		return exitOK
	case co.badHelp:
		fmt.Fprint(stderr, compareUsage)
		return exitUsage
	}
	inputs := make([]compare.Input, len(co.files))
	for i, f := range co.files {
		if inputs[i], err = compare.Read(f); err != nil {
			return failAs(stderr, "gb compare", err, nil)
		}
	}
	t := compare.Compare(inputs...)
	for _, w := range t.Warnings {
		fmt.Fprintf(stderr, "gb compare: warning: %s\n", oneLine(w))
	}
	if err := t.WriteText(stdout); err != nil {
		return failAs(stderr, "gb compare", err, nil)
	}
	if co.top > 0 || co.diffDir != "" {
		writeProfileDiffs(co, inputs, stdout, stderr)
	}
	return checkLimits(t, co.limits, stdout)
}

// writeProfileDiffs shows (and with --profile-diff-dir writes) the
// profile diff of every NEW input against OLD. A diff that cannot be made
// is a warning: the comparison above it stands.
func writeProfileDiffs(co *compareOptions, inputs []compare.Input, stdout, stderr io.Writer) {
	diffed := false
	for i, in := range inputs[1:] {
		diffs, err := compare.DiffProfiles(inputs[0], in)
		if err != nil {
			fmt.Fprintf(stderr, "gb compare: warning: no profile diff: %s\n", oneLine(err.Error()))
			continue
		}
		for _, d := range diffs {
			diffed = true
			if co.top > 0 {
				fmt.Fprintln(stdout)
				_ = d.WriteText(stdout, co.top)
			}
			if co.diffDir == "" {
				continue
			}
			dir := co.diffDir
			if len(inputs) > 2 {
				dir = filepath.Join(dir, fmt.Sprintf("%d-%s", i+1, strings.TrimSuffix(filepath.Base(in.Name), ".json")))
			}
			cmd, err := d.WriteFiles(dir)
			if err != nil {
				fmt.Fprintf(stderr, "gb compare: warning: --profile-diff-dir: %s\n", oneLine(err.Error()))
				continue
			}
			fmt.Fprintf(stdout, "diff: %s\n", cmd)
		}
	}
	if !diffed && co.diffDir != "" {
		fmt.Fprintln(stderr, "gb compare: warning: --profile-diff-dir: no saved server profiles (cpu, allocs) in both OLD and NEW runs")
	}
}

// checkLimits prints the verdict of every --max-regression and returns the
// exit code: 99 when one failed.
func checkLimits(t *compare.Table, limits []compare.Limit, stdout io.Writer) int {
	if len(limits) == 0 {
		return exitOK
	}
	verdicts, err := t.Check(limits)
	fmt.Fprintln(stdout, "\nmax-regression:")
	for _, v := range verdicts {
		fmt.Fprintf(stdout, "  %s\n", v)
	}
	if errors.Is(err, compare.ErrRegression) {
		return exitRegression
	}
	return exitOK
}

// compareSpecs are gb compare's options. Their setters return
// getopt.Errors, so that a bad value's message stands as written.
var compareSpecs = []getopt.Spec[compareOptions]{
	getopt.New(0, "max-regression", "METRIC=±N%", "", func(co *compareOptions, v string) error {
		l, err := compare.ParseLimit(v)
		if err != nil {
			return getopt.Errorf(false, "%v", err)
		}
		co.limits = append(co.limits, l)
		return nil
	}),
	getopt.New(0, "profile-diff-dir", "DIR", "", func(co *compareOptions, v string) error {
		if v == "" {
			return getopt.Errorf(false, "--profile-diff-dir needs a directory")
		}
		co.diffDir = v
		return nil
	}),
	getopt.New(0, "top", "N", "", func(co *compareOptions, v string) (err error) {
		if co.top, err = strconv.Atoi(v); err != nil || co.top < 0 || co.top > 1000 {
			return getopt.Errorf(false, "--top %q: want a number from 0 to 1000", v)
		}
		return nil
	}),
	getopt.New(0, "help", "", "", func(co *compareOptions, _ string) error { co.help = true; return nil }),
	getopt.New('h', "", "", "", func(co *compareOptions, _ string) error { co.badHelp = true; return nil }),
}

// parseCompare parses gb compare's arguments: options anywhere before
// "--", files in order.
func parseCompare(args []string) (*compareOptions, error) {
	co := &compareOptions{top: 5}
	files, err := getopt.ParseAnywhere(args, compareSpecs, co)
	if err != nil {
		return nil, err
	}
	co.files = files
	if !co.help && !co.badHelp && len(co.files) < 2 {
		return nil, errors.New("want OLD.json and at least one NEW.json (see gb compare --help)")
	}
	return co, nil
}
