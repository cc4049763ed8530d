package stats

import (
	"math"
	"testing"
)

func TestExactMatchesTwoPass(t *testing.T) {
	vals := []int64{5, 1, 900, 17, 17, 3, 250000, 42, 0, 8}
	var all, a, b Exact
	for i, v := range vals {
		all.Add(v)
		if i%3 == 0 {
			a.Add(v)
		} else {
			b.Add(v)
		}
	}
	a.Merge(&b)
	var sum float64
	for _, v := range vals {
		sum += float64(v)
	}
	mean := sum / float64(len(vals))
	var ss float64
	for _, v := range vals {
		ss += (float64(v) - mean) * (float64(v) - mean)
	}
	want := math.Sqrt(ss / float64(len(vals)-1))
	for name, e := range map[string]*Exact{"sequential": &all, "merged": &a} {
		if e.Count != 10 || e.Sum != int64(sum) || e.Min != 0 || e.Max != 250000 {
			t.Errorf("%s: %+v", name, e)
		}
		if math.Abs(e.StdDev()-want) > 1e-6*want {
			t.Errorf("%s: sd %f, want %f", name, e.StdDev(), want)
		}
	}
}

func TestExactEdgeCases(t *testing.T) {
	var e, empty Exact
	if e.StdDev() != 0 || e.Mean() != 0 {
		t.Error("empty Exact must report 0")
	}
	e.Add(7)
	if e.StdDev() != 0 || e.Min != 7 || e.Max != 7 {
		t.Errorf("one sample: %+v sd %f", e, e.StdDev())
	}
	e.Merge(&empty)
	empty.Merge(&e)
	if empty.Count != 1 || empty.Mean() != 7 {
		t.Errorf("merge into empty: %+v", empty)
	}
}

func TestCheckCatchesBrokenAccounting(t *testing.T) {
	res := &Result{Counts: Counts{Dispatched: 3}}
	res.Counts.Outcomes[OK] = 2
	if errs := res.Check(); len(errs) != 1 {
		t.Errorf("I2 violation not reported: %v", errs)
	}
}
