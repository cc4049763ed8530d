package main

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"syscall"

	"github.com/gb-bench/gb"
	"github.com/gb-bench/gb/internal/compare"
	"github.com/gb-bench/gb/internal/htmlreport"
	"github.com/gb-bench/gb/internal/report"
	"github.com/gb-bench/gb/internal/threshold"
	"github.com/gb-bench/gb/stats"
)

// conclude checks, prints and writes the results of the series (one run,
// or --repeat's: the report is the median complete run's) and returns the
// exit code.
func conclude(s *series, o *options, stdout, stderr io.Writer) int {
	res := s.report()
	for _, r := range append(slices.Clone(s.runs), s.partial) {
		if r == nil {
			continue
		}
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
	if !o.html && isTerminal(stdout) {
		_ = report.LatencyHistogram(stdout, res, 0)
	}
	if o.repeat > 1 {
		fmt.Fprint(stdout, s.spread(o.repeat))
	}
	if o.verbosity >= 2 {
		report.GCSummary(stderr, res.Elapsed)
	}
	verdicts := checkThresholds(res, o, stdout, stderr)
	code := exitOK
	if err := writeFiles(s, res, verdicts, o); err != nil {
		fmt.Fprintf(stderr, "gb: %v\n", err)
		code = exitFailure
	}
	if s.interrupted || res.StoppedBy == stats.StopSignal || res.StoppedBy == stats.StopError {
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

// report is the run the report shows: the median complete run, or the
// partial run when no run completed.
func (s *series) report() *gb.Result {
	if len(s.runs) == 0 {
		return s.partial
	}
	return median(s.runs)
}

// median returns the run with the median requests per second.
func median(runs []*gb.Result) *gb.Result {
	sorted := slices.Clone(runs)
	slices.SortStableFunc(sorted, func(a, b *gb.Result) int { return cmp.Compare(a.RPS(), b.RPS()) })
	return sorted[len(sorted)/2]
}

// minRunsForInterval is the fewest runs whose median has a 95% confidence
// interval (benchmath's order-statistic interval: with 5 or fewer, gb
// compare shows "± ∞").
const minRunsForInterval = 6

// spread is --repeat's lines (of want runs): min, median and max over the
// complete runs of requests per second and of the lead latency's p99; the
// run a signal cut short, which they leave out; and a note when the runs
// are too few for gb compare's confidence interval.
func (s *series) spread(want int) string {
	var b strings.Builder
	n := len(s.runs)
	fmt.Fprintf(&b, "repeat:                 %d run%s", n, map[bool]string{true: "s"}[n != 1])
	if n > 0 {
		rps := make([]float64, n)
		p99 := make([]float64, n)
		for i, r := range s.runs {
			rps[i] = r.RPS()
			p99[i] = float64(r.Percentile(report.LeadPhase(r), 99)) / 1e6
		}
		slices.Sort(rps)
		slices.Sort(p99)
		mid := n / 2
		fmt.Fprintf(&b, ": req/s min %.2f median %.2f max %.2f; p99 ms min %.3f median %.3f max %.3f",
			rps[0], rps[mid], rps[n-1], p99[0], p99[mid], p99[n-1])
	}
	switch {
	case s.partial != nil && n == 0:
		fmt.Fprintf(&b, "; run 1 of %d interrupted: the report above is its partial result", want)
	case s.partial != nil:
		fmt.Fprintf(&b, "; run %d of %d interrupted, left out", n+1, want)
	case s.interrupted && n < want:
		fmt.Fprintf(&b, "; interrupted before run %d of %d", n+1, want)
	}
	b.WriteString("\n")
	if want < minRunsForInterval {
		fmt.Fprintf(&b, "                        n=%d: too few runs for a 95 percent interval; use --repeat %d or more\n", want, minRunsForInterval)
	}
	return b.String()
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
		err := appendSummary(path, func(w io.Writer) error { return threshold.WriteMarkdown(w, "gb "+res.Load.URL, rs) })
		if err != nil {
			fmt.Fprintf(stderr, "gb: warning: GITHUB_STEP_SUMMARY: %v\n", err)
		}
	}
	return rs
}

// appendSummary appends what write writes to the regular file at path
// (created if missing). Anything else is refused before a byte is
// written: a named pipe would hang gb (it is opened without waiting for a
// reader), a device is no summary.
func appendSummary(path string, write func(io.Writer) error) error {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY|syscall.O_NONBLOCK, 0o644)
	if errors.Is(err, syscall.ENXIO) || errors.Is(err, syscall.EISDIR) {
		return fmt.Errorf("%s is not a regular file", path)
	}
	if err != nil {
		return err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return fmt.Errorf("%s is not a regular file", path)
	}
	return errors.Join(write(f), f.Close())
}

// noResponse says why a run that was not interrupted got no response at
// all, whatever -n (ab aborts only after 10 failed connects); "" when a
// response came or a signal ended the run.
func noResponse(res *gb.Result) string {
	if res.Complete() > 0 || res.Counts.Outcomes[stats.FailCheck] > 0 || res.StoppedBy == stats.StopSignal || res.StoppedBy == stats.StopError { // a response that failed a check is one
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
func writeFiles(s *series, res *gb.Result, verdicts []threshold.Result, o *options) error {
	files := []reportFile{{"--json", o.jsonFile, func(w io.Writer) error {
		if o.repeat > 1 {
			return writeRepeat(w, s)
		}
		return report.JSON(w, res)
	}},
		{"--html", o.htmlFile, func(w io.Writer) error { return htmlreport.Run(w, res) }},
		{"--hgrm", o.hgrmFile, func(w io.Writer) error { return report.HGRM(w, res) }},
		{"--hlog", o.hlogFile, func(w io.Writer) error { return report.HLog(w, res) }},
		{"--bench-out", o.benchOut, func(w io.Writer) error {
			return compare.BenchFormat(w, compare.BenchName(res.Load.Path), s.runs)
		}},
		{"--junit", o.junitFile, func(w io.Writer) error {
			return threshold.WriteJUnit(w, threshold.Suite{Name: res.Load.URL, Start: res.Start, Elapsed: res.Elapsed}, verdicts)
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

// repeatFile is --repeat's JSON: the complete runs under "runs", as
// stats.ReadRuns (gb report, gb compare) reads them, and the run a signal
// cut short under "interrupted", which they leave out.
type repeatFile struct {
	Runs        []*gb.Result `json:"runs"`
	Interrupted *gb.Result   `json:"interrupted,omitempty"`
}

// writeRepeat writes s as a repeatFile, formatted as stats.Runs.Write
// formats its runs.
func writeRepeat(w io.Writer, s *series) error {
	e := json.NewEncoder(w)
	e.SetIndent("", "  ")
	e.SetEscapeHTML(false)
	return e.Encode(repeatFile{Runs: append([]*gb.Result{}, s.runs...), Interrupted: s.partial})
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
