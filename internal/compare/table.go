package compare

import (
	"fmt"

	"golang.org/x/perf/benchmath"
)

// confidence is the level of the intervals around each median, as
// benchstat's.
const confidence = 0.95

// Table is the comparison of one or more inputs with the first: one Row
// per metric that every run of every input measured.
type Table struct {
	Inputs   []Input  // the base first
	Rows     []Row    // in the order of Metrics
	Warnings []string // one line per input whose configuration differs from the base's
}

// Row is one metric across the inputs.
type Row struct {
	Metric Metric
	Cells  []Cell // one per input, the base first
	// Estimated is true when the value of some run is an estimate (see
	// Metric.Estimated).
	Estimated bool
	// Zero is true when every run's value is 0; WriteText leaves out a
	// diagnosis row that is (a cause without samples, a lock nobody
	// waited on), which --max-regression still checks.
	Zero bool
}

// Cell is one input's measurements of a metric and, for every input but
// the base, its comparison with the base.
type Cell struct {
	Sample  *benchmath.Sample     // the values of the input's runs, ascending
	Summary benchmath.Summary     // median and its confidence interval
	Vs      *benchmath.Comparison // nil for the base
}

// Significant reports whether the cell differs from the base at α (the
// U test's p-value is at most α, as benchstat decides).
func (c Cell) Significant() bool { return c.Vs != nil && c.Vs.P <= c.Vs.Alpha }

// Delta returns the change of the cell's median from base's, in percent
// (+10 = 10% higher); 0 when both are 0, ±Inf when only base's is 0.
func (c Cell) Delta(base Cell) float64 {
	o, n := base.Summary.Center, c.Summary.Center
	if o == n {
		return 0
	}
	return (n/o - 1) * 100
}

// Compare compares every input after the first with the first. The
// statistics are benchmath's: no distribution is assumed, the centre is
// the median with a 95% confidence interval, and the test is Mann-Whitney's
// U at α = 0.05. It needs at least two inputs, each with a run.
func Compare(inputs ...Input) *Table {
	t := &Table{Inputs: inputs}
	base := inputs[0].Runs[0]
	for _, in := range inputs {
		for i, r := range in.Runs {
			if d := mismatch(base, r); d != "" {
				t.Warnings = append(t.Warnings, fmt.Sprintf("%s differs from %s in %s", runName(in, i), inputs[0].Name, d))
				break
			}
		}
	}
	for _, m := range Metrics() {
		if row, ok := measure(m, inputs); ok {
			t.Rows = append(t.Rows, row)
		}
	}
	return t
}

// runName names run i of in for a warning: the input, and the run when
// it is not the first.
func runName(in Input, i int) string {
	if i == 0 {
		return in.Name
	}
	return fmt.Sprintf("%s (run %d)", in.Name, i+1)
}

// measure returns m's row, and false when some run did not measure m.
func measure(m Metric, inputs []Input) (Row, bool) {
	row := Row{Metric: m, Zero: true}
	for _, in := range inputs {
		vals := make([]float64, 0, len(in.Runs))
		for _, r := range in.Runs {
			v, ok := m.Value(r)
			if !ok {
				return Row{}, false
			}
			row.Estimated = row.Estimated || m.Estimated(r)
			row.Zero = row.Zero && v == 0
			vals = append(vals, v)
		}
		s := benchmath.NewSample(vals, &benchmath.DefaultThresholds)
		c := Cell{Sample: s, Summary: benchmath.AssumeNothing.Summary(s, confidence)}
		if len(row.Cells) > 0 {
			vs := benchmath.AssumeNothing.Compare(row.Cells[0].Sample, s)
			c.Vs = &vs
		}
		row.Cells = append(row.Cells, c)
	}
	return row, true
}

// Row returns the row of the metric named key, and false when the table has none.
func (t *Table) Row(key string) (Row, bool) {
	for _, r := range t.Rows {
		if r.Metric.Key == key {
			return r, true
		}
	}
	return Row{}, false
}
