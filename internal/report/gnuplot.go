package report

import (
	"bufio"
	"fmt"
	"io"
	"time"

	"github.com/gb-bench/gb/stats"
)

// ctimeLayout is APR's apr_ctime format: the day of the month is
// zero-padded, unlike time.ANSIC, so a date is always five
// whitespace-separated tokens and gnuplot's "using 9" is the total time.
const ctimeLayout = "Mon Jan 02 15:04:05 2006"

// Gnuplot writes ab's -g file for r: a header line, then one
// tab-separated row per response in ascending total time (ties in recorded
// order): start date in loc (nil means time.Local) as apr_ctime, start in
// Unix seconds, then connect, processing, total and waiting time in whole
// ms (ap_round_ms). The rows need r.Samples; without them only the header
// is written.
func Gnuplot(w io.Writer, r *stats.Result, loc *time.Location) error {
	if loc == nil {
		loc = time.Local
	}
	b := bufio.NewWriter(w)
	fmt.Fprint(b, "starttime\tseconds\tctime\tdtime\tttime\twait\n")
	for _, s := range sortedByTotal(r.Samples) {
		fmt.Fprintf(b, "%s\t%d\t%d\t%d\t%d\t%d\n",
			time.UnixMicro(s.Start).In(loc).Format(ctimeLayout), s.Start/1e6,
			roundMS(s.Connect), roundMS(s.Processing), roundMS(s.Total), roundMS(s.Waiting))
	}
	return b.Flush()
}
