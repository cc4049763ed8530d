package ramp

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/gb-bench/gb/stats"
)

// step is a fake step: what a run at concurrency c (and target rate,
// when rate > 0) over elapsed recorded. Each of ok responses, and of
// non2xx ones, took the phases' latencies of lat (µs); refused requests
// failed to connect.
type step struct {
	c               int
	rate            float64
	elapsed         time.Duration
	lat             map[stats.Phase]int64
	ok, non2xx, bad int
}

// result builds the step's Result the way its JSON file reads back:
// counts, and one Dist per phase in lat.
func (s step) result(t *testing.T) *stats.Result {
	t.Helper()
	r := &stats.Result{Load: stats.Load{Concurrency: s.c, Rate: s.rate}, Elapsed: s.elapsed, StoppedBy: stats.StopCount}
	r.Counts.Dispatched = int64(s.ok + s.non2xx + s.bad)
	r.Counts.Outcomes[stats.OK] = int64(s.ok)
	r.Counts.Outcomes[stats.Non2xx] = int64(s.non2xx)
	r.Counts.Outcomes[stats.FailConnect] = int64(s.bad)
	for ph, v := range s.lat {
		if s.ok+s.non2xx == 0 {
			break
		}
		d := &stats.Dist{Hist: stats.NewHistogram()}
		for range s.ok + s.non2xx {
			d.Add(v)
			if err := d.Hist.RecordValue(v); err != nil {
				t.Fatal(err)
			}
		}
		r.Latency[ph] = d
	}
	return r
}

// flat is a concurrency step of 100 responses of p99 µs each at tput
// requests per second.
func flat(c int, tput float64, p99 int64) step {
	s := step{c: c, elapsed: time.Second, lat: map[stats.Phase]int64{stats.Total: p99}}
	if tput > 0 {
		s.ok = 100
		s.elapsed = time.Duration(100 / tput * float64(time.Second))
	}
	return s
}

// TestSaturationRule runs the concurrency rule on throughput and p99
// series.
func TestSaturationRule(t *testing.T) {
	for _, tc := range []struct {
		name  string
		loads []int
		tput  []float64 // requests per second
		p99   []int64   // ms
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
				steps = append(steps, flat(c, tc.tput[i], tc.p99[i]*1000).result(t))
			}
			if got := Saturation(ByConcurrency, steps, 0.01); got != tc.want {
				t.Errorf("Saturation = %d, want %d", got, tc.want)
			}
		})
	}
}

// rateStep is a 1 s rate step at rate req/s of which served per second
// were served, every response with the given corrected latency and lag
// in µs and a 300 µs service time, over 10 connections.
func rateStep(rate, served float64, corrected, lag int64) step {
	return step{c: 10, rate: rate, ok: int(rate), elapsed: time.Duration(rate / served * float64(time.Second)),
		lat: map[stats.Phase]int64{stats.Total: 300, stats.Corrected: corrected, stats.Lag: lag}}
}

// TestMissedRule runs the rate rule: a step misses its target when it
// serves less than 95 pct of it, when its corrected latency jumps, or when
// its sends fall behind; when gb sent late, the reason says so.
func TestMissedRule(t *testing.T) {
	for _, tc := range []struct {
		name      string
		served    []float64 // of 1000, 2000, ... req/s
		corrected []int64   // µs
		lag       []int64   // µs
		want      int
		why       string
	}{
		{"held", []float64{1000, 2000, 2990}, []int64{300, 320, 350}, []int64{0, 10, 20}, -1, ""},
		{"served short", []float64{1000, 2000, 2800}, []int64{300, 320, 350}, []int64{0, 0, 0}, 2, "it served 2800.00 of its 3000 req/s"},
		{"corrected jump", []float64{1000, 2000, 3000}, []int64{300, 320, 9000}, []int64{0, 0, 0}, 2, "its corrected p50 jumped to 9.000 ms (lowest earlier p99 0.300 ms)"},
		{"a small jump is noise", []float64{1000, 2000, 3000}, []int64{300, 320, 2000}, []int64{0, 0, 0}, -1, ""},
		{"lag", []float64{1000, 2000, 3000}, []int64{300, 320, 350}, []int64{0, 0, 6000}, 2, "its sends fell behind the schedule (lag p50 6.000 ms): gb sent late, not the server (lag p99 6.00 ms, service p99 0.300 ms) though its 10 connections sufficed (about 2 needed): gb was short of CPU time; run it where it has a core of its own"},
		{"first step missed", []float64{500, 1000}, []int64{300, 300}, []int64{0, 0}, 0, "it served 500.00 of its 1000 req/s"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var steps []*stats.Result
			for i := range tc.served {
				steps = append(steps, rateStep(float64(1000*(i+1)), tc.served[i], tc.corrected[i], tc.lag[i]).result(t))
			}
			got := Saturation(ByRate, steps, 0.01)
			if got != tc.want {
				t.Fatalf("Saturation = %d, want %d", got, tc.want)
			}
			if got >= 0 && Missed(steps, got) != tc.why {
				t.Errorf("Missed = %q, want %q", Missed(steps, got), tc.why)
			}
		})
	}
}

