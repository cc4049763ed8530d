package capacity

import (
	"bytes"
	"context"
	"math"
	"regexp"
	"strings"
	"testing"

	"github.com/gb-bench/gb/internal/threshold"
)

// fakeServer is a server model for the search: it serves up to limit
// requests per second at 10 ms each, and its p99 crosses the SLO above
// limit. A pool of c connections sends at most c/10ms.
type fakeServer struct {
	limit    int64
	late     map[int64]int // rate: how many of its probes gb sends late
	busyFrom int64         // rate from which gb's CPU is saturated; 0 = never
	slo      threshold.Threshold
	rates    []int64
}

func (f *fakeServer) run(_ context.Context, rate int64, conns int) (Probe, error) {
	f.rates = append(f.rates, rate)
	need := float64(rate) * 0.010
	p := Probe{Rate: rate, Conns: conns, Need: need, PoolShort: need*poolHeadroom > float64(conns),
		Achieved: math.Min(float64(rate), math.Min(float64(conns)/0.010, float64(f.limit)*1.02)), P99: 12000}
	if rate > f.limit {
		p.P99 = 31000 + (rate-f.limit)*100
	}
	if p.ClientBusy = f.busyFrom > 0 && rate >= f.busyFrom; p.ClientBusy {
		p.Achieved = float64(f.busyFrom) // gb sends no faster
	}
	if f.late[rate] > 0 {
		f.late[rate]--
		p.ClientLate, p.LagP99, p.P99 = true, 200000, 210000
	}
	p.SLOs = []SLOResult{{threshold.Result{Threshold: f.slo, Measured: float64(p.P99), Known: true, Pass: float64(p.P99) < f.slo.Value}}}
	p.ErrorsOver = p.ErrorShare > DefaultMaxErrors
	p.Reason = reason(&p, DefaultMaxErrors)
	p.Pass = p.Reason == ""
	return p, nil
}

func newFake(t *testing.T, limit int64) *fakeServer {
	ts, err := SLOs([]string{"p99<20ms"})
	if err != nil {
		t.Fatal(err)
	}
	return &fakeServer{limit: limit, slo: ts[0]}
}

func TestSearchBracketsTheCapacity(t *testing.T) {
	f := newFake(t, 1234)
	o, err := Search(context.Background(), Config{RateMin: 100, Conns: 100}, f.run, nil)
	if err != nil {
		t.Fatal(err)
	}
	if o.Status != Found || o.Capacity > 1234 || o.Failed <= 1234 {
		t.Fatalf("status %s, capacity %d, failed %d: want found, the limit 1234 between them", o.Status, o.Capacity, o.Failed)
	}
	if w := o.Failed - o.Capacity; float64(w) > DefaultPrecision*float64(o.Capacity) {
		t.Errorf("bracket %d..%d wider than 5%%", o.Capacity, o.Failed)
	}
	want := []int64{100, 200, 400, 800, 1600}
	for i, r := range want {
		if f.rates[i] != r {
			t.Fatalf("rates %v: want growth by doubling from 100 first (%v)", f.rates, want)
		}
	}
	for _, p := range o.Probes {
		if p.Rate <= 1234 && !p.Pass {
			t.Errorf("probe at %d failed below the limit: %s", p.Rate, p.Reason)
		}
	}
	var b bytes.Buffer
	if err := o.Answer(&b, []string{"p99<20ms"}); err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(`^capacity: 1 2\d\d req/s at p99 12\.0 ms \(SLO p99<20ms\); next probe 1 2\d\d req/s failed: p99 3\d\.\d ms\nconfidence: \d+ probes; the capacity lies between 1 2\d\d and 1 2\d\d req/s, a bracket of \d\.\d% \(precision 5%\)\n$`)
	if !re.MatchString(b.String()) {
		t.Errorf("answer:\n%s", b.String())
	}
}

func TestSearchGrowsThePool(t *testing.T) {
	f := newFake(t, 1234)
	o, err := Search(context.Background(), Config{RateMin: 800, Conns: 1}, f.run, nil)
	if err != nil {
		t.Fatal(err)
	}
	if o.Probes[0].Retry != RetryPool || o.Probes[1].Rate != 800 || o.Probes[1].Conns < 10 {
		t.Errorf("first probes %+v, %+v: want 800/s rerun with a pool of at least 10", o.Probes[0], o.Probes[1])
	}
	if o.Status != Found || o.Capacity > 1234 || o.Failed <= 1234 {
		t.Errorf("status %s, capacity %d, failed %d", o.Status, o.Capacity, o.Failed)
	}
	// Above the limit the server, not the pool, is short: one rerun
	// shows it sends no more, and the rate fails.
	for i, p := range o.Probes {
		if p.Retry != "" && i+1 < len(o.Probes) && o.Probes[i+1].Retry != "" && o.Probes[i+1].Rate > 1234 {
			t.Errorf("probe %d: a saturated server was rerun twice", i+2)
		}
	}
}

