package report

import (
	"bytes"
	"context"
	"encoding/json"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gb-bench/gb/stats"
)

// rampStep builds one fake step: n responses whose latency is about lat µs
// (with a little jitter from seed), taking elapsed, offset from the first
// step's start. In rate steps the corrected latency adds queue µs.
func rampStep(tg stats.Target, n int, lat, queue int64, elapsed time.Duration, offset time.Duration, seed uint64) *stats.Result {
	rng := rand.New(rand.NewPCG(seed, 2))
	reqs := make([]req, n)
	for i := range reqs {
		var t stats.Timing
		t[stats.Total] = lat + rng.Int64N(lat/20+1)
		t[stats.Processing] = t[stats.Total]
		t[stats.Waiting] = t[stats.Total] - 40
		t[stats.Corrected] = t[stats.Total] + queue*int64(i)/int64(n)
		reqs[i] = req{outcome: stats.OK, status: 200, t: t, length: 1024, keepAlive: true, newConn: i < tg.Concurrency}
	}
	r := build(spec{target: tg, elapsed: elapsed, stoppedBy: stats.StopCount, server: "gb-serve",
		headerLen: 120, reqLen: 90, reqs: reqs})
	r.Start, r.End = r.Start.Add(offset), r.End.Add(offset)
	return r
}

// concurrencyRamp: concurrency 2 to 16 by 2, 10 requests per connection,
// against a server of 8 workers taking 10 ms each (800 req/s at most).
func concurrencyRamp() *Ramp {
	rp := &Ramp{Version: stats.FormatVersion, GBVersion: "test", By: ByConcurrency,
		Command: []string{"gb", "ramp", "-k", "--from", "2", "--to", "16", "--step", "2", "--per-user", "10", "http://127.0.0.1:8080/limited?d=10ms&max=8"}}
	var offset time.Duration
	for i, c := range []int{2, 4, 6, 8, 10, 12, 14, 16} {
		tg := target("/limited?d=10ms&max=8", c, int64(10*c))
		tg.URL, tg.KeepAlive = "http://127.0.0.1:8080"+tg.Path, true
		lat := int64(10_150 * max(c, 8) / 8)
		tput := 1e6 * float64(c) / float64(lat) // Little's law
		elapsed := time.Duration(float64(10*c) / tput * float64(time.Second))
		rp.Steps = append(rp.Steps, rampStep(tg, 10*c, lat, 0, elapsed, offset, uint64(i)))
		rp.ReplyRates = append(rp.ReplyRates, nil)
		offset += elapsed + time.Second
	}
	rp.ReplyRates[7] = []float64{790, 801.5, 795}
	rp.Saturation = Saturation(rp.By, rp.Steps) + 1
	return rp
}

// rateRamp: 200 to 1200 req/s by 200 for 1 s each over a pool of 20
// connections, against a server that serves 800 req/s at most: beyond it
// the achieved rate stays at 800 and requests queue behind the schedule.
func rateRamp() *Ramp {
	rp := &Ramp{Version: stats.FormatVersion, GBVersion: "test", By: ByRate,
		Command: []string{"gb", "ramp", "-k", "-c", "20", "--rate-from", "200", "--rate-to", "1200", "--rate-step", "200", "--step-time", "1s", "http://127.0.0.1:8080/hello"}}
	var offset time.Duration
	for i, rate := range []int{200, 400, 600, 800, 1000, 1200} {
		tg := target("/hello", 20, int64(rate))
		tg.KeepAlive, tg.Rate = true, float64(rate)
		elapsed := time.Second
		var queue int64
		if rate > 800 {
			elapsed = time.Duration(float64(rate) / 800 * float64(time.Second))
			queue = elapsed.Microseconds() - 1_000_000
		}
		rp.Steps = append(rp.Steps, rampStep(tg, rate, 900, queue, elapsed, offset, uint64(10+i)))
		rp.ReplyRates = append(rp.ReplyRates, []float64{float64(min(rate, 800))})
		offset += elapsed + time.Second
	}
	rp.Saturation = Saturation(rp.By, rp.Steps) + 1
	return rp
}

