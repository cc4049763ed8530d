package report

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/gb-bench/gb/internal/fakerun"
	"github.com/gb-bench/gb/stats"
)

func TestCSVGolden(t *testing.T) {
	for _, tc := range []struct {
		file string
		r    *stats.Result
	}{
		{"csv_histogram.csv", fakerun.Build(fakerun.PlainSpec(false))},
		{"csv_samples.csv", fakerun.Build(fakerun.PlainSpec(true))},
		{"csv_tiny_samples.csv", fakerun.Build(fakerun.ConfidenceSpec(true))},
		{"csv_tiny_histogram.csv", fakerun.Build(fakerun.ConfidenceSpec(false))},
		{"csv_zero.csv", fakerun.Build(fakerun.ZeroSpec())},
	} {
		t.Run(tc.file, func(t *testing.T) {
			var b bytes.Buffer
			if err := CSV(&b, tc.r); err != nil {
				t.Fatal(err)
			}
			golden(t, tc.file, b.Bytes())
		})
	}
}

// TestCSVHistogramMatchesSamples checks that, for latencies below 2048 µs
// (where the histogram is exact), the histogram rows equal ab's rule over
// the samples, tiny runs included.
func TestCSVHistogramMatchesSamples(t *testing.T) {
	for _, n := range []int{1, 2, 3, 7, 99, 100, 101, 1000} {
		s := fakerun.PlainSpec(true)
		s.Reqs = s.Reqs[:n]
		for i := range s.Reqs {
			tm := &s.Reqs[i].T
			tm[stats.Waiting] %= 1500
			tm[stats.Processing] = tm[stats.Waiting] + 10
			tm[stats.Total] = tm[stats.Connect] + tm[stats.Processing]
		}
		withSamples := fakerun.Build(s)
		fromHist := *withSamples
		fromHist.Samples = nil
		var a, b bytes.Buffer
		if err := CSV(&a, withSamples); err != nil {
			t.Fatal(err)
		}
		if err := CSV(&b, &fromHist); err != nil {
			t.Fatal(err)
		}
		if a.String() != b.String() {
			t.Errorf("n=%d: CSV from samples and from histogram differ:\n%s\nvs\n%s", n, a.String(), b.String())
		}
		if lines := strings.Count(a.String(), "\n"); lines != 102 {
			t.Errorf("n=%d: %d lines, want 102", n, lines)
		}
	}
}

func TestGnuplotGolden(t *testing.T) {
	s := fakerun.HTTPSSpec()
	s.Samples = true
	s.Reqs = s.Reqs[:40]
	var b bytes.Buffer
	if err := Gnuplot(&b, fakerun.Build(s), time.UTC); err != nil {
		t.Fatal(err)
	}
	golden(t, "gnuplot_samples.tsv", b.Bytes())

	b.Reset()
	if err := Gnuplot(&b, fakerun.Build(fakerun.PlainSpec(false)), time.UTC); err != nil {
		t.Fatal(err)
	}
	golden(t, "gnuplot_nosamples.tsv", b.Bytes())
}

// TestGnuplotDate checks apr_ctime's zero-padded day and the five date
// tokens that gnuplot's "using 9" counts on.
func TestGnuplotDate(t *testing.T) {
	start := time.Date(2026, 3, 5, 7, 8, 9, 0, time.UTC).UnixMicro()
	r := &stats.Result{Samples: []stats.Sample{{Start: start, Connect: 1499, Processing: 1500, Total: 2999, Waiting: 500}}}
	var b bytes.Buffer
	if err := Gnuplot(&b, r, time.UTC); err != nil {
		t.Fatal(err)
	}
	row := strings.Split(b.String(), "\n")[1]
	if want := "Thu Mar 05 07:08:09 2026\t1772694489\t1\t2\t3\t1"; row != want {
		t.Errorf("row = %q, want %q", row, want)
	}
	if f := strings.Fields(row); len(f) != 10 || f[8] != "3" {
		t.Errorf("whitespace fields = %q, want 10 with the total time 9th", f)
	}
}

func TestJSONGolden(t *testing.T) {
	var b bytes.Buffer
	if err := JSON(&b, fakerun.Build(fakerun.FailuresSpec())); err != nil {
		t.Fatal(err)
	}
	if !bytes.HasSuffix(b.Bytes(), []byte("}\n")) {
		t.Errorf("JSON does not end with a newline")
	}
	golden(t, "result.json", b.Bytes())
}