// TestErrorsSaturate: a step whose errors (non-2xx or failures) exceed
// MaxErrors is the saturation step, even while throughput rises and p99
// stays flat, and Overloaded says by how much; allowed errors are not.
func TestErrorsSaturate(t *testing.T) {
	lat := map[stats.Phase]int64{stats.Total: 2000}
	var steps []*stats.Result
	for i, bad := range []int{0, 0, 50, 80} {
		steps = append(steps, step{c: i + 1, elapsed: time.Second / time.Duration(i+1), lat: lat, ok: 100 - bad, non2xx: bad}.result(t))
	}
	rp := &Ramp{By: ByConcurrency, Steps: steps, MaxErrors: 0.01}
	rp.Analyse()
	want := "50% of its requests failed or were answered non-2xx (0 failed, 50 non-2xx; --max-errors 1%)"
	if rp.Saturation != 3 || rp.Stopped != 0 || Overloaded(steps[2], rp.MaxErrors) != want {
		t.Errorf("saturation %d, stopped %d, overloaded %q", rp.Saturation, rp.Stopped, Overloaded(steps[2], rp.MaxErrors))
	}
	rp = &Ramp{By: ByConcurrency, Steps: steps, MaxErrors: 1}
	if rp.Analyse(); rp.Saturation != 0 {
		t.Errorf("errors allowed (MaxErrors 100%%): saturation step %d", rp.Saturation)
	}
}

// TestServerStopped: a server that died in step 4 (every connection
// refused) stopped there, which is no saturation point, and the steps
// before it are judged alone; one that died during step 3 (its failures
// refused connections, step 4 without a response) stopped in step 3.
func TestServerStopped(t *testing.T) {
	lat := map[stats.Phase]int64{stats.Total: 2000}
	steps := []*stats.Result{
		step{c: 1, elapsed: time.Second, lat: lat, ok: 100}.result(t),
		step{c: 2, elapsed: time.Second / 2, lat: lat, ok: 100}.result(t),
		step{c: 3, elapsed: time.Second / 3, lat: lat, ok: 100}.result(t),
		step{c: 4, elapsed: time.Second / 10, lat: lat, bad: 100}.result(t),
	}
	rp := &Ramp{By: ByConcurrency, Steps: steps, MaxErrors: 0.01}
	if rp.Analyse(); rp.Stopped != 4 || rp.Saturation != 0 {
		t.Errorf("died in step 4: stopped %d, saturation %d", rp.Stopped, rp.Saturation)
	}
	steps[2] = step{c: 3, elapsed: time.Second / 3, lat: lat, ok: 60, bad: 40}.result(t)
	if rp.Analyse(); rp.Stopped != 3 || rp.Saturation != 0 {
		t.Errorf("died in step 3: stopped %d, saturation %d", rp.Stopped, rp.Saturation)
	}
}

// TestLevel: a step's load, its text and name, and the latency a ramp
// reports for it: service time in a closed loop, corrected latency in
// rate steps (service time for a step without it).
func TestLevel(t *testing.T) {
	r := step{c: 20, rate: 1500, ok: 1, elapsed: time.Second, lat: map[stats.Phase]int64{stats.Total: 300, stats.Corrected: 900}}.result(t)
	if Level(ByConcurrency, r) != 20 || FormatLevel(ByRate, r) != "1500" || LevelName(ByRate) != "rate" || LevelName(ByConcurrency) != "concurrency" {
		t.Errorf("level %v, %q", Level(ByConcurrency, r), FormatLevel(ByRate, r))
	}
	if Latency(ByRate, r).Max != 900 || Latency(ByConcurrency, r).Max != 300 {
		t.Errorf("latency: rate %d, concurrency %d", Latency(ByRate, r).Max, Latency(ByConcurrency, r).Max)
	}
	r.Latency[stats.Corrected] = nil
	if Latency(ByRate, r).Max != 300 {
		t.Errorf("rate step without corrected latency: %d", Latency(ByRate, r).Max)
	}
}

// TestJSONMaxErrors: the ramp file's max_errors reads back as written, 0
// included; a file from before it existed gets the default 1%.
func TestJSONMaxErrors(t *testing.T) {
	for in, want := range map[string]float64{`{"steps_by":"rate","max_errors":0}`: 0, `{"steps_by":"rate","max_errors":0.5}`: 0.5, `{"steps_by":"rate"}`: 0.01} {
		var rp Ramp
		if err := json.Unmarshal([]byte(in), &rp); err != nil || rp.MaxErrors != want || rp.By != ByRate {
			t.Errorf("%s: %v, max errors %v, by %q", in, err, rp.MaxErrors, rp.By)
		}
	}
}
