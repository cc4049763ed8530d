package report

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"slices"

	"github.com/gb-bench/gb/stats"
)

// CSV writes ab's -e file for r: the header "Percentage served,Time in ms"
// and 101 rows "i,ms" (ms with three decimals) of the total-time
// distribution, i = 0..100. Row 0 is the fastest response, row 100 the
// slowest, and row i the element at index (int)(0.5 + n*i/100.0) of the
// responses sorted by total time, clamped to the last (ab reads past its
// array there). The rows come from r.Samples when the run kept them, else
// from the Total histogram by the same index rule. With no complete
// response only the header is written; ab writes no file then, so the
// caller should not call CSV.
func CSV(w io.Writer, r *stats.Result) error {
	b := bufio.NewWriter(w)
	fmt.Fprint(b, "Percentage served,Time in ms\n")
	if r.Complete() > 0 {
		row := newRanks(r.Latency[stats.Total]).csvRow
		if r.Samples != nil {
			row = sampleRows(r.Samples)
		}
		for i := 0; i <= 100; i++ {
			fmt.Fprintf(b, "%d,%.3f\n", i, float64(row(i))/1000)
		}
	}
	return b.Flush()
}

// sampleRows returns ab's -e row function over samples sorted by total time.
func sampleRows(samples []stats.Sample) func(int) int64 {
	s := sortedByTotal(samples)
	n := len(s)
	return func(i int) int64 {
		if n == 0 {
			return 0
		}
		switch i {
		case 0:
			return s[0].Total
		case 100:
			return s[n-1].Total
		}
		return s[min(int(0.5+float64(n)*float64(i)/100.0), n-1)].Total
	}
}

// sortedByTotal returns a copy of samples in ascending total time, ties
// kept in recorded order.
func sortedByTotal(samples []stats.Sample) []stats.Sample {
	s := slices.Clone(samples)
	slices.SortStableFunc(s, func(a, b stats.Sample) int { return cmp.Compare(a.Total, b.Total) })
	return s
}
