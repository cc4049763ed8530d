package report

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/gb-bench/gb/internal/realrun"
	"github.com/gb-bench/gb/stats"
)

// histogramLine is one bucket line: upper bound in ms, count, bar.
var histogramLine = regexp.MustCompile(`^  +([0-9.]+) \[([0-9]+)\] *\|(■*)$`)

// TestLatencyHistogram: on a real run the buckets hold every response,
// their bounds rise to the exact maximum, the longest bar belongs to the
// largest count, and no line could be mistaken for ab's.
func TestLatencyHistogram(t *testing.T) {
	r := realrun.Run(t, 1000, nil)
	var b bytes.Buffer
	if err := LatencyHistogram(&b, r, 0); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != 2+DefaultBuckets || lines[0] != "" || lines[1] != "latency histogram (ms, total):" {
		t.Fatalf("histogram:\n%s", out)
	}
	for _, f := range forbidden {
		if strings.Contains(out, f) || percentToken.MatchString(out) {
			t.Errorf("the histogram contains an ab label or a percent token:\n%s", out)
		}
	}
	var sum, most int64
	var mostBar, prev float64
	for _, l := range lines[2:] {
		m := histogramLine.FindStringSubmatch(l)
		if m == nil {
			t.Fatalf("bad line %q", l)
		}
		edge, _ := strconv.ParseFloat(m[1], 64)
		n, _ := strconv.ParseInt(m[2], 10, 64)
		if edge <= prev {
			t.Errorf("bounds do not rise: %q after %v", l, prev)
		}
		prev, sum = edge, sum+n
		if n > most {
			most, mostBar = n, float64(utf8.RuneCountInString(m[3]))
		}
	}
	if sum != r.Complete() || mostBar != histogramBar || prev != float64(r.Latency[stats.Total].Max)/1000 {
		t.Errorf("counts sum to %d of %d, longest bar %v, last bound %v (max %d µs):\n%s", sum, r.Complete(), mostBar, prev,
			r.Latency[stats.Total].Max, out)
	}
	b.Reset()
	if err := LatencyHistogram(&b, &stats.Result{}, 5); err != nil || b.Len() != 0 {
		t.Errorf("a run without responses: %q, %v", b.String(), err)
	}
}
