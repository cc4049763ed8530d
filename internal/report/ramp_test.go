package report

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gb-bench/gb/internal/fakerun"
	"github.com/gb-bench/gb/internal/ramp"
	"github.com/gb-bench/gb/internal/record"
	"github.com/gb-bench/gb/stats"
)

func TestRampGolden(t *testing.T) {
	for name, rp := range map[string]*ramp.Ramp{"concurrency": fakerun.ConcurrencyRamp(), "rate": fakerun.RateRamp()} {
		t.Run(name, func(t *testing.T) {
			render := map[string]func(*bytes.Buffer) error{
				".csv": func(b *bytes.Buffer) error { return RampCSV(b, rp) },
				".tsv": func(b *bytes.Buffer) error { return RampAutobench(b, rp, "\t") },
				".gp":  func(b *bytes.Buffer) error { return RampPlot(b, rp, "ramp.csv", "ramp.png") },
				".txt": func(b *bytes.Buffer) error {
					if err := RampHeader(b, rp.By); err != nil {
						return err
					}
					for i, r := range rp.Steps {
						if err := RampStep(b, rp.By, i+1, r); err != nil {
							return err
						}
					}
					return RampSummary(b, rp)
				},
			}
			for ext, f := range render {
				var b bytes.Buffer
				if err := f(&b); err != nil {
					t.Fatal(err)
				}
				golden(t, "ramp_"+name+ext, b.Bytes())
			}
		})
	}
}

// TestRampSaturationOfFixtures checks the fixtures' knees: concurrency 8
// (step 4) and, in rate steps, the first rate the server could not serve,
// 1000 req/s (step 5).
func TestRampSaturationOfFixtures(t *testing.T) {
	if got := fakerun.ConcurrencyRamp().Saturation; got != 4 {
		t.Errorf("concurrency ramp: saturation step %d, want 4", got)
	}
	if got := fakerun.RateRamp().Saturation; got != 5 {
		t.Errorf("rate ramp: saturation step %d, want 5", got)
	}
}

// TestRateRampMissedTarget is issue 13's nginx ramp, scaled down: 1000
// to 4000 req/s for 1 s each; at 3000 req/s the server serves only 2641
// and requests queue (corrected p50 about 250 ms), at 4000 about the same.
// Throughput rose past step 2 and p99 did not rise after step 3, so the
// concurrency rule finds no knee; but step 3 missed its target, so it is
// the saturation step, the summary says so, and never advises to raise
// the rate.
func TestRateRampMissedTarget(t *testing.T) {
	rp := &ramp.Ramp{By: ramp.ByRate}
	var offset time.Duration
	for i, st := range []struct {
		rate   int
		served float64
		queue  int64 // µs
	}{{1000, 1000, 0}, {2000, 1999.9, 0}, {3000, 2641, 500_000}, {4000, 2700, 480_000}} {
		tg := fakerun.Target("/", 50, int64(st.rate))
		tg.KeepAlive, tg.Rate = true, float64(st.rate)
		elapsed := time.Duration(float64(st.rate) / st.served * float64(time.Second))
		rp.Steps = append(rp.Steps, fakerun.RampStep(tg, st.rate, 300, st.queue, elapsed, offset, uint64(20+i)))
		offset += elapsed
	}
	if got := ramp.Saturation(ramp.ByConcurrency, rp.Steps, 0.01); got != -1 {
		t.Fatalf("fixture: the concurrency rule finds step %d; it should find none", got+1)
	}
	rp.Saturation = ramp.Saturation(rp.By, rp.Steps, 0.01) + 1
	if rp.Saturation != 3 {
		t.Fatalf("saturation step %d, want 3", rp.Saturation)
	}
	var sum, plot bytes.Buffer
	if err := RampSummary(&sum, rp); err != nil {
		t.Fatal(err)
	}
	if err := RampPlot(&plot, rp, "r.csv", "r.png"); err != nil {
		t.Fatal(err)
	}
	if got := sum.String(); !strings.HasPrefix(got, "saturation: step 3, rate 3000 missed its target: it served 2641.00 of its 3000 req/s;") ||
		!strings.Contains(got, "the highest rate held was 2000 (step 2") || strings.Contains(got, "raise") {
		t.Errorf("summary: %s", got)
	}
	if !strings.Contains(plot.String(), "set arrow 1 from 3000,") || !strings.Contains(plot.String(), "(target missed)") {
		t.Errorf("plot marks no missed target at 3000:\n%s", plot.String())
	}
	rp.Saturation = 0 // as from a ramp file without it: the summary still never advises more load
	sum.Reset()
	if err := RampSummary(&sum, rp); err != nil || strings.Contains(sum.String(), "raise") {
		t.Errorf("summary without the step: %v %s", err, sum.String())
	}
}

