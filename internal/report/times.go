package report

import (
	"fmt"
	"io"
	"math"

	"github.com/gb-bench/gb/stats"
)

// timesRow is one row of ab's Connection Times table, in whole ms except
// sd. The zero value is a phase without samples.
type timesRow struct {
	min, mean, median, max int64
	sd                     float64
}

// newTimesRow computes a row as ab does: min, max and median rounded with
// ap_round_ms; the mean rounded after an integer µs division; the sample
// standard deviation in ms.
func newTimesRow(d *stats.Dist) timesRow {
	if d == nil || d.Count == 0 {
		return timesRow{}
	}
	return timesRow{
		min:    roundMS(d.Min),
		mean:   roundMS(d.Sum / d.Count),
		median: roundMS(newRanks(d).median()),
		max:    roundMS(d.Max),
		sd:     d.StdDev() / 1000,
	}
}

// timesPhases are the Connection Times rows: label, phase and the words of
// ab's reliability warning.
var timesPhases = []struct {
	label string
	phase stats.Phase
	what  string
}{
	{"Connect:    ", stats.Connect, "the initial connection time"},
	{"Processing: ", stats.Processing, "the processing time"},
	{"Waiting:    ", stats.Waiting, "the waiting time"},
	{"Total:      ", stats.Total, "the total time"},
}

// writeTimes writes ab's Connection Times block: the full table and the
// median/mean warnings, or with -S the min/avg/max table (whose missing
// space before max is ab's).
func writeTimes(w io.Writer, r *stats.Result, o Options) {
	fmt.Fprint(w, "\nConnection Times (ms)\n")
	var rows [4]timesRow
	for i, p := range timesPhases {
		rows[i] = newTimesRow(r.Latency[p.phase])
	}
	if o.NoConfidence {
		fmt.Fprint(w, "              min   avg   max\n")
		for i, p := range timesPhases {
			fmt.Fprintf(w, "%s%5d %5d%5d\n", p.label, rows[i].min, rows[i].mean, rows[i].max)
		}
		return
	}
	fmt.Fprint(w, "              min  mean[+/-sd] median   max\n")
	for i, p := range timesPhases {
		t := rows[i]
		fmt.Fprintf(w, "%s%5d %4d %5.1f %6d %7d\n", p.label, t.min, t.mean, t.sd, t.median, t.max)
	}
	for i, p := range timesPhases {
		writeSanity(w, p.what, rows[i])
	}
}

// writeSanity writes ab's ERROR or WARNING when a row's mean and median (in
// whole ms) are more than two, or more than one, standard deviations apart.
func writeSanity(w io.Writer, what string, t timesRow) {
	d := math.Abs(float64(t.mean) - float64(t.median))
	switch {
	case d > 2*t.sd:
		fmt.Fprintf(w, "ERROR: The median and mean for %s are more than twice the standard\n"+
			"       deviation apart. These results are NOT reliable.\n", what)
	case d > t.sd:
		fmt.Fprintf(w, "WARNING: The median and mean for %s are not within a normal deviation\n"+
			"        These results are probably not that reliable.\n", what)
	}
}

// abPercentiles are the rows of ab's percentile table below 100.
var abPercentiles = []int64{50, 66, 75, 80, 90, 95, 98, 99}

// writePercentiles writes ab's percentile table of total times.
func writePercentiles(w io.Writer, r *stats.Result) {
	total := newRanks(r.Latency[stats.Total])
	fmt.Fprint(w, "\nPercentage of the requests served within a certain time (ms)\n")
	for _, p := range abPercentiles {
		fmt.Fprintf(w, "  %d%%  %5d\n", p, roundMS(total.percentile(p)))
	}
	fmt.Fprintf(w, " 100%%  %5d (longest request)\n", roundMS(total.max))
}
