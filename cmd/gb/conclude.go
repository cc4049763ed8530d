package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/gb-bench/gb"
	"github.com/gb-bench/gb/internal/outfile"
	"github.com/gb-bench/gb/internal/report"
	"github.com/gb-bench/gb/stats"
)

// conclude checks, prints and writes the result, and returns the exit code.
func conclude(res *gb.Result, o *options, stdout, stderr io.Writer) int {
	for _, err := range res.Check() {
		fmt.Fprintf(stderr, "gb: BUG: accounting invariant broken: %v (please report this)\n", err)
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
	if o.verbosity >= 2 {
		report.GCSummary(stderr, res.Elapsed)
	}
	code := exitOK
	if err := writeFiles(res, o); err != nil {
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
	return code
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
		return fmt.Sprintf("%d requests failed", res.Counts.Outcomes.Failed())
	}
	return top + hint(top)
}

// writeFiles writes the -e, -g and --json files (ab writes -e and -g only
// when a request completed).
func writeFiles(res *gb.Result, o *options) error {
	type file struct {
		flag, path string
		write      func(io.Writer) error
	}
	files := []file{{"--json", o.jsonFile, func(w io.Writer) error { return report.JSON(w, res) }},
		{"--html", o.htmlFile, func(w io.Writer) error { return report.HTMLReport(w, res) }}}
	if res.Complete() == 0 {
		for _, f := range [][2]string{{"-e", o.csvFile}, {"-g", o.gnuplotFile}} {
			if f[1] != "" {
				return fmt.Errorf("%s %s not written: no request completed (as ab)", f[0], f[1])
			}
		}
	} else {
		files = append(files,
			file{"-e", o.csvFile, func(w io.Writer) error { return report.CSV(w, res) }},
			file{"-g", o.gnuplotFile, func(w io.Writer) error { return report.Gnuplot(w, res, nil) }})
	}
	for _, f := range files {
		if f.path == "" {
			continue
		}
		if err := outfile.Write(f.path, 0o600, f.write); err != nil {
			return fmt.Errorf("cannot write %s %s: %v", f.flag, f.path, err)
		}
	}
	return nil
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
