package main

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/gb-bench/gb"
	"github.com/gb-bench/gb/internal/report"
	"github.com/gb-bench/gb/internal/threshold"
	"github.com/gb-bench/gb/stats"
	"golang.org/x/term"
)

// conclude checks, prints and writes the results of the runs (one, or
// --repeat's k: the report is the median run's) and returns the exit code.
func conclude(runs []*gb.Result, o *options, stdout, stderr io.Writer) int {
	res := median(runs)
	for _, r := range runs {
		for _, err := range r.Check() {
			fmt.Fprintf(stderr, "gb: BUG: accounting invariant broken: %v (please report this)\n", err)
		}
	}
	if res.StoppedBy == stats.StopError {
		fmt.Fprintf(stderr, "\nTest aborted: %s%s\n\n", res.StopError, hint(res.StopError))
	}
	ro := report.Options{NoPercentiles: o.noPercentiles, NoConfidence: o.noConfidence,
		TableAttrs: o.tableAttrs, RowAttrs: o.rowAttrs, CellAttrs: o.cellAttrs}
	if o.html && res.StoppedBy != stats.StopSignal {
		_ = report.HTML(stdout, res, ro)
	} else {
		_ = report.Text(stdout, res, ro)
	}
	if f, ok := stdout.(*os.File); ok && !o.html && term.IsTerminal(int(f.Fd())) {
		_ = report.LatencyHistogram(stdout, res, 0)
	}
	if len(runs) > 1 {
		fmt.Fprintln(stdout, spread(runs))
	}
	if o.verbosity >= 2 {
		report.GCSummary(stderr, res.Elapsed)
	}
	verdicts := checkThresholds(res, o, stdout, stderr)
	code := exitOK
	if err := writeFiles(runs, res, verdicts, o); err != nil {
		fmt.Fprintf(stderr, "gb: %v\n", err)
		code = exitFailure
	}
	if res.StoppedBy == stats.StopSignal || res.StoppedBy == stats.StopError {
		code = exitFailure
	}
	if why := noResponse(res); why != "" {
		fmt.Fprintf(stderr, "gb: no request got a response: %s\n", why)
		code = exitFailure
	}
	if code == exitOK && !threshold.Passed(verdicts) {
		code = exitThresholds
	}
	return code
}

// median returns the run with the median requests per second.
func median(runs []*gb.Result) *gb.Result {
	sorted := slices.Clone(runs)
	slices.SortStableFunc(sorted, func(a, b *gb.Result) int { return cmp.Compare(a.RPS(), b.RPS()) })
	return sorted[len(sorted)/2]
}

// spread is --repeat's line: min, median and max over the runs of
// requests per second and of the lead latency's p99.
func spread(runs []*gb.Result) string {
	rps := make([]float64, len(runs))
	p99 := make([]float64, len(runs))
	for i, r := range runs {
		rps[i] = r.RPS()
		p99[i] = float64(r.Percentile(report.LeadPhase(r), 99)) / 1e6
	}
	slices.Sort(rps)
	slices.Sort(p99)
	mid := len(runs) / 2
	return fmt.Sprintf("repeat:                 %d runs: req/s min %.2f median %.2f max %.2f; p99 ms min %.3f median %.3f max %.3f",
		len(runs), rps[0], rps[mid], rps[len(rps)-1], p99[0], p99[mid], p99[len(p99)-1])
}

// checkThresholds evaluates --threshold on res and prints the section
// after the report; it also appends a Markdown summary to
// $GITHUB_STEP_SUMMARY when set. No thresholds: nothing, and they pass.
func checkThresholds(res *gb.Result, o *options, stdout, stderr io.Writer) []threshold.Result {
	if len(o.thresholds) == 0 {
		return nil
	}
	ts, _ := threshold.ParseAll(o.thresholds) // each was parsed with its flag
	rs := threshold.Evaluate(ts, res)
	_ = threshold.WriteText(stdout, rs)
	if path := os.Getenv("GITHUB_STEP_SUMMARY"); path != "" {
		f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err == nil {
			err = threshold.WriteMarkdown(f, "gb "+res.Target.URL, rs)
			err = errors.Join(err, f.Close())
		}
		if err != nil {
			fmt.Fprintf(stderr, "gb: warning: GITHUB_STEP_SUMMARY: %v\n", err)
		}
	}
	return rs
}