func TestSearchBounds(t *testing.T) {
	f := newFake(t, 50)
	o, err := Search(context.Background(), Config{RateMin: 100, RateMax: 1000, Conns: 100}, f.run, nil)
	if err != nil || o.Status != BelowMin || o.Capacity != 0 || len(o.Probes) != 2 || o.Probes[0].Retry != RetryConfirm {
		t.Fatalf("limit below the minimum: %v, %+v: want the failure confirmed by a second probe", err, o)
	}
	f = newFake(t, 5000)
	o, err = Search(context.Background(), Config{RateMin: 100, RateMax: 1000, Conns: 100}, f.run, nil)
	if err != nil || o.Status != AboveMax || o.Capacity != 1000 {
		t.Fatalf("limit above the maximum: %v, %+v", err, o)
	}
	if got := f.rates; got[len(got)-1] != 1000 || len(got) != 5 {
		t.Errorf("rates %v: want 100..800 then 1000", got)
	}
	var b bytes.Buffer
	_ = o.Answer(&b, []string{"p99<20ms"})
	if !strings.HasPrefix(b.String(), "capacity: at least 1 000 req/s") {
		t.Errorf("answer %q", b.String())
	}
}

func TestSearchStopsWhenGBIsSaturated(t *testing.T) {
	f := newFake(t, 100000)
	f.busyFrom = 3000
	o, err := Search(context.Background(), Config{RateMin: 100, Conns: 100}, f.run, nil)
	if err != nil {
		t.Fatal(err)
	}
	// 3200/s falls short while gb is busy: the search stops there,
	// without bisecting toward a limit that is gb's.
	if o.Status != ClientBound || o.Capacity != 1600 || f.rates[len(f.rates)-1] != 3200 {
		t.Fatalf("status %s capacity %d rates %v: want client-bound after 3200", o.Status, o.Capacity, f.rates)
	}
	var b bytes.Buffer
	_ = o.Answer(&b, []string{"p99<20ms"})
	if !strings.Contains(b.String(), "not determined") || !strings.Contains(b.String(), "sustained 1 600 req/s") {
		t.Errorf("answer %q", b.String())
	}
}

// TestSearchRerunsLateProbes: a probe that failed because gb sent late
// runs again, uncounted; when gb stays late, the search stops.
func TestSearchRerunsLateProbes(t *testing.T) {
	f := newFake(t, 1234)
	f.late = map[int64]int{400: 1}
	o, err := Search(context.Background(), Config{RateMin: 100, Conns: 100}, f.run, nil)
	if err != nil {
		t.Fatal(err)
	}
	if p := o.Probes[2]; p.Rate != 400 || p.Retry != RetryLate || o.Probes[3].Rate != 400 || !o.Probes[3].Pass {
		t.Errorf("probes 3 and 4: %+v, %+v: want 400/s rerun, then passing", p, o.Probes[3])
	}
	if o.Status != Found || o.Capacity > 1234 || o.Failed <= 1234 {
		t.Errorf("status %s, capacity %d, failed %d", o.Status, o.Capacity, o.Failed)
	}
	f = newFake(t, 1234)
	f.late = map[int64]int{200: 100}
	o, err = Search(context.Background(), Config{RateMin: 100, Conns: 100}, f.run, nil)
	if err != nil || o.Status != ClientBound || o.Capacity != 100 || len(o.Probes) != 1+maxRetries+1 {
		t.Fatalf("%v: status %s capacity %d after %d probes: want client-bound after %d reruns", err, o.Status, o.Capacity, len(o.Probes), maxRetries)
	}
	var b bytes.Buffer
	_ = o.Answer(&b, []string{"p99<20ms"})
	if !strings.Contains(b.String(), "at 200 req/s gb sent late (lag p99 200 ms) though its pool sufficed") {
		t.Errorf("answer %q", b.String())
	}
}

