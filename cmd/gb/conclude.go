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
		gcSummary(stderr, res.Elapsed)
	}
	code := exitOK
	if err := writeFiles(res, o); err != nil {
		fmt.Fprintf(stderr, "gb: %v\n", err)
		code = exitFailure
	}
	if res.StoppedBy == stats.StopSignal || res.StoppedBy == stats.StopError {
		code = exitFailure
	}
	return code
}

// writeFiles writes the -e, -g and --json files (ab writes -e and -g only
// when a request completed).
func writeFiles(res *gb.Result, o *options) error {
	type file struct {
		flag, path string
		write      func(io.Writer) error
	}
	files := []file{{"--json", o.jsonFile, func(w io.Writer) error { return report.JSON(w, res) }}}
	if res.Complete() > 0 {
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

// hint suggests the option that fixes a certificate failure.
func hint(stopErr string) string {
	if strings.Contains(stopErr, "x509:") || strings.Contains(stopErr, "certificate") {
		return " (use --cacert FILE to trust its CA, or --insecure)"
	}
	return ""
}
