package record

import (
	"bytes"
	"encoding/json"
	"math"
	"sort"
	"testing"
	"time"

	"github.com/gb-bench/gb/stats"
)

// record feeds n responses of the given body length into rec.
func record(rec *Recorder, n int, length int64, total int64, at int64) {
	for i := 0; i < n; i++ {
		tm := Timing{stats.Connect: 1, stats.Processing: total - 1, stats.Waiting: total / 2, stats.Total: total}
		rec.Response(&tm, 0)
		rec.Body(length, []byte("nginx/1.22.1"), at+int64(i))
		rec.Status(200)
		rec.End(stats.OK)
	}
}

func TestMergeFirstResponseAndLengths(t *testing.T) {
	groups := NewGroups(2)
	early, late := NewRecorder(groups[0], false, false, 0), NewRecorder(groups[1], false, false, 0)
	record(late, 5, 200, 1000, 500)  // first seen later: its length 200 is the mismatch
	record(early, 7, 100, 3000, 100) // the run's first response: doc length 100
	record(late, 2, 100, 2000, 900)
	res := Collect(stats.Result{Counts: stats.Counts{Dispatched: 14}}, []*Recorder{early, late}, groups)
	if res.Server.DocumentLength != 100 || res.Counts.LengthMismatch != 5 {
		t.Errorf("doc length %d mismatches %d, want 100 and 5", res.Server.DocumentLength, res.Counts.LengthMismatch)
	}
	if res.Server.Software != "nginx/1.22.1" {
		t.Errorf("server %q", res.Server.Software)
	}
	if d := res.Latency[stats.Total]; d.Count != 14 || d.Hist.TotalCount() != 14 || d.Min != 1000 || d.Max != 3000 {
		t.Errorf("total dist %+v", d.Exact)
	}
	if res.Counts.Status[200] != 14 || res.Latency[stats.Corrected] != nil {
		t.Errorf("status %v corrected %v", res.Counts.Status, res.Latency[stats.Corrected])
	}
	if errs := res.Check(); len(errs) != 0 {
		t.Errorf("check: %v", errs)
	}
	res.Load.VariableLength = true
	if res.Failed() != 0 {
		t.Errorf("with -l, length mismatches are not failures: %d", res.Failed())
	}
}

func TestStatusOverflow(t *testing.T) {
	rec := NewRecorder(NewGroups(1)[0], false, false, 0)
	for code := 200; code < 200+maxStatuses+3; code++ {
		rec.Status(code)
	}
	res := Collect(stats.Result{}, []*Recorder{rec}, nil)
	if len(res.Counts.Status) != maxStatuses || res.Counts.OtherStatus != 3 {
		t.Errorf("status %d codes, other %d", len(res.Counts.Status), res.Counts.OtherStatus)
	}
}

func TestResultJSONRoundTrip(t *testing.T) {
	groups := NewGroups(1)
	rec := NewRecorder(groups[0], true, false, 0)
	for i := int64(1); i <= 100; i++ {
		tm := Timing{stats.Connect: 0, stats.Processing: i * 10, stats.Waiting: i, stats.Total: i * 10, stats.Corrected: i * 20}
		rec.Response(&tm, 0)
		rec.Body(5, nil, i)
		rec.Status(200)
		rec.End(stats.OK)
	}
	rec.End(stats.FailReset)
	res := Collect(stats.Result{Counts: stats.Counts{Dispatched: 101}}, []*Recorder{rec}, groups)
	back, b := roundTrip(t, res)
	if back.Counts.Outcomes != res.Counts.Outcomes || back.Latency[stats.Corrected].Percentile(99) != res.Latency[stats.Corrected].Percentile(99) ||
		back.Latency[stats.Total].Exact.M2 != res.Latency[stats.Total].Exact.M2 {
		t.Errorf("round trip changed the result")
	}
	if !bytes.Contains(b, []byte(`"failed.reset":1`)) || !bytes.Contains(b, []byte(`"hdr":"HISTF`)) {
		t.Errorf("JSON lacks outcome names or base64 V2 histograms: %s", b)
	}
	if err := json.Unmarshal([]byte(`{"counts":{"outcomes":{"bogus":1}}}`), back); err == nil {
		t.Error("unknown outcome accepted")
	}
}