// rateStep is a 1 s rate step at rate req/s of which served per second
// were served, every response with the given corrected latency and lag
// in µs and a 300 µs service time.
func rateStep(rate, served float64, corrected, lag int64) *stats.Result {
	n := int(rate)
	reqs := make([]fakerun.Req, n)
	for i := range reqs {
		reqs[i] = fakerun.Req{Outcome: stats.OK, Status: 200, T: record.Timing{stats.Total: 300, stats.Processing: 300,
			stats.Corrected: corrected, stats.Lag: lag}}
	}
	tg := fakerun.Target("/", 10, int64(n))
	tg.Rate = rate
	elapsed := time.Duration(rate / served * float64(time.Second))
	return fakerun.Build(fakerun.Spec{Target: tg, Elapsed: elapsed, StoppedBy: stats.StopCount, Reqs: reqs})
}

// TestRampSummaryMissed: a rate ramp's summary names the step that
// missed its target and why (package ramp's rule), and advises more load
// only when every step held its rate.
func TestRampSummaryMissed(t *testing.T) {
	for _, tc := range []struct {
		name   string
		served []float64 // of 1000, 2000, 3000 req/s
		want   string
	}{
		{"held", []float64{1000, 2000, 2990}, "saturation: none found: every step served its target rate without a jump in corrected latency or lag; raise the last step's rate\n"},
		{"served short", []float64{1000, 2000, 2800}, "saturation: step 3, rate 3000 missed its target: it served 2800.00 of its 3000 req/s; corrected p99 0.350 ms; the highest rate held was 2000 (step 2: 2000.00 req/s at corrected p99 0.350 ms)\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var steps []*stats.Result
			for i, served := range tc.served {
				steps = append(steps, rateStep(float64(1000*(i+1)), served, 350, 0))
			}
			rp := &ramp.Ramp{By: ramp.ByRate, Steps: steps, MaxErrors: 0.01}
			rp.Analyse()
			var b bytes.Buffer
			if err := RampSummary(&b, rp); err != nil {
				t.Fatal(err)
			}
			if b.String() != tc.want {
				t.Errorf("summary:\n%s\nwant:\n%s", b.String(), tc.want)
			}
		})
	}
}

// TestRampJSONRoundTrip checks that the --json file reads back into a
// Ramp that renders the same CSV and autobench files as the live one.
func TestRampJSONRoundTrip(t *testing.T) {
	rp := fakerun.RateRamp()
	var b bytes.Buffer
	if err := RampJSON(&b, rp); err != nil {
		t.Fatal(err)
	}
	var back ramp.Ramp
	if err := json.Unmarshal(b.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	if back.By != ramp.ByRate || back.Saturation != 5 || len(back.Steps) != 6 || back.Steps[0].Version != stats.FormatVersion {
		t.Fatalf("read back: by %q saturation %d steps %d", back.By, back.Saturation, len(back.Steps))
	}
	for _, f := range []func(*bytes.Buffer, *ramp.Ramp) error{
		func(w *bytes.Buffer, r *ramp.Ramp) error { return RampCSV(w, r) },
		func(w *bytes.Buffer, r *ramp.Ramp) error { return RampAutobench(w, r, ",") },
	} {
		var live, again bytes.Buffer
		if err := f(&live, rp); err != nil {
			t.Fatal(err)
		}
		if err := f(&again, &back); err != nil {
			t.Fatal(err)
		}
		if live.String() != again.String() {
			t.Errorf("re-rendered from JSON:\n%s\nlive:\n%s", again.String(), live.String())
		}
	}
}

// TestRampCSVEmptyLatency checks a step without a complete response: its
// latency fields are empty, its other fields present.
func TestRampCSVEmptyLatency(t *testing.T) {
	rp := &ramp.Ramp{By: ramp.ByConcurrency, Steps: []*stats.Result{fakerun.Build(fakerun.ZeroSpec())}}
	var b bytes.Buffer
	if err := RampCSV(&b, rp); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d lines", len(lines))
	}
	fields := strings.Split(lines[1], ",")
	if len(fields) != len(rampColumns) {
		t.Fatalf("%d fields, want %d: %q", len(fields), len(rampColumns), lines[1])
	}
	if fields[1] != "1" || fields[2] != "0" || fields[3] != "5" || fields[5] != "" || fields[15] != "" {
		t.Errorf("row %q", lines[1])
	}
}

