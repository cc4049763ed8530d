package record

import (
	"encoding/json"
	"github.com/gb-bench/gb/stats"
	"strings"
	"testing"
	"time"
)

// recordTargets records n requests on rec, request i going to target i%k:
// target j's requests take 100*(j+1) µs, and every 7th request of target
// 2 fails with a reset.
func recordTargets(rec *Recorder, n, k int) {
	for i := range n {
		j := i % k
		o := stats.OK
		if j == 2 && i%7 == 0 {
			o = stats.FailReset
		}
		us := int64(100 * (j + 1))
		if o.Responded() {
			tm := Timing{stats.Total: us}
			rec.Response(&tm, 0)
			rec.Status(200)
		}
		rec.EndTarget(j, o, 10, 3, 5, us)
		rec.End(o)
	}
}

// TestTargetsMerge: per-target counts of several recorders on several
// groups merge into one account per target; their requests sum to the
// run's, and each target's latency holds only its own responses.
func TestTargetsMerge(t *testing.T) {
	groups := NewGroups(2)
	recs := []*Recorder{NewRecorder(groups[0], false, false, 0), NewRecorder(groups[1], false, false, 0),
		NewRecorder(groups[0], false, false, 0)}
	for _, rec := range recs {
		recordTargets(rec, 300, 3)
	}
	base := stats.Result{Targets: []stats.TargetStats{{URL: "http://a/1", Method: "GET"}, {URL: "http://a/2", Method: "GET"},
		{URL: "http://b/3", Method: "POST"}}}
	base.Counts.Dispatched = 900
	res := Collect(base, recs, groups)
	if len(res.Targets) != 3 {
		t.Fatalf("%d targets", len(res.Targets))
	}
	var sum int64
	for j, tg := range res.Targets {
		sum += tg.Requests
		if tg.Requests != 300 {
			t.Errorf("target %d: %d requests, want 300", j, tg.Requests)
		}
		if tg.BytesIn != 3000 || tg.BodyIn != 900 || tg.BytesOut != 1500 {
			t.Errorf("target %d: bytes in %d body %d out %d", j, tg.BytesIn, tg.BodyIn, tg.BytesOut)
		}
		want := int64(100 * (j + 1))
		if d := tg.Latency; d == nil || d.Min != want || d.Max != want || d.Percentile(99) != want {
			t.Errorf("target %d: latency %+v, want all %d µs", j, d, want)
		}
	}
	if sum != res.Counts.Outcomes.Sum() {
		t.Errorf("targets' requests %d != the run's %d", sum, res.Counts.Outcomes.Sum())
	}
	// Requests i ≡ 2 (mod 3) and ≡ 0 (mod 7): i = 14 + 21m < 300, per recorder.
	fails := int64(3 * len(rangeStep(14, 300, 21)))
	if got := res.Targets[2].Failed(); got != fails || res.Targets[2].Outcomes[stats.FailReset] != fails {
		t.Errorf("target 3 failed %d, want %d", got, fails)
	}
	if res.Targets[2].Latency.Count != 300-fails {
		t.Errorf("target 3 latency count %d, want %d", res.Targets[2].Latency.Count, 300-fails)
	}
	if res.Targets[0].Failed() != 0 || res.Targets[0].Outcomes[stats.OK] != 300 {
		t.Errorf("target 1 outcomes %v", res.Targets[0].Outcomes)
	}

	// JSON round trip, then Combine of two such results doubles each target.
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	var back stats.Result
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	back.Start, back.End = back.Start.Add(time.Second), back.End.Add(time.Second) // another run of the load: one result twice is refused
	both, err := stats.Merge(&back, res)
	if err != nil {
		t.Fatal(err)
	}
	for j, tg := range both.Targets {
		if tg.Requests != 600 || tg.Latency.Count != 2*res.Targets[j].Latency.Count || tg.URL != res.Targets[j].URL {
			t.Errorf("combined target %d: %d requests, %d latencies", j, tg.Requests, tg.Latency.Count)
		}
	}
	other := back
	other.Targets = res.Targets[:2]
	if _, err := stats.Merge(res, &other); err == nil || !strings.Contains(err.Error(), "another targets list") {
		t.Errorf("Combine of different target lists: %v", err)
	}
}