// TestErrorCardinalityCapped (I14): distinct error messages are capped
// per recorder and per result; the rest are counted, never dropped.
func TestErrorCardinalityCapped(t *testing.T) {
	groups := NewGroups(1)
	var recs []*Recorder
	var total int64
	for w := 0; w < 10; w++ {
		rec := NewRecorder(groups[0], false, false, 0)
		for i := 0; i < 40; i++ {
			rec.Error("error " + string(rune('A'+w)) + string(rune('a'+i%26)) + string(rune('0'+i/26)))
			total++
		}
		recs = append(recs, rec)
	}
	res := Collect(stats.Result{}, recs, groups)
	var sum int64
	for _, n := range res.Counts.Errors {
		sum += n
	}
	if len(res.Counts.Errors) > maxRunErrors || sum+res.Counts.OtherErrors != total {
		t.Errorf("%d distinct errors kept, %d counted of %d", len(res.Counts.Errors), sum+res.Counts.OtherErrors, total)
	}
}

// TestHistogramPrecision (I9): every percentile from the histogram is
// within 0.1% (plus 1 µs) of the exact order statistic of the samples.
func TestHistogramPrecision(t *testing.T) {
	groups := NewGroups(1)
	rec := NewRecorder(groups[0], false, false, 0)
	var vals []int64
	x := uint64(7)
	for i := 0; i < 100000; i++ {
		x = x*6364136223846793005 + 1442695040888963407
		v := int64(50 + (x>>33)%2000000) // 50 µs to 2 s
		vals = append(vals, v)
		tm := Timing{stats.Total: v}
		rec.Response(&tm, 0)
		rec.End(stats.OK)
	}
	res := Collect(stats.Result{Counts: stats.Counts{Dispatched: int64(len(vals))}}, []*Recorder{rec}, groups)
	sort.Slice(vals, func(i, j int) bool { return vals[i] < vals[j] })
	for _, p := range []float64{1, 10, 50, 90, 99, 99.9, 99.99, 100} {
		rank := int(math.Ceil(p/100*float64(len(vals)))) - 1
		exact := vals[max(rank, 0)]
		got := res.Latency[stats.Total].Percentile(p)
		if d := math.Abs(float64(got - exact)); d > 0.001*float64(exact)+1 {
			t.Errorf("p%v: histogram %d µs, exact %d µs", p, got, exact)
		}
	}
	if res.Latency[stats.Total].Sum != sum(vals) {
		t.Error("exact sum differs")
	}
}

func sum(v []int64) (s int64) {
	for _, x := range v {
		s += x
	}
	return s
}

// roundTrip writes res as JSON, reads it back, checks that writing the
// copy gives the same bytes, and returns the copy and the JSON.
func roundTrip(t *testing.T, res *stats.Result) (*stats.Result, []byte) {
	t.Helper()
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	var back stats.Result
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if b2, _ := json.Marshal(&back); !bytes.Equal(b, b2) {
		t.Errorf("re-encoding differs:\n%s\n%s", b, b2)
	}
	return &back, b
}

// TestAddDroppedCensors checks AddDropped: one censored sample per dropped
// request at (end - intended time), never negative, and the I5 check of
// the corrected latency's count.
func TestAddDroppedCensors(t *testing.T) {
	groups := NewGroups(1)
	rec := NewRecorder(groups[0], true, false, 0)
	tm := Timing{stats.Total: 500, stats.Processing: 500, stats.Corrected: 700}
	rec.Response(&tm, 0)
	rec.End(stats.OK)
	res := Collect(stats.Result{Elapsed: 10 * time.Millisecond, Load: stats.Load{Rate: 400},
		Counts: stats.Counts{Dispatched: 1, Scheduled: 4}}, []*Recorder{rec}, groups)
	res.Counts.Outcomes[stats.Dropped] = 3
	if errs := res.Check(); len(errs) != 1 {
		t.Errorf("corrected count without the dropped requests: %v", errs)
	}
	res.AddDropped(func(k int64) time.Duration { return time.Duration(k+1) * 4 * time.Millisecond }) // 4, 8, 12 ms
	c := res.Latency[stats.Corrected]
	if c.Count != 4 || c.Sum != 700+6000+2000+0 || c.Min != 0 || c.Max != 6000 || c.Hist.TotalCount() != 4 {
		t.Errorf("corrected %+v", c.Exact)
	}
	if errs := res.Check(); len(errs) != 0 {
		t.Errorf("invariants: %v", errs)
	}
	empty := &stats.Result{Elapsed: time.Second, Load: stats.Load{Rate: 1}, Counts: stats.Counts{Scheduled: 2}}
	empty.Counts.Outcomes[stats.Dropped] = 2
	empty.AddDropped(func(k int64) time.Duration { return time.Duration(k) * time.Second })
	if c := empty.Latency[stats.Corrected]; c == nil || c.Count != 2 || c.Max != 1_000_000 || len(empty.Check()) != 0 {
		t.Errorf("all dropped: %+v %v", c, empty.Check())
	}
}
