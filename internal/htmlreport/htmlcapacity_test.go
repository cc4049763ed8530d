package htmlreport

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/gb-bench/gb/internal/capacity"
)

// capacityFixture is a search of a server that holds p99 at 12 ms up to
// about 1 800 req/s, with one rerun for a short pool and a hostile URL.
func capacityFixture(status capacity.Status) *capacity.Report {
	probe := func(rate int64, p99 int64, pass bool, reason string) capacity.Probe {
		return capacity.Probe{Rate: rate, Conns: 40, Achieved: float64(rate), P50: 11000, P99: p99, Pass: pass, Reason: reason}
	}
	retried := probe(3200, 900000, false, "achieved 1 810 req/s")
	retried.Retry = capacity.RetryPool
	return &capacity.Report{GBVersion: "0.1.0", Command: []string{"capacity", "--slo", "p99<50ms"},
		URL: "http://127.0.0.1:1/<script>", SLOs: []string{"p99<50ms", "errors<1%"}, StepTime: 10 * time.Second, Warmup: 2 * time.Second,
		Outcome: capacity.Outcome{Status: status, Capacity: 1800, Failed: 1850, Precision: 0.05, RateMin: 400, RateMax: 1e6,
			Probes: []capacity.Probe{probe(400, 12000, true, ""), probe(800, 12500, true, ""), probe(1600, 14000, true, ""),
				retried, probe(3200, 1900000, false, "p99 1900 ms"), probe(2400, 1000000, false, "p99 1000 ms"),
				probe(1800, 22000, true, ""), probe(1850, 250000, false, "p99 250 ms")}}}
}

// TestHTMLCapacityReport checks the page of a search: self-contained,
// the answer and cards, the chart with the SLO line and the capacity, a
// row per probe, the hostile URL escaped.
func TestHTMLCapacityReport(t *testing.T) {
	var b bytes.Buffer
	if err := Capacity(&b, capacityFixture(capacity.Found)); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	if m := external.FindString(page); m != "" {
		t.Errorf("the page refers to something outside it: %q", m)
	}
	for _, want := range []string{"1 800 req/s", "next probe 1 850 req/s failed: p99 250 ms", "a bracket of 2.8%",
		"SLO p99&lt;50ms", "capacity: 1 800 req/s", "failed probe", "rerun (more connections): achieved 1 810 req/s",
		"http://127.0.0.1:1/&lt;script&gt;", "<svg"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if n := strings.Count(page, "<tr>") - 1; n != 8 { // less the header row
		t.Errorf("%d probe rows, want 8", n)
	}
	if strings.Contains(page, "<script>") {
		t.Error("the URL is not escaped")
	}
	if err := Capacity(&b, &capacity.Report{}); err == nil {
		t.Error("a search without probes was rendered")
	}
	b.Reset()
	if err := Capacity(&b, capacityFixture(capacity.BelowMin)); err != nil {
		t.Fatal(err)
	}
}
