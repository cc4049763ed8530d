package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/gb-bench/gb/internal/getopt"
	"github.com/gb-bench/gb/internal/htmlreport"
	"github.com/gb-bench/gb/internal/ramp"
	"github.com/gb-bench/gb/internal/report"
	"github.com/gb-bench/gb/stats"
)

const reportUsage = `Usage: gb report [options] FILE.json
  Renders a saved result again: gb --json, a --repeat file (its median run),
  or gb ramp --json. With no option it prints the text report on stdout,
  the same bytes as the live run's report.
Options:
    --text          Print the text report even when files are asked for
    --html file     Write the HTML report
    --hgrm file     Write the latency percentile distribution (.hgrm)
    --hlog file     Write the interval histogram log (.hlog)
    -e file         Write ab's percentile CSV
    --json file     Write the result as JSON (the current format version)
`

// reportOptions is gb report's command line.
type reportOptions struct {
	text                        bool
	html, hgrm, hlog, csv, json string
}

var reportSpecs = []getopt.Spec[reportOptions]{
	getopt.New(0, "text", "", "", func(o *reportOptions, _ string) error { o.text = true; return nil }),
	getopt.New(0, "html", "file", "", func(o *reportOptions, v string) error { o.html = v; return nil }),
	getopt.New(0, "hgrm", "file", "", func(o *reportOptions, v string) error { o.hgrm = v; return nil }),
	getopt.New(0, "hlog", "file", "", func(o *reportOptions, v string) error { o.hlog = v; return nil }),
	getopt.New('e', "csv", "file", "", func(o *reportOptions, v string) error { o.csv = v; return nil }),
	getopt.New(0, "json", "file", "", func(o *reportOptions, v string) error { o.json = v; return nil }),
}

// reportCmd is gb report: a saved result rendered again.
func reportCmd(args []string, stdout, stderr io.Writer, _ <-chan os.Signal) int {
	var ro reportOptions
	rest, err := getopt.ParseAnywhere(args, reportSpecs, &ro)
	if err == nil && len(rest) != 1 {
		err = getopt.Errorf(false, "want one result file (gb report --help)")
	}
	if err != nil {
		return failAs(stderr, "gb report", asUsage(err), nil)
	}
	b, err := stats.ReadResultFile(rest[0])
	if err != nil {
		inputError(stderr, "report", rest[0], unwrapPath(err))
		return exitFailure
	}
	var probe struct {
		By *string `json:"steps_by"`
	}
	_ = json.Unmarshal(b, &probe)
	if probe.By != nil {
		err = reportRamp(b, &ro, stdout)
	} else {
		err = reportRun(b, &ro, stdout)
	}
	if err != nil {
		inputError(stderr, "report", rest[0], err)
		return exitFailure
	}
	return exitOK
}

// reportRun renders a run (or the median of repeated runs).
func reportRun(b []byte, ro *reportOptions, stdout io.Writer) error {
	rs, err := stats.ReadRuns(bytes.NewReader(b))
	if err != nil {
		return err
	}
	res := median(rs.Runs)
	res.Version = stats.FormatVersion // it is written in the current format
	if ro.text || ro.html+ro.hgrm+ro.hlog+ro.csv+ro.json == "" {
		if err := report.Text(stdout, res, report.Options{}); err != nil {
			return err
		}
	}
	return writeAll([]reportFile{
		{"--html", ro.html, func(w io.Writer) error { return htmlreport.Run(w, res) }},
		{"--hgrm", ro.hgrm, func(w io.Writer) error { return report.HGRM(w, res) }},
		{"--hlog", ro.hlog, func(w io.Writer) error { return report.HLog(w, res) }},
		{"-e", ro.csv, func(w io.Writer) error { return report.CSV(w, res) }},
		{"--json", ro.json, func(w io.Writer) error { return report.JSON(w, res) }},
	}, stdout)
}

// reportRamp renders a ramp: its step lines and summary, or its page.
func reportRamp(b []byte, ro *reportOptions, stdout io.Writer) error {
	var rp ramp.Ramp
	if err := json.Unmarshal(b, &rp); err != nil {
		return fmt.Errorf("not a gb ramp result: %v", err)
	}
	if err := validRamp(&rp); err != nil {
		return err
	}
	if ro.hgrm+ro.hlog+ro.csv != "" {
		return getopt.Errorf(false, "--hgrm, --hlog and -e are for one run; a ramp has --text, --html and --json")
	}
	if ro.text || ro.html+ro.json == "" {
		_ = report.RampHeader(stdout, rp.By)
		for i, s := range rp.Steps {
			_ = report.RampStep(stdout, rp.By, i+1, s)
		}
		if err := report.RampSummary(stdout, &rp); err != nil {
			return err
		}
	}
	return writeAll([]reportFile{
		{"--html", ro.html, func(w io.Writer) error { return htmlreport.Ramp(w, &rp) }},
		{"--json", ro.json, func(w io.Writer) error { return report.RampJSON(w, &rp) }},
	}, stdout)
}

// validRamp refuses a ramp gb cannot have written (see
// stats.Result.Validate for each step) and makes its strings printable.
func validRamp(rp *ramp.Ramp) error {
	if len(rp.Steps) == 0 {
		return fmt.Errorf("a ramp with no steps")
	}
	if rp.By != ramp.ByConcurrency && rp.By != ramp.ByRate {
		return fmt.Errorf("not a gb ramp result: steps_by %q", rp.By)
	}
	if rp.Saturation < 0 || rp.Saturation > len(rp.Steps) {
		return fmt.Errorf("not a gb ramp result: saturation_step %d of %d steps", rp.Saturation, len(rp.Steps))
	}
	for i, s := range rp.Steps {
		if s == nil {
			return fmt.Errorf("step %d: null", i+1)
		}
		if err := s.Validate(); err != nil {
			return fmt.Errorf("step %d: %v", i+1, err)
		}
	}
	rp.GBVersion = stats.Printable(rp.GBVersion)
	for i, c := range rp.Command {
		rp.Command[i] = stats.Printable(c)
	}
	return nil
}
