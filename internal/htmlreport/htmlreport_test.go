package htmlreport

import (
	"bytes"
	"fmt"
	"image/color"
	"image/png"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gb-bench/gb/internal/fakerun"
	"github.com/gb-bench/gb/internal/ramp"
	"github.com/gb-bench/gb/internal/report"
	"github.com/gb-bench/gb/stats"
)

// htmlOf renders r with Run.
func htmlOf(t *testing.T, r *stats.Result) string {
	t.Helper()
	var b bytes.Buffer
	if err := Run(&b, r); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// external matches what would make a page load something: a script, an
// attribute naming a resource, a CSS import or a url() that is not data:.
var external = regexp.MustCompile(`(?i)<script|<iframe|<object|<embed|<link|\ssrc=|\shref=|xlink:href=|@import|url\((?:[^d]|d[^a])`)

// TestHTMLReportIsSelfContained checks the page of every fixture (with a
// profile, a hostile profile, in rate mode, without responses) for
// references to anything outside it, for the Content-Security-Policy that
// forbids loading anything, and for escaped server strings.
func TestHTMLReportIsSelfContained(t *testing.T) {
	results := fakerun.Fixtures()
	for name, r := range fakerun.ProfileFixtures() {
		results[name] = r
	}
	for name, r := range results {
		t.Run(name, func(t *testing.T) {
			page := htmlOf(t, r)
			if m := external.FindString(page); m != "" {
				t.Errorf("the page refers to something outside it: %q", m)
			}
			if !strings.Contains(page, `content="default-src 'none'; style-src 'unsafe-inline'; font-src data:; img-src data:"`) {
				t.Error("no Content-Security-Policy forbidding network loads")
			}
			if strings.Contains(page, "@font-face") || strings.Contains(page, "base64,") {
				t.Error("the page embeds a font: its text is in the reader's own sans-serif face")
			}
			for _, hostile := range []string{"\x1b", "Failed requests:\r\n", "<script"} {
				if strings.Contains(page, hostile) {
					t.Errorf("the page holds %q unescaped", hostile)
				}
			}
		})
	}
}

// TestHTMLReportSections checks what the page says for results with and
// without responses, series and profiles.
func TestHTMLReportSections(t *testing.T) {
	for _, c := range []struct {
		name   string
		r      *stats.Result
		charts int
		want   []string
	}{
		{"plain", fakerun.Build(fakerun.PlainSpec(false)), 1, []string{"No time series", "Latency by percentile", "Status codes", "total (service time)", "Percentage of the requests served within a certain time"}},
		{"rate", fakerun.Build(fakerun.RateSpec()), 1, []string{"corrected (from the intended send time)", "lag (send behind schedule)", "target rate", "dropped"}},
		{"zero", fakerun.Build(fakerun.ZeroSpec()), 0, []string{"No response completed, so there is no latency to show.", "No response was received."}},
		{"failures", failuresWithMessages(), 1, []string{"Failure messages", "connect: connection refused", "(other messages)", "failed.connect"}},
		{"profile", fakerun.ProfileFixtures()["profile"], 1, []string{"Server profile", "CPU by flat time", "CPU by cumulative time", "Allocations by flat bytes", "testserver.leftpad"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			page := htmlOf(t, c.r)
			if got := strings.Count(page, `<div class="chart">`); got != c.charts {
				t.Errorf("%d charts, want %d", got, c.charts)
			}
			for _, w := range c.want {
				if !strings.Contains(page, w) {
					t.Errorf("the page lacks %q", w)
				}
			}
		})
	}
}

// failuresWithMessages is the failures fixture with failure messages.
func failuresWithMessages() *stats.Result {
	r := fakerun.Build(fakerun.FailuresSpec())
	r.Counts.Errors, r.Counts.OtherErrors = map[string]int64{"connect: connection refused": 3, "read: connection reset by peer": 1}, 2
	return r
}

// TestHTMLReportCards checks the headline numbers against the result.
func TestHTMLReportCards(t *testing.T) {
	r := fakerun.Build(fakerun.PlainSpec(false))
	page := htmlOf(t, r)
	d := r.Latency[stats.Total]
	for _, want := range []string{
		`<div class="value">` + ms(float64(d.Percentile(99))) + ` ms</div>`,
		`<div class="value">` + strings.TrimSpace(strings.Split(strings.SplitAfter(textOf(t, r), "Requests per second:")[1], "[")[0]) + `</div>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %s", want)
		}
	}
}

// textOf renders r with Text.
func textOf(t *testing.T, r *stats.Result) string {
	var b bytes.Buffer
	if err := report.Text(&b, r, report.Options{}); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestRampPNG decodes the PNG of each ramp fixture: 1200x1020 pixels, the
// curve drawn in the first line colour, and the saturation mark's colour
// present exactly when the ramp has a saturation step.
func TestRampPNG(t *testing.T) {
	for name, rp := range map[string]*ramp.Ramp{"concurrency": fakerun.ConcurrencyRamp(), "rate": fakerun.RateRamp(), "none": {By: ramp.ByConcurrency, Steps: fakerun.ConcurrencyRamp().Steps[:3]}} {
		t.Run(name, func(t *testing.T) {
			var b bytes.Buffer
			if err := RampPNG(&b, rp); err != nil {
				t.Fatal(err)
			}
			img, err := png.Decode(&b)
			if err != nil {
				t.Fatal(err)
			}
			if b := img.Bounds(); b.Dx() != 1200 || b.Dy() != 1020 {
				t.Errorf("%dx%d pixels, want 1200x1020", b.Dx(), b.Dy())
			}
			count := func(want color.Color) (n int) {
				wr, wg, wb, _ := want.RGBA()
				for y := img.Bounds().Min.Y; y < img.Bounds().Max.Y; y++ {
					for x := img.Bounds().Min.X; x < img.Bounds().Max.X; x++ {
						r, g, b, _ := img.At(x, y).RGBA()
						if r == wr && g == wg && b == wb {
							n++
						}
					}
				}
				return n
			}
			if n := count(palette[0]); n < 500 {
				t.Errorf("%d pixels of the throughput line's colour: no curve drawn", n)
			}
			if marked, saturated := count(markRGB) > 0, rp.Saturation > 0; marked != saturated {
				t.Errorf("saturation mark drawn: %v, ramp saturated at step %d", marked, rp.Saturation)
			}
		})
	}
	if err := RampPNG(&bytes.Buffer{}, &ramp.Ramp{}); err == nil {
		t.Error("RampPNG of a ramp without steps: no error")
	}
	if err := Ramp(&bytes.Buffer{}, &ramp.Ramp{}); err == nil {
		t.Error("Ramp of a ramp without steps: no error")
	}
}

// TestPercentileAxis checks the spectrum's axis labels and line: labels
// one more nine per decade, and the line from the median's left end (x 1)
// to the last sample (x = count, y = max), never falling.
func TestPercentileAxis(t *testing.T) {
	var labels []string
	for _, tk := range percentileTicks(5000) {
		if tk.Label != "" {
			labels = append(labels, tk.Label)
		}
	}
	if got := strings.Join(labels, " "); got != "0% 90% 99% 99.9% 99.99%" {
		t.Errorf("labels %q", got)
	}
	d := fakerun.Build(fakerun.PlainSpec(false)).Latency[stats.Total]
	xys := spectrum(d)
	if xys[0].X != 1 || xys[len(xys)-1].X != float64(d.Count) || xys[len(xys)-1].Y != float64(d.Max)/1000 {
		t.Errorf("line from %v to %v; want x 1 to (%d, max %d µs)", xys[0], xys[len(xys)-1], d.Count, d.Max)
	}
	for i := 1; i < len(xys); i++ {
		if xys[i].Y < xys[i-1].Y || xys[i].X <= xys[i-1].X {
			t.Fatalf("line goes back at %v after %v", xys[i], xys[i-1])
		}
	}
}

// TestShownSteps checks which steps the per-step distribution chart
// draws: all of a short ramp; of a long one, ten spread from the first to
// the last, with the saturation step.
func TestShownSteps(t *testing.T) {
	steps := func(n, sat int) *ramp.Ramp {
		rp := &ramp.Ramp{Saturation: sat}
		for range n {
			rp.Steps = append(rp.Steps, &stats.Result{})
		}
		return rp
	}
	for _, c := range []struct {
		n, sat int
		want   string
	}{
		{3, 2, "[0 1 2]"},
		{10, 0, "[0 1 2 3 4 5 6 7 8 9]"},
		{19, 0, "[0 2 4 6 8 10 12 14 16 18]"},
		{19, 4, "[0 2 3 6 8 10 12 14 16 18]"},
		{19, 18, "[0 2 4 6 8 10 12 14 17 18]"},
		{19, 1, "[0 2 4 6 8 10 12 14 16 18]"},
	} {
		if got := fmt.Sprint(shownSteps(steps(c.n, c.sat))); got != c.want {
			t.Errorf("%d steps, saturation %d: %s, want %s", c.n, c.sat, got, c.want)
		}
	}
}

// TestHTMLReportSeriesEdges renders series that real runs can produce
// at the edges: one interval, intervals without responses, rate mode, a
// result without a start time. Each page has its over-time charts.
func TestHTMLReportSeriesEdges(t *testing.T) {
	point := func(r *stats.Result, at time.Duration, ok int64, withLatency bool) stats.Point {
		p := stats.Point{Start: r.Start.Add(at), Ended: ok, OK: ok}
		if withLatency {
			p.Latency, p.Corrected = r.Latency[stats.Total], r.Latency[stats.Corrected]
		}
		return p
	}
	one := fakerun.Build(fakerun.PlainSpec(false))
	one.Series = &stats.Series{Interval: time.Second, Points: []stats.Point{point(one, 0, 1000, true)}}
	idle := fakerun.Build(fakerun.PlainSpec(false))
	idle.Series = &stats.Series{Interval: 100 * time.Millisecond, Points: []stats.Point{point(idle, 0, 0, false), point(idle, 100*time.Millisecond, 0, false)}}
	rate := fakerun.Build(fakerun.RateSpec())
	rate.Series = &stats.Series{Interval: 200 * time.Millisecond}
	for i := range 3 {
		rate.Series.Points = append(rate.Series.Points, point(rate, time.Duration(i)*200*time.Millisecond, 150, true))
	}
	noStart := fakerun.Build(fakerun.PlainSpec(false))
	noStart.Series = &stats.Series{Interval: time.Second, Points: []stats.Point{point(noStart, 0, 500, true), point(noStart, time.Second, 500, true)}}
	noStart.Start, noStart.End = time.Time{}, time.Time{}
	for name, r := range map[string]*stats.Result{"one": one, "idle": idle, "rate": rate, "no start": noStart} {
		t.Run(name, func(t *testing.T) {
			page := htmlOf(t, r)
			latency := "Latency over time"
			if name == "idle" {
				latency = "No interval had a response"
			}
			for _, want := range []string{"Throughput over time", latency, "No interval had a failure"} {
				if !strings.Contains(page, want) {
					t.Errorf("the page lacks %q", want)
				}
			}
		})
	}
}

// TestHTMLReportChecks checks the page's checks section: a row per check
// in the run's order with its mark and counts, the expression escaped
// and defused, a headline counting the failed checks; none without
// checks.
func TestHTMLReportChecks(t *testing.T) {
	r := fakerun.Build(fakerun.PlainSpec(false))
	if strings.Contains(htmlOf(t, r), `<section id="checks">`) {
		t.Error("a run without checks has a checks section")
	}
	r.Checks = []stats.CheckStats{{Expr: "status==200", Passes: 990, Fails: 10}, {Expr: "body contains \"<script>\x1b\"", Passes: 1000},
		{Expr: "header X-A==1", Passes: 0}}
	r.Counts.Outcomes[stats.FailCheck] = 10
	page := htmlOf(t, r)
	for _, want := range []string{`<section id="checks">`, "✗ 1 of 3 checks failed: 10 responses ended as failed.check.",
		`<td class="text">✗</td><td class="text">status==200</td><td>990</td><td>10</td><td>99.00%</td>`,
		`<td class="text">body contains &#34;&lt;script&gt;?&#34;</td><td>1000</td><td>0</td><td>100.00%</td>`,
		`<td class="text">-</td><td class="text">header X-A==1</td><td>0</td><td>0</td><td>none checked</td>`} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %s", want)
		}
	}
	if i, j := strings.Index(page, `id="latency"`), strings.Index(page, `id="checks"`); i < 0 || j < i {
		t.Error("the checks do not follow the latency table")
	}
}