func TestRampGolden(t *testing.T) {
	for name, rp := range map[string]*Ramp{"concurrency": concurrencyRamp(), "rate": rateRamp()} {
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
// (step 4) and 800 req/s (step 4).
func TestRampSaturationOfFixtures(t *testing.T) {
	if got := concurrencyRamp().Saturation; got != 4 {
		t.Errorf("concurrency ramp: saturation step %d, want 4", got)
	}
	if got := rateRamp().Saturation; got != 4 {
		t.Errorf("rate ramp: saturation step %d, want 4", got)
	}
}

// TestSaturationRule runs the rule on throughput and p99 series.
func TestSaturationRule(t *testing.T) {
	for _, tc := range []struct {
		name  string
		loads []int
		tput  []float64 // requests per second
		p99   []int64   // µs
		want  int
	}{
		{"knee", []int{1, 2, 3, 4, 5}, []float64{100, 200, 290, 295, 298}, []int64{10, 10, 11, 14, 17}, 2},
		{"still rising", []int{1, 2, 3, 4}, []float64{100, 200, 300, 400}, []int64{10, 10, 10, 11}, -1},
		{"flat throughput, flat p99", []int{1, 2, 3, 4}, []float64{100, 101, 100, 102}, []int64{10, 10, 10, 10}, -1},
		{"collapse after the peak", []int{1, 2, 3, 4, 5, 6}, []float64{100, 200, 300, 305, 150, 90}, []int64{10, 10, 11, 20, 30, 90}, 2},
		{"one blip past the knee", []int{1, 2, 3, 4, 5, 6}, []float64{100, 200, 300, 340, 301, 299}, []int64{10, 10, 11, 13, 16, 19}, 2},
		{"two steps above: a trend, not a blip", []int{1, 2, 3, 4, 5, 6}, []float64{100, 200, 300, 340, 345, 299}, []int64{10, 10, 11, 13, 16, 19}, 3},
		{"a blip needs three later steps", []int{1, 2, 3, 4}, []float64{100, 200, 300, 340}, []int64{10, 10, 11, 15}, -1},
		{"p99 must rise over most later steps", []int{1, 2, 3, 4, 5, 6}, []float64{100, 200, 300, 301, 300, 302}, []int64{10, 10, 11, 11, 11, 40}, 4},
		{"saturated from the start", []int{10, 20, 30}, []float64{500, 505, 503}, []int64{20, 40, 60}, 0},
		{"knee too close to the end", []int{100, 101, 102}, []float64{100, 200, 201}, []int64{10, 10, 12}, -1},
		{"one step", []int{1}, []float64{100}, []int64{10}, -1},
		{"no responses", []int{1, 2, 3}, []float64{0, 0, 0}, []int64{0, 0, 0}, -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var steps []*stats.Result
			for i, c := range tc.loads {
				steps = append(steps, flatStep(c, tc.tput[i], tc.p99[i]*1000))
			}
			if got := Saturation(ByConcurrency, steps); got != tc.want {
				t.Errorf("Saturation = %d, want %d", got, tc.want)
			}
		})
	}
}

// flatStep is a step of 100 responses of lat µs each at tput req/s.
func flatStep(c int, tput float64, lat int64) *stats.Result {
	n := 100
	if tput == 0 {
		n = 0
	}
	reqs := make([]req, n)
	for i := range reqs {
		reqs[i] = req{outcome: stats.OK, status: 200, t: stats.Timing{stats.Total: lat, stats.Processing: lat}}
	}
	elapsed := time.Second
	if tput > 0 {
		elapsed = time.Duration(float64(n) / tput * float64(time.Second))
	}
	return build(spec{target: target("/", c, int64(n)), elapsed: elapsed, stoppedBy: stats.StopCount, reqs: reqs})
}

// TestRampJSONRoundTrip checks that the --json file reads back into a
// Ramp that renders the same CSV and autobench files as the live one.
func TestRampJSONRoundTrip(t *testing.T) {
	rp := rateRamp()
	var b bytes.Buffer
	if err := RampJSON(&b, rp); err != nil {
		t.Fatal(err)
	}
	var back Ramp
	if err := json.Unmarshal(b.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	if back.By != ByRate || back.Saturation != 4 || len(back.Steps) != 6 || back.Steps[0].Version != stats.FormatVersion {
		t.Fatalf("read back: by %q saturation %d steps %d", back.By, back.Saturation, len(back.Steps))
	}
	for _, f := range []func(*bytes.Buffer, *Ramp) error{
		func(w *bytes.Buffer, r *Ramp) error { return RampCSV(w, r) },
		func(w *bytes.Buffer, r *Ramp) error { return RampAutobench(w, r, ",") },
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
	rp := &Ramp{By: ByConcurrency, Steps: []*stats.Result{build(zeroSpec())}}
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
	for name, rp := range map[string]*Ramp{"concurrency": concurrencyRamp(), "rate": rateRamp(), "none": {By: ByConcurrency, Steps: concurrencyRamp().Steps[:3]}} {
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