// TestRampPlotRendersPNG runs the plot scripts with gnuplot (CI installs
// gnuplot-nox; GB_REQUIRE_NGINX=1 makes its absence a failure, as for the
// other real-tool tests): each must write a PNG and print no warning.
func TestRampPlotRendersPNG(t *testing.T) {
	bin, err := exec.LookPath("gnuplot")
	if err != nil {
		if os.Getenv("GB_REQUIRE_NGINX") == "1" {
			t.Fatal("gnuplot is required (GB_REQUIRE_NGINX=1) but not installed")
		}
		t.Skip("gnuplot not installed")
	}
	for name, rp := range map[string]*ramp.Ramp{"concurrency": fakerun.ConcurrencyRamp(), "rate": fakerun.RateRamp(), "none": {By: ramp.ByConcurrency, Steps: fakerun.ConcurrencyRamp().Steps[:3]}} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			write := func(file string, f func(*bytes.Buffer) error) {
				var b bytes.Buffer
				if err := f(&b); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, file), b.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			write("ramp.csv", func(b *bytes.Buffer) error { return RampCSV(b, rp) })
			write("ramp.gp", func(b *bytes.Buffer) error { return RampPlot(b, rp, "ramp.csv", "ramp.png") })
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, bin, "ramp.gp")
			cmd.Dir = dir
			out, err := cmd.CombinedOutput()
			if err != nil || len(out) > 0 {
				t.Fatalf("gnuplot: %v\n%s", err, out)
			}
			png, err := os.ReadFile(filepath.Join(dir, "ramp.png"))
			if err != nil || !bytes.HasPrefix(png, []byte("\x89PNG\r\n\x1a\n")) {
				t.Fatalf("ramp.png: %v, %d bytes, not a PNG", err, len(png))
			}
		})
	}
}

// erringStep is a concurrency step of 100 requests at tput req/s and 2 ms
// each, of which bad were answered 503 and refused were refused
// connections (no response).
func erringStep(c int, tput float64, bad, refused int) *stats.Result {
	reqs := make([]fakerun.Req, 100)
	for i := range reqs {
		switch {
		case i < refused:
			reqs[i] = fakerun.Req{Outcome: stats.FailConnect}
		case i < refused+bad:
			reqs[i] = fakerun.Req{Outcome: stats.Non2xx, Status: 503, T: record.Timing{stats.Total: 2000, stats.Processing: 2000}}
		default:
			reqs[i] = fakerun.Req{Outcome: stats.OK, Status: 200, T: record.Timing{stats.Total: 2000, stats.Processing: 2000}}
		}
	}
	elapsed := time.Duration(100 / tput * float64(time.Second))
	return fakerun.Build(fakerun.Spec{Target: fakerun.Target("/", c, 100), Elapsed: elapsed, StoppedBy: stats.StopCount, Reqs: reqs})
}

