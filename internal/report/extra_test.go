package report

import (
	"bytes"
	"maps"
	"regexp"
	"strings"
	"testing"

	"github.com/gb-bench/gb/internal/fakerun"
	"github.com/gb-bench/gb/stats"
)

// TestExtraSectionIsInvisibleToAbParsers checks DESIGN.md §4: gb's section
// never contains the strings ab parsers match, nor a number followed by a
// percent sign, whatever the Result (the "variable" fixture's stop error
// holds all of them, and so do the "hostile profile" fixture's function
// names and notes). The server profile section's tables are its only
// lines that are not "key: value" lines.
func TestExtraSectionIsInvisibleToAbParsers(t *testing.T) {
	pct := regexp.MustCompile(`\d+%`)
	all := fakerun.Fixtures()
	maps.Copy(all, fakerun.ProfileFixtures())
	for name, r := range all {
		for _, o := range []Options{{}, {NoPercentiles: true}, {NoConfidence: true}} {
			var b bytes.Buffer
			if err := Text(&b, r, o); err != nil {
				t.Fatal(err)
			}
			_, extra, ok := strings.Cut(b.String(), "\ngb:\n")
			if !ok {
				t.Fatalf("%s: no gb section:\n%s", name, b.String())
			}
			for _, f := range forbidden {
				if strings.Contains(extra, f) {
					t.Errorf("%s: gb section contains %q:\n%s", name, f, extra)
				}
			}
			if m := pct.FindString(extra); m != "" {
				t.Errorf("%s: gb section contains %q:\n%s", name, m, extra)
			}
			for _, line := range strings.Split(strings.TrimSuffix(extra, "\n"), "\n") {
				if !regexp.MustCompile(`^  [a-z][a-z ]*: {2,}\S`).MatchString(line) && (r.Profile == nil || !profileLine.MatchString(line)) {
					t.Errorf("%s: gb line is not an aligned key: value line: %q", name, line)
				}
			}
		}
	}
}

func TestDefuse(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain words", "plain words"},
		{"Total: 3", "Total - 3"},
		{"Requests per second: 5, Transfer rate: 1", "Requests per second - 5, Transfer rate - 1"},
		{"99% of 100%", "99 pct of 100 pct"},
		{"a%b", "a%b"},
		{"bell\a\x1b[0m\u0085", "bell??[0m?"},
	} {
		if got := defuse(tc.in); got != tc.want {
			t.Errorf("defuse(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestTLSHandshakesLine: the "tls handshakes" line counts full and
// resumed handshakes; with --tls-resume and none resumed it notes why:
// more full handshakes than the connections that could open before a
// first session was in hand means the server refused; otherwise no
// connection opened after one. No https handshake, no line.
func TestTLSHandshakesLine(t *testing.T) {
	dist := func(n int64) *stats.Dist {
		if n == 0 {
			return nil
		}
		return &stats.Dist{Exact: stats.Exact{Count: n, Sum: n, Min: 1, Max: 1}}
	}
	for _, tc := range []struct {
		resume        bool
		full, resumed int64
		want          string
	}{
		{false, 100, 0, "full=100 resumed=0"},
		{true, 10, 90, "full=10 resumed=90"},
		{true, 100, 0, "full=100 resumed=0 (--tls-resume: the server resumed none of the 90 sessions after the first 10 handshakes: it refuses resumption)"},
		{true, 10, 0, "full=10 resumed=0 (--tls-resume: every connection opened before a first session could be resumed)"},
		{false, 0, 0, ""},
	} {
		r := &stats.Result{Load: stats.Load{Concurrency: 10, TLSResume: tc.resume}}
		r.Latency[stats.TLS] = dist(tc.full + tc.resumed)
		r.Latency[stats.TLSFull], r.Latency[stats.TLSResumed] = dist(tc.full), dist(tc.resumed)
		got := ""
		extraLines(r, func(key, value string) {
			if key == "tls handshakes" {
				got = value
			}
		})
		if got != tc.want {
			t.Errorf("%+v: %q, want %q", tc, got, tc.want)
		}
	}
}