func rangeStep(from, to, step int) []int {
	var s []int
	for i := from; i < to; i += step {
		s = append(s, i)
	}
	return s
}

// TestOneTargetHasNoTargets: a run without a target list records none,
// and its JSON has no "targets" key (version-2 readers see nothing new).
func TestOneTargetHasNoTargets(t *testing.T) {
	groups := NewGroups(1)
	rec := NewRecorder(groups[0], false, false, 0)
	tm := Timing{stats.Total: 10}
	rec.Response(&tm, 0)
	rec.End(stats.OK)
	res := Collect(stats.Result{}, []*Recorder{rec}, groups)
	b, _ := json.Marshal(res)
	if res.Targets != nil || strings.Contains(string(b), `"targets"`) {
		t.Errorf("one-target result has targets: %v", res.Targets)
	}
}

// TestEndTargetAllocatesNothing: recording a request's target, flushes
// into the run's table included, allocates nothing once each target's
// histogram exists.
func TestEndTargetAllocatesNothing(t *testing.T) {
	rec := NewRecorder(NewGroups(1)[0], false, false, 0)
	recordTargets(rec, 10*batchLen, 3)
	if n := testing.AllocsPerRun(5, func() { recordTargets(rec, 10*batchLen, 3) }); n != 0 {
		t.Errorf("%v allocations per %d requests", n, 10*batchLen)
	}
}

// BenchmarkRecorderTargets is BenchmarkRecorderResponse with EndTarget
// (three targets, round-robin), as a worker of a many-target run records.
// allocs/op must stay 0.
func BenchmarkRecorderTargets(b *testing.B) {
	rec := NewRecorder(NewGroups(1)[0], false, false, 0)
	server := []byte("nginx")
	b.ReportAllocs()
	var i int64
	for b.Loop() {
		i++
		tm := Timing{stats.Processing: 100 + i%900, stats.Waiting: 50 + i%400, stats.Total: 100 + i%900}
		rec.Response(&tm, 0)
		rec.Body(13, server, i)
		rec.Status(200)
		rec.EndTarget(int(i%3), stats.OK, 200, 13, 80, tm[stats.Total])
		rec.End(stats.OK)
	}
	rec.Flush()
}

// TestTargetLengthMismatch: body lengths are judged per target: two
// targets of different lengths are no mismatch, a target whose length
// changes is, and the run's count is the targets' sum.
func TestTargetLengthMismatch(t *testing.T) {
	groups := NewGroups(1)
	rec := NewRecorder(groups[0], false, false, 0)
	for i := range 20 {
		j, body := i%2, int64(5)
		if j == 1 {
			body = 10
			if i == 7 {
				body = 11
			}
		}
		tm := Timing{stats.Total: 50}
		rec.Response(&tm, 0)
		rec.Body(body, nil, int64(i+1))
		rec.EndTarget(j, stats.OK, 100, body, 50, 50)
		rec.End(stats.OK)
	}
	res := Collect(stats.Result{Targets: make([]stats.TargetStats, 2), Counts: stats.Counts{Dispatched: 20}}, []*Recorder{rec}, groups)
	if res.Targets[0].LengthMismatch != 0 || res.Targets[1].LengthMismatch != 1 || res.Counts.LengthMismatch != 1 {
		t.Errorf("mismatches: targets %d and %d, run %d; want 0, 1, 1", res.Targets[0].LengthMismatch,
			res.Targets[1].LengthMismatch, res.Counts.LengthMismatch)
	}
	if errs := res.Check(); len(errs) > 0 {
		t.Errorf("invariants: %v", errs)
	}
}