// TestSearchErrorsAreTheServers: a probe that failed on errors fails
// even while gb was busy or late: the search goes on (no client-bound
// stop), and the rate fails once the failure repeats.
func TestSearchErrorsAreTheServers(t *testing.T) {
	f := newFake(t, 100000)
	f.busyFrom = 400
	run := func(ctx context.Context, rate int64, conns int) (Probe, error) {
		p, err := f.run(ctx, rate, conns)
		if rate > 300 { // the server answers 503 to most requests above 300/s
			p.Errors, p.Non2xx, p.ErrorShare, p.ErrorsOver = 600, 600, 0.6, true
			p.Reason, p.Pass = reason(&p, DefaultMaxErrors), false
		}
		return p, err
	}
	o, err := Search(context.Background(), Config{RateMin: 100, Conns: 100}, run, nil)
	if err != nil || o.Status != Found || o.Capacity > 300 || o.Failed <= 300 || o.Capacity < 280 {
		t.Fatalf("%v: status %s capacity %d failed %d: want 300 bracketed", err, o.Status, o.Capacity, o.Failed)
	}
	if p := o.probeAt(o.Failed, false); !strings.Contains(p.Reason, "errors 60%") {
		t.Errorf("failing probe's reason %q", p.Reason)
	}
}

func TestSearchInterrupted(t *testing.T) {
	f := newFake(t, 1234)
	ctx, cancel := context.WithCancel(context.Background())
	run := func(ctx context.Context, rate int64, conns int) (Probe, error) {
		if len(f.rates) == 2 {
			cancel()
		}
		return f.run(ctx, rate, conns)
	}
	o, err := Search(ctx, Config{RateMin: 100, Conns: 100}, run, nil)
	if err != nil || o.Status != Interrupted || len(o.Probes) != 3 {
		t.Fatalf("%v %+v", err, o)
	}
}

// TestSearchConfirmsFailures: one noisy probe (a failure at a rate the
// server sustains) does not end the search: the failure is run again and
// counts only when it repeats.
func TestSearchConfirmsFailures(t *testing.T) {
	f := newFake(t, 1234)
	noisy := map[int64]int{400: 1, 1100: 1} // the first probe at these rates fails
	run := func(ctx context.Context, rate int64, conns int) (Probe, error) {
		p, err := f.run(ctx, rate, conns)
		if noisy[rate] > 0 {
			noisy[rate]--
			p.P99, p.SLOs[0].Measured, p.SLOs[0].Pass = 90000, 90000, false
			p.Reason = reason(&p, DefaultMaxErrors)
			p.Pass = false
		}
		return p, err
	}
	o, err := Search(context.Background(), Config{RateMin: 100, Conns: 100}, run, nil)
	if err != nil {
		t.Fatal(err)
	}
	if o.Status != Found || o.Capacity > 1234 || o.Failed <= 1234 || o.Capacity < 1100 {
		t.Fatalf("status %s, capacity %d, failed %d: want the limit 1234 bracketed despite two noisy probes", o.Status, o.Capacity, o.Failed)
	}
	confirms := 0
	for _, p := range o.Probes {
		if p.Retry == RetryConfirm {
			confirms++
		}
	}
	if confirms < 2 {
		t.Errorf("%d confirming reruns, want one per noisy probe at least", confirms)
	}
}

// TestSearchInterruptedProbe: a probe a signal cut short ends the search
// as interrupted; it is neither a pass nor a failure, and the capacity is
// the last passing rate.
func TestSearchInterruptedProbe(t *testing.T) {
	f := newFake(t, 1234)
	run := func(ctx context.Context, rate int64, conns int) (Probe, error) {
		p, err := f.run(ctx, rate, conns)
		if rate == 400 {
			p.Interrupted, p.Pass, p.Reason = true, false, "interrupted"
		}
		return p, err
	}
	o, err := Search(context.Background(), Config{RateMin: 100, Conns: 100}, run, nil)
	if err != nil || o.Status != Interrupted || len(o.Probes) != 3 || o.Capacity != 200 || o.Failed != 0 {
		t.Fatalf("%v: status %s capacity %d failed %d after %d probes", err, o.Status, o.Capacity, o.Failed, len(o.Probes))
	}
	if p := o.Probes[2]; p.Pass || p.Verdict() != "interrupted" || p.Retry != "" {
		t.Errorf("the cut probe: pass %v, verdict %q, retry %q", p.Pass, p.Verdict(), p.Retry)
	}
}

func TestSearchRefusesBadBounds(t *testing.T) {
	for _, c := range []Config{{RateMin: 0}, {RateMin: 10, RateMax: 5}, {RateMin: 10, Precision: 1}} {
		if _, err := Search(context.Background(), c, nil, nil); err == nil {
			t.Errorf("%+v accepted", c)
		}
	}
}

func TestGroup(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 999: "999", 4200: "4 200", 1234567: "1 234 567", -4200: "-4 200"} {
		if got := Group(n); got != want {
			t.Errorf("Group(%d) = %q, want %q", n, got, want)
		}
	}
}
