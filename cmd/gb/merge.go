package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/gb-bench/gb"
	"github.com/gb-bench/gb/internal/getopt"
	"github.com/gb-bench/gb/internal/report"
	"github.com/gb-bench/gb/internal/threshold"
	"github.com/gb-bench/gb/stats"
)

const mergeUsage = `Usage: gb merge [options] A.json B.json ...
  Merges the results of one load run in parts (gb --shard I/N --json, one
  file per process, or the pod logs of gb k8s job) into one result: counts
  are sums, latency histograms exact HdrHistogram sums, time series summed
  interval by interval. Results of different loads (other than the shard)
  are refused, as are a file given twice, one shard twice, and some but not
  all shards of a split load. It prints the text report of the whole on stdout.
Options:
    -o file         Write the merged result as JSON (gb report and gb compare read it)
    --allow-partial Merge the shards given even when some are missing; the report
                    and the JSON say which shards the merge holds
    --threshold expr
                    Pass/fail check on the merged result (repeatable); a failure exits 99
`

// mergeOptions is gb merge's command line.
type mergeOptions struct {
	out          string
	thresholds   []string
	allowPartial bool
}

var mergeSpecs = []getopt.Spec[mergeOptions]{
	getopt.New('o', "output", "file", "", func(o *mergeOptions, v string) error { o.out = v; return nil }),
	getopt.New(0, "allow-partial", "", "", func(o *mergeOptions, _ string) error { o.allowPartial = true; return nil }),
	getopt.New(0, "threshold", "expr", "", func(o *mergeOptions, v string) error {
		if _, err := threshold.Parse(v); err != nil {
			return getopt.Errorf(false, "--threshold %q: %v", v, err)
		}
		o.thresholds = append(o.thresholds, v)
		return nil
	}),
}

// mergeCmd is gb merge: the results of a split load made one.
func mergeCmd(args []string, stdout, stderr io.Writer, _ <-chan os.Signal) int {
	var mo mergeOptions
	files, err := getopt.ParseAnywhere(args, mergeSpecs, &mo)
	if err == nil && len(files) == 0 {
		err = getopt.Errorf(false, "want the result files to merge (gb merge --help)")
	}
	if err != nil {
		return failAs(stderr, "gb merge", asUsage(err), nil)
	}
	if err := distinctFiles(files); err != nil {
		return failAs(stderr, "gb merge", err, nil)
	}
	rs := make([]*gb.Result, len(files))
	for i, f := range files {
		if rs[i], err = readPart(f); err != nil {
			inputError(stderr, "merge", f, err)
			return exitFailure
		}
	}
	res, err := merge(rs, mo.allowPartial)
	if err != nil {
		return failAs(stderr, "gb merge", err, nil)
	}
	if err := report.Text(stdout, res, report.Options{}); err != nil {
		return failAs(stderr, "gb merge", err, nil)
	}
	ts, _ := threshold.ParseAll(mo.thresholds) // each was parsed with its flag
	verdicts := threshold.Evaluate(ts, res)
	if len(ts) > 0 {
		_ = threshold.WriteText(stdout, verdicts)
	}
	if err := writeAll([]reportFile{{"-o", mo.out, func(w io.Writer) error { return report.JSON(w, res) }}}, stdout); err != nil {
		return failAs(stderr, "gb merge", err, nil)
	}
	if !threshold.Passed(verdicts) {
		return exitThresholds
	}
	return exitOK
}

// merge merges the parts; with allowPartial, also some of the shards of
// a split load. The error for missing shards says how to merge them.
func merge(rs []*gb.Result, allowPartial bool) (*gb.Result, error) {
	if allowPartial {
		return gb.MergePartial(rs...)
	}
	res, err := gb.Merge(rs...)
	var miss *gb.MissingShardsError
	if errors.As(err, &miss) {
		return nil, fmt.Errorf("%v; --allow-partial merges them anyway", err)
	}
	return res, err
}

// distinctFiles refuses a file given twice, under one name or two (a
// link, another path): merging it twice would count its requests twice.
func distinctFiles(files []string) error {
	infos := make([]os.FileInfo, len(files))
	for i, f := range files {
		infos[i], _ = os.Stat(f) // a file that cannot be read fails later, with its reason
		for j := range i {
			if infos[i] != nil && infos[j] != nil && os.SameFile(infos[i], infos[j]) {
				return fmt.Errorf("%s and %s are the same file: each part is merged once", files[j], f)
			}
		}
	}
	return nil
}

// readPart reads one part of a split load: a gb --json file, or a pod's
// log, where gb's text report (stderr) precedes its JSON (stdout, --json -).
// A file of repeated runs is refused: each part must be one run.
func readPart(path string) (*gb.Result, error) {
	b, err := stats.ReadResultFile(path)
	if err != nil {
		return nil, unwrapPath(err)
	}
	rs, err := stats.ReadRuns(bytes.NewReader(jsonPart(b)))
	if err != nil {
		return nil, err
	}
	if len(rs.Runs) != 1 {
		return nil, fmt.Errorf("holds %d runs (--repeat); merge takes one run per file", len(rs.Runs))
	}
	return rs.Runs[0], nil
}

// jsonPart returns b from its first line that opens a JSON object: all of
// b for a JSON file, the JSON after the text report for a pod log (no
// line of gb's text report starts with "{").
func jsonPart(b []byte) []byte {
	if len(b) > 0 && b[0] == '{' {
		return b
	}
	if i := bytes.Index(b, []byte("\n{")); i >= 0 {
		return b[i+1:]
	}
	return b
}