// noResponse says why a run that was not interrupted got no response at
// all, whatever -n (ab aborts only after 10 failed connects); "" when a
// response came or a signal ended the run.
func noResponse(res *gb.Result) string {
	if res.Complete() > 0 || res.StoppedBy == stats.StopSignal || res.StoppedBy == stats.StopError {
		return ""
	}
	top, n := "", int64(0)
	for msg, c := range res.Counts.Errors {
		if c > n || (c == n && msg < top) {
			top, n = msg, c
		}
	}
	if top == "" {
		o := &res.Counts.Outcomes
		if n := o.Aborted(); n > 0 && o.Failed() == 0 {
			return fmt.Sprintf("all %d requests sent were still in flight when the run stopped (aborted: no answer before the end)", n)
		}
		return fmt.Sprintf("%d requests failed", o.Failed())
	}
	return top + hint(top)
}

// writeFiles writes the run's output files. ab writes -e and -g only when
// a request completed; without one the others are still written and the
// error names the file left out.
func writeFiles(runs []*gb.Result, res *gb.Result, verdicts []threshold.Result, o *options) error {
	files := []reportFile{{"--json", o.jsonFile, func(w io.Writer) error {
		if len(runs) > 1 {
			return stats.Runs{Runs: runs}.Write(w)
		}
		return report.JSON(w, res)
	}},
		{"--html", o.htmlFile, func(w io.Writer) error { return report.HTMLReport(w, res) }},
		{"--hgrm", o.hgrmFile, func(w io.Writer) error { return report.HGRM(w, res) }},
		{"--hlog", o.hlogFile, func(w io.Writer) error { return report.HLog(w, res) }},
		{"--bench-out", o.benchOut, func(w io.Writer) error {
			return report.BenchFormat(w, report.BenchName(res.Target.Path), runs)
		}},
		{"--junit", o.junitFile, func(w io.Writer) error {
			return threshold.WriteJUnit(w, threshold.Suite{Name: res.Target.URL, Start: res.Start, Elapsed: res.Elapsed}, verdicts)
		}},
	}
	var unwritten error
	if res.Complete() == 0 {
		for _, f := range [][2]string{{"-e", o.csvFile}, {"-g", o.gnuplotFile}} {
			if f[1] != "" && unwritten == nil {
				unwritten = fmt.Errorf("%s %s not written: no request completed (as ab)", f[0], f[1])
			}
		}
	} else {
		files = append(files,
			reportFile{"-e", o.csvFile, func(w io.Writer) error { return report.CSV(w, res) }},
			reportFile{"-g", o.gnuplotFile, func(w io.Writer) error { return report.Gnuplot(w, res, nil) }})
	}
	if err := writeAll(files, o.stdout); err != nil {
		return err
	}
	return unwritten
}

// hint suggests what fixes a certificate failure. Only an unknown
// authority is fixed by --cacert; an expired certificate or one for other
// names is named as such by the message itself (dates, names).
func hint(stopErr string) string {
	switch {
	case strings.Contains(stopErr, "unknown authority"):
		return " (use --cacert FILE to trust its CA, or --insecure)"
	case strings.Contains(stopErr, "x509: certificate is valid for"):
		return " (the certificate does not name this host: use a name it lists, or --insecure)"
	case strings.Contains(stopErr, "x509: certificate has expired"):
		return " (the server's certificate is out of its validity period; --insecure skips the check)"
	}
	return ""
}
