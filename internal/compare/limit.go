package compare

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Limit is one --max-regression: the largest change of a metric's median
// that is accepted, in the metric's bad direction.
type Limit struct {
	Metric Metric
	Pct    float64 // the accepted change in percent, signed in the bad direction: +10 for p99, -5 for rps
	Expr   string  // as written
}

// ParseLimit parses "METRIC=±N%", e.g. "p99=+10%" (p99 may grow by 10%)
// or "rps=-5%" (req/s may fall by 5%). The sign may be left out; when
// given, it must be the metric's bad direction (+ for latency, errors and
// costs, - for rps).
func ParseLimit(expr string) (Limit, error) {
	key, val, ok := strings.Cut(expr, "=")
	if !ok {
		return Limit{}, fmt.Errorf("max-regression %q: want METRIC=+N%% or METRIC=-N%%, e.g. p99=+10%%", expr)
	}
	m, ok := MetricByKey(strings.TrimSpace(key))
	if !ok {
		return Limit{}, fmt.Errorf("max-regression %q: unknown metric %q (one of %s)", expr, key, keys())
	}
	val = strings.TrimSpace(val)
	num, ok := strings.CutSuffix(val, "%")
	if !ok {
		return Limit{}, fmt.Errorf("max-regression %q: the limit must be a percentage, e.g. %s=%s", expr, m.Key, example(m))
	}
	pct, err := strconv.ParseFloat(num, 64)
	if err != nil || pct != pct || pct > 1e6 || pct < -1e6 || (m.HigherIsBetter && pct < -100) {
		return Limit{}, fmt.Errorf("max-regression %q: bad percentage %q", expr, val)
	}
	signed := strings.HasPrefix(num, "+") || strings.HasPrefix(num, "-")
	if signed && pct != 0 && (pct < 0) != m.HigherIsBetter {
		return Limit{}, fmt.Errorf("max-regression %q: %s regresses the other way, write %s=%s", expr, m.Key, m.Key, example(m))
	}
	if m.HigherIsBetter {
		pct = -abs(pct)
	} else {
		pct = abs(pct)
	}
	return Limit{Metric: m, Pct: pct, Expr: expr}, nil
}

// example is a limit in m's bad direction.
func example(m Metric) string {
	if m.HigherIsBetter {
		return "-5%"
	}
	return "+10%"
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

// Verdict is a Limit checked against one compared input.
type Verdict struct {
	Limit  Limit
	Input  string  // the compared input's name
	Delta  float64 // the change of the median in percent (valid when Measured)
	P      float64 // the U test's p-value
	Signif bool    // the change is significant at α
	// Measured is false when the table has no row for the metric (a run
	// did not measure it); such a verdict fails.
	Measured bool
	Failed   bool // a significant change beyond the limit, or not measured
}

// ErrRegression is returned by Check when a verdict failed.
var ErrRegression = errors.New("compare: regression beyond a limit")

// Check checks every limit against every input compared with the base, in
// order, and returns the verdicts; the error is ErrRegression when one of
// them failed. A change fails when it is significant (p ≤ α) and beyond the
// limit in the bad direction; a metric the table lacks fails too, since
// what was not measured cannot pass a gate.
func (t *Table) Check(limits []Limit) ([]Verdict, error) {
	var vs []Verdict
	var err error
	for _, l := range limits {
		row, ok := t.Row(l.Metric.Key)
		for i := 1; i < len(t.Inputs); i++ {
			v := Verdict{Limit: l, Input: t.Inputs[i].Name, Measured: ok, Failed: !ok}
			if ok {
				c := row.Cells[i]
				v.Delta, v.P, v.Signif = c.Delta(row.Cells[0]), c.Vs.P, c.Significant()
				beyond := v.Delta > l.Pct
				if l.Metric.HigherIsBetter {
					beyond = v.Delta < l.Pct
				}
				v.Failed = v.Signif && beyond
			}
			if v.Failed {
				err = ErrRegression
			}
			vs = append(vs, v)
		}
	}
	return vs, err
}

// String is one line for the report: the limit, the input, the change and
// the verdict.
func (v Verdict) String() string {
	s := fmt.Sprintf("%s: %s ", v.Limit.Expr, v.Input)
	switch {
	case !v.Measured:
		return s + "not measured in every run: FAIL"
	case !v.Signif:
		s += fmt.Sprintf("~ (p=%.3f)", v.P)
	default:
		s += fmt.Sprintf("%s (p=%.3f)", formatPct(v.Delta), v.P)
	}
	if v.Failed {
		return s + ": FAIL"
	}
	return s + ": ok"
}
