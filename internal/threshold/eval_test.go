package threshold

import (
	"bytes"
	"encoding/xml"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gb-bench/gb/internal/realrun"
	"github.com/gb-bench/gb/stats"
)

// evaluate parses exprs and measures them on r.
func evaluate(t *testing.T, r *stats.Result, exprs ...string) []Result {
	t.Helper()
	ts, err := ParseAll(exprs)
	if err != nil {
		t.Fatal(err)
	}
	return Evaluate(ts, r)
}

// TestRealRun: on a real run against gb's test server, an impossible
// latency bound fails and a generous one passes, each with the report's
// own numbers; the counts and shares come from the run's outcomes.
func TestRealRun(t *testing.T) {
	r := realrun.Run(t, 100, nil)
	rs := evaluate(t, r, "p99<1us", "p99<10s", "errors=0", "errors<0.1%", "non2xx=0", "rps>=1", "rps>1e12",
		"corrected.p99<1s", "waiting.p95<=10s", "max>=1us")
	want := []bool{false, true, true, true, true, true, false, false, true, true}
	for i, res := range rs {
		if res.Pass != want[i] {
			t.Errorf("%s: pass=%v measured %s, want pass=%v", res.Expr, res.Pass, res.MeasuredText(), want[i])
		}
	}
	if p99 := float64(r.Latency[stats.Total].Percentile(99)); rs[0].Measured != p99 || !rs[0].Known {
		t.Errorf("p99 measured %v, the report's %v", rs[0].Measured, p99)
	}
	if rs[5].Measured != r.RPS() || rs[7].Known || rs[7].MeasuredText() != "none" {
		t.Errorf("rps %v (run %v); corrected outside rate mode: %+v", rs[5].Measured, r.RPS(), rs[7])
	}
	if Passed(rs) || Failures(rs) != 3 {
		t.Errorf("passed %v, %d failures", Passed(rs), Failures(rs))
	}
}

// TestErrorShares: errors and non2xx count the run's outcomes; shares are
// of the requests that ended on their own (aborted ones excluded).
func TestErrorShares(t *testing.T) {
	r := &stats.Result{}
	o := &r.Counts.Outcomes
	o[stats.OK], o[stats.Non2xx], o[stats.FailReset], o[stats.TimeoutTotal], o[stats.AbortedSignal] = 90, 5, 3, 2, 50
	rs := evaluate(t, r, "errors<=5", "errors<2%", "errors<=2%", "non2xx=5", "non2xx<5%")
	for i, want := range []struct {
		measured float64
		pass     bool
	}{{5, true}, {0.05, false}, {0.05, false}, {5, true}, {0.05, false}} {
		if d := rs[i].Measured - want.measured; d > 1e-12 || d < -1e-12 || rs[i].Pass != want.pass {
			t.Errorf("%s: measured %v pass %v, want %v %v", rs[i].Expr, rs[i].Measured, rs[i].Pass, want.measured, want.pass)
		}
	}
}

// abLabels are what ab parsers match; gb's sections must not contain them.
var abLabels = regexp.MustCompile(`Complete requests:|Failed requests:|Requests per second:|Time per request:|Transfer rate:|Total:|Non-2xx responses:|[0-9]%`)

func TestWriteText(t *testing.T) {
	r := realrun.Run(t, 50, nil)
	rs := evaluate(t, r, "p99<1us", "errors<0.1%", "non2xx<1%", "total.p99.9<10s")
	var b bytes.Buffer
	if err := WriteText(&b, rs); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if m := abLabels.FindString(out); m != "" {
		t.Errorf("the section contains %q, which ab parsers match:\n%s", m, out)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != 7 || lines[0] != "" || lines[1] != "thresholds:" || lines[6] != "  verdict:              FAIL (1 of 4 failed)" {
		t.Fatalf("section:\n%s", out)
	}
	for i, prefix := range []string{"  p99<1us:              FAIL (measured ", "  errors<0.1pct:        pass (measured 0.000pct)",
		"  non2xx<1pct:          pass (measured 0.000pct)", "  p99.9<10s:            pass (measured 0."} {
		if !strings.HasPrefix(lines[i+2], prefix) {
			t.Errorf("line %q, want prefix %q", lines[i+2], prefix)
		}
	}
}

// TestWriteJUnit: the XML parses back with one testcase per threshold and
// a failure for each that did not pass.
func TestWriteJUnit(t *testing.T) {
	r := realrun.Run(t, 50, nil)
	rs := evaluate(t, r, "p99<1us", "p99<10s", "rps>=1")
	var b bytes.Buffer
	start := time.Date(2026, 11, 24, 23, 0, 0, 0, time.UTC)
	if err := WriteJUnit(&b, Suite{Name: "http://127.0.0.1/ <&>", Start: start, Elapsed: 1500 * time.Millisecond}, rs); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Suite    struct {
			Name      string  `xml:"name,attr"`
			Time      float64 `xml:"time,attr"`
			Timestamp string  `xml:"timestamp,attr"`
			Cases     []struct {
				Name    string `xml:"name,attr"`
				Failure *struct {
					Message string `xml:"message,attr"`
				} `xml:"failure"`
				Out string `xml:"system-out"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatalf("%v:\n%s", err, b.String())
	}
	s := doc.Suite
	if doc.Tests != 3 || doc.Failures != 1 || s.Name != "http://127.0.0.1/ <&>" || s.Time != 1.5 || s.Timestamp != "2026-11-24T23:00:00" || len(s.Cases) != 3 {
		t.Fatalf("parsed %+v from:\n%s", doc, b.String())
	}
	if c := s.Cases[0]; c.Name != "p99<1us" || c.Failure == nil || !strings.HasPrefix(c.Failure.Message, "p99<1us: measured ") {
		t.Errorf("failing case %+v", c)
	}
	if c := s.Cases[1]; c.Name != "p99<10s" || c.Failure != nil || !strings.HasPrefix(c.Out, "measured 0.") {
		t.Errorf("passing case %+v", c)
	}
}

func TestWriteMarkdown(t *testing.T) {
	r := realrun.Run(t, 50, nil)
	rs := evaluate(t, r, "p99<1us", "errors<0.1%")
	var b bytes.Buffer
	if err := WriteMarkdown(&b, "gb http://127.0.0.1/a_b|c", rs); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(b.String(), "\n")
	if lines[0] != `### gb http://127.0.0.1/a\_b\|c: FAIL (1 of 2 failed)` || lines[2] != "| threshold | measured | result |" ||
		!strings.HasPrefix(lines[4], "| `p99<1us` | ") || !strings.HasSuffix(lines[4], " | ❌ FAIL |") ||
		lines[5] != "| `errors<0.1%` | 0.000% | ✅ pass |" {
		t.Errorf("markdown:\n%s", b.String())
	}
}
