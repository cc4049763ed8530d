package chart_test

import (
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/gb-bench/gb/internal/chart"
)

// labels returns the labels of the labelled ticks, space-separated.
func labels(ticks []chart.Tick) string {
	var out []string
	for _, t := range ticks {
		if t.Label != "" {
			out = append(out, t.Label)
		}
	}
	return strings.Join(out, " ")
}

// TestNiceTicksLabels checks the linear axes' labels: round steps, just
// the decimals needed, no "-0".
func TestNiceTicksLabels(t *testing.T) {
	for _, c := range []struct {
		lo, hi float64
		want   string
	}{
		{0, 1250, "0 250 500 750 1000 1250"},
		{-0.0001, 0.31, "0.0 0.1 0.2 0.3"},
		{0, 2.08, "0.0 0.5 1.0 1.5 2.0"},
		{0, 7, "0 2 4 6"},
		{0, 0.0042, "0.000 0.001 0.002 0.003 0.004"},
		{-30, 30, "-30 -20 -10 0 10 20 30"},
		{5, 5, "5"},
	} {
		if got := labels(chart.NiceTicks(c.lo, c.hi)); got != c.want {
			t.Errorf("ticks of [%v, %v]: %q, want %q", c.lo, c.hi, got, c.want)
		}
	}
}

// TestNiceTicksCoverData checks, over ranges from tiny to huge, that the
// labelled ticks are 4 to 8 round numbers (a step of 1, 2, 2.5 or 5
// times a power of ten, every value a whole number of steps) inside the
// range and covering it to within a step at each end, and that every
// label reads back as its value.
func TestNiceTicksCoverData(t *testing.T) {
	for _, r := range [][2]float64{{0, 1}, {0, 3.7}, {0, 97}, {0, 1234567}, {0, 1.5e300}, {1e-9, 7e-9}, {-5, 5}, {100, 101}, {0, 6}, {0, 0.0042}} {
		lo, hi := r[0], r[1]
		var vals []float64
		for _, tk := range chart.NiceTicks(lo, hi) {
			if tk.Label == "" {
				continue
			}
			if math.IsNaN(tk.Value) || math.IsInf(tk.Value, 0) {
				t.Fatalf("[%v, %v]: tick %v", lo, hi, tk.Value)
			}
			if v, err := strconv.ParseFloat(tk.Label, 64); err != nil || math.Abs(v-tk.Value) > 1e-9*math.Max(1, math.Abs(tk.Value)) {
				t.Errorf("[%v, %v]: label %q for %v", lo, hi, tk.Label, tk.Value)
			}
			vals = append(vals, tk.Value)
		}
		if len(vals) < 3 || len(vals) > 8 {
			t.Errorf("[%v, %v]: %d labelled ticks %v", lo, hi, len(vals), vals)
			continue
		}
		step := vals[1] - vals[0]
		mant := step / math.Pow(10, math.Floor(math.Log10(step)))
		if !near(mant, 1) && !near(mant, 2) && !near(mant, 2.5) && !near(mant, 5) {
			t.Errorf("[%v, %v]: step %v is not 1, 2, 2.5 or 5 times a power of ten", lo, hi, step)
		}
		for _, v := range vals {
			if k := v / step; !near(k, math.Round(k)) {
				t.Errorf("[%v, %v]: tick %v is not a whole number of steps of %v", lo, hi, v, step)
			}
		}
		first, last := vals[0], vals[len(vals)-1]
		if first < lo-step*1e-6 || first > lo+step || last > hi+step*1e-6 || last < hi-step {
			t.Errorf("[%v, %v]: ticks %v..%v (step %v) do not cover the data", lo, hi, first, last, step)
		}
	}
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-6*math.Max(1, math.Abs(b)) }

// TestLogTicks checks a log axis's ticks: the powers of ten labelled,
// the minor ticks between them not, all inside the range.
func TestLogTicks(t *testing.T) {
	ticks := chart.LogTicks(0.05, 300)
	if got := labels(ticks); got != "0.1 1 10 100" {
		t.Errorf("labels %q", got)
	}
	for _, tk := range ticks {
		if tk.Value < 0.05 || tk.Value > 300 {
			t.Errorf("tick %v outside [0.05, 300]", tk.Value)
		}
	}
	if n := len(ticks); n != 5+9+9+9+3 { // 0.05..0.09, 0.1..0.9, 1..9, 10..90, 100..300
		t.Errorf("%d ticks", n)
	}
	for _, bad := range [][2]float64{{0, 10}, {-1, 10}, {10, 1}, {1, math.Inf(1)}} {
		if got := chart.LogTicks(bad[0], bad[1]); got != nil {
			t.Errorf("LogTicks(%v, %v) = %v, want none", bad[0], bad[1], got)
		}
	}
}