// TestRampErrorsSaturate: a step whose errors (non-2xx or failures)
// exceed --max-errors is the saturation step, even while throughput
// rises and p99 stays flat; allowed errors are not.
func TestRampErrorsSaturate(t *testing.T) {
	steps := []*stats.Result{erringStep(1, 100, 0, 0), erringStep(2, 200, 0, 0), erringStep(3, 300, 50, 0), erringStep(4, 400, 80, 0)}
	rp := &ramp.Ramp{By: ramp.ByConcurrency, Steps: steps, MaxErrors: 0.01}
	rp.Analyse()
	var b bytes.Buffer
	if err := RampSummary(&b, rp); err != nil {
		t.Fatal(err)
	}
	if rp.Saturation != 3 || !strings.HasPrefix(b.String(), "saturation: step 3, concurrency 3: 50% of its requests failed or were answered non-2xx (0 failed, 50 non-2xx; --max-errors 1%); p99 2.000 ms; the highest concurrency held was 2 (step 2") {
		t.Errorf("saturation step %d:\n%s", rp.Saturation, b.String())
	}
	rp = &ramp.Ramp{By: ramp.ByConcurrency, Steps: steps, MaxErrors: 1}
	rp.Analyse()
	if rp.Saturation != 0 {
		t.Errorf("errors allowed (--max-errors 100%%): saturation step %d", rp.Saturation)
	}
}

// TestRampServerStopped: a server that died in step 4 (every connection
// refused) is "server stopped answering" there, not a saturation point,
// and the steps before it are judged alone.
func TestRampServerStopped(t *testing.T) {
	steps := []*stats.Result{erringStep(1, 100, 0, 0), erringStep(2, 200, 0, 0), erringStep(3, 300, 0, 0), erringStep(4, 1000, 0, 100)}
	rp := &ramp.Ramp{By: ramp.ByConcurrency, Steps: steps, MaxErrors: 0.01}
	rp.Analyse()
	var b bytes.Buffer
	if err := RampSummary(&b, rp); err != nil {
		t.Fatal(err)
	}
	want := "server stopped answering: step 4, concurrency 4: no response to 100 requests; 100 failed to connect"
	if rp.Stopped != 4 || rp.Saturation != 0 || !strings.HasPrefix(b.String(), want) ||
		!strings.Contains(b.String(), "saturation: none found: throughput did not level off while p99 rose before the server stopped answering\n") {
		t.Errorf("stopped %d, saturation %d:\n%s", rp.Stopped, rp.Saturation, b.String())
	}
	// The server died during step 3: its failures are refused
	// connections, and step 4 got no response. Step 3 is where it
	// stopped, not a step saturated by its errors.
	steps[2] = erringStep(3, 300, 0, 40)
	rp = &ramp.Ramp{By: ramp.ByConcurrency, Steps: steps, MaxErrors: 0.01}
	rp.Analyse()
	b.Reset()
	_ = RampSummary(&b, rp)
	if want := "server stopped answering: step 3, concurrency 3: 60 responses, then none; 40 failed to connect"; rp.Stopped != 3 || rp.Saturation != 0 || !strings.HasPrefix(b.String(), want) {
		t.Errorf("died in step 3: stopped %d, saturation %d:\n%s", rp.Stopped, rp.Saturation, b.String())
	}
}

// TestRateRampErrors: a rate step that held its rate but erred is the
// saturation step, for its errors, not a missed target.
func TestRateRampErrors(t *testing.T) {
	steps := []*stats.Result{rateStep(1000, 1000, 300, 0), rateStep(2000, 2000, 300, 0)}
	steps[1].Counts.Outcomes[stats.OK] -= 100
	steps[1].Counts.Outcomes[stats.Non2xx] += 100
	rp := &ramp.Ramp{By: ramp.ByRate, Steps: steps, MaxErrors: 0.01}
	rp.Analyse()
	var b bytes.Buffer
	if err := RampSummary(&b, rp); err != nil {
		t.Fatal(err)
	}
	if want := "saturation: step 2, rate 2000: 5% of its requests failed or were answered non-2xx (0 failed, 100 non-2xx; --max-errors 1%); corrected p99 0.300 ms; the highest rate held was 1000 (step 1"; !strings.HasPrefix(b.String(), want) {
		t.Errorf("summary:\n%s\nwant it to begin:\n%s", b.String(), want)
	}
}
