package threshold

import (
	"strings"
	"testing"

	"github.com/gb-bench/gb/stats"
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		expr string
		want Threshold
		text string // Canonical
	}{
		{"p99<50ms", Threshold{Kind: Latency, Phase: stats.Total, Stat: "p99", P: 99, Op: Less, Value: 50000, Unit: "ms"}, "p99<50ms"},
		{" corrected.p99.9 < 200ms ", Threshold{Kind: Latency, Phase: stats.Corrected, Stat: "p99.9", P: 99.9, Op: Less, Value: 200000, Unit: "ms"}, "corrected.p99.9<200ms"},
		{"waiting.p95<=20ms", Threshold{Kind: Latency, Phase: stats.Waiting, Stat: "p95", P: 95, Op: LessEq, Value: 20000, Unit: "ms"}, "waiting.p95<=20ms"},
		{"total.max<1.5s", Threshold{Kind: Latency, Phase: stats.Total, Stat: "max", Op: Less, Value: 1.5e6, Unit: "s"}, "max<1.5s"},
		{"median>=10µs", Threshold{Kind: Latency, Phase: stats.Total, Stat: "p50", P: 50, Op: GreaterEq, Value: 10, Unit: "us"}, "p50>=10us"},
		{"lag.mean<1us", Threshold{Kind: Latency, Phase: stats.Lag, Stat: "mean", Op: Less, Value: 1, Unit: "us"}, "lag.mean<1us"},
		{"errors<0.1%", Threshold{Kind: Errors, Rate: true, Op: Less, Value: 0.001}, "errors<0.1pct"},
		{"errors==0", Threshold{Kind: Errors, Op: Equal, Value: 0}, "errors=0"},
		{"non2xx=0", Threshold{Kind: Non2xx, Op: Equal, Value: 0}, "non2xx=0"},
		{"non2xx<5%", Threshold{Kind: Non2xx, Rate: true, Op: Less, Value: 0.05}, "non2xx<5pct"},
		{"rps>=1000", Threshold{Kind: RPS, Op: GreaterEq, Value: 1000}, "rps>=1000"},
		{"rps>2.5/s", Threshold{Kind: RPS, Op: Greater, Value: 2.5}, "rps>2.5"},
	} {
		got, err := Parse(tc.expr)
		if err != nil {
			t.Errorf("%q: %v", tc.expr, err)
			continue
		}
		tc.want.Expr = strings.TrimSpace(tc.expr)
		if got.P != tc.want.P || got.Value-tc.want.Value > 1e-9 || tc.want.Value-got.Value > 1e-9 {
			t.Errorf("%q: %+v, want %+v", tc.expr, got, tc.want)
		}
		got.P, got.Value = tc.want.P, tc.want.Value
		if got != tc.want || got.Canonical() != tc.text {
			t.Errorf("%q: %+v (%s), want %+v (%s)", tc.expr, got, got.Canonical(), tc.want, tc.text)
		}
	}
}

// TestParseErrors: malformed expressions give one line that quotes the
// expression and says what is wrong.
func TestParseErrors(t *testing.T) {
	for expr, why := range map[string]string{
		"p99":             "no comparison",
		"<5ms":            "no comparison",
		"p99<50":          "needs a unit",
		"p99<50h":         "needs a unit",
		"p99<-5ms":        "not a non-negative number",
		"p99<ms":          "not a non-negative number",
		"p0<5ms":          "out of range",
		"p101<5ms":        "out of range",
		"p1e2<5ms":        "unknown metric",
		"bogus.p99<5ms":   "unknown metric",
		"latency<5ms":     "unknown metric",
		"errors<0.5":      "whole number",
		"errors<101%":     "more than all",
		"errors<3ms":      "a count takes none",
		"rps>5%":          "rps takes none",
		"p99<NaNms":       "not a non-negative number",
		"p99<1.2.3ms":     "not a non-negative number",
		"p99=<5ms":        "not a non-negative number",
		"corrected.p99<5": "needs a unit",
	} {
		_, err := Parse(expr)
		if err == nil {
			t.Errorf("%q: accepted", expr)
			continue
		}
		msg := err.Error()
		if !strings.Contains(msg, why) || !strings.Contains(msg, `"`+expr+`"`) || strings.Contains(msg, "\n") {
			t.Errorf("%q: error %q, want one line quoting it and saying %q", expr, msg, why)
		}
	}
	if _, err := ParseAll([]string{"p99<5ms", "p99<5"}); err == nil || !strings.Contains(err.Error(), `"p99<5"`) {
		t.Errorf("ParseAll: %v", err)
	}
}
