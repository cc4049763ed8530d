package record

import (
	"math"
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/gb-bench/gb/stats"
)

// TestSeriesCountsEachRequestInItsInterval: requests end in the interval
// of their end time; a recorder idle for several intervals still puts its
// late requests in the right ones; every point exists; the points' counts
// and histograms add up to the run's totals.
func TestSeriesCountsEachRequestInItsInterval(t *testing.T) {
	start := time.Unix(1795269090, 250_000_000) // a quarter into a second
	end := start.Add(3500 * time.Millisecond)   // 3.5 s: points for seconds 0..3 of the run's wall clock
	groups := NewGroups(2)
	recs := []*Recorder{NewRecorder(groups[0], false, false, 0), NewRecorder(groups[1], false, false, 0),
		NewRecorder(groups[0], false, false, 0)}
	for _, r := range recs {
		r.StartSeries(time.Second, start)
	}
	ms := func(n int64) int64 { return n * int64(time.Millisecond) }
	ok := func(r *Recorder, total, at int64) {
		tm := Timing{stats.Total: total}
		r.Response(&tm, 0)
		r.Status(200)
		r.EndAt(stats.OK, at)
	}
	// second 0 (the run's first 750 ms): 40 ok on rec 0, one reset on rec 1.
	for i := int64(0); i < 40; i++ {
		ok(recs[0], 1000+i, ms(10+i))
	}
	recs[1].EndAt(stats.FailReset, ms(700))
	// second 1: 100 ok on rec 1 (several batches), 1 non2xx on rec 2.
	for i := int64(0); i < 100; i++ {
		ok(recs[1], 5000, ms(800+i))
	}
	tm := Timing{stats.Total: 9000}
	recs[2].Response(&tm, 0)
	recs[2].Status(503)
	recs[2].EndAt(stats.Non2xx, ms(1700))
	// seconds 2 and 3: rec 0 (flushing, as at a full batch) and rec 1 move
	// on; then rec 2, idle since second 1, ends requests in second 2: its
	// group has retired second 1 by then.
	ok(recs[0], 7000, ms(1760))
	recs[0].Flush()
	ok(recs[0], 7000, ms(2800))
	recs[0].Flush()
	ok(recs[1], 7000, ms(2900))
	ok(recs[2], 3000, ms(1800))
	recs[2].EndAt(stats.TimeoutTotal, ms(2000))
	base := stats.Result{Start: start, End: end, Counts: stats.Counts{Dispatched: 147}}
	res := Collect(base, recs, groups)
	if errs := res.Check(); len(errs) > 0 {
		t.Fatal(errs)
	}
	s := res.Series
	if s == nil || s.Interval != time.Second || len(s.Points) != 4 {
		t.Fatalf("series %+v", s)
	}
	type want struct{ ended, ok, non2xx, failed, lat int64 }
	wants := []want{{41, 40, 0, 1, 40}, {101, 100, 1, 0, 101}, {3, 2, 0, 1, 2}, {2, 2, 0, 0, 2}}
	var hist int64
	for i, w := range wants {
		p := s.Points[i]
		if !p.Start.Equal(time.Unix(1795269090+int64(i), 0)) {
			t.Errorf("point %d starts %v", i, p.Start)
		}
		var lat int64
		if p.Latency != nil {
			lat = p.Latency.Count
			hist += p.Latency.Histogram().TotalCount()
		}
		if got := (want{p.Ended, p.OK, p.Non2xx, p.Failed, lat}); got != w {
			t.Errorf("point %d: %+v, want %+v", i, got, w)
		}
	}
	if hist != res.Latency[stats.Total].Count {
		t.Errorf("points hold %d samples, the run %d", hist, res.Latency[stats.Total].Count)
	}
	if p := s.Points[0]; p.Errors["failed.reset"] != 1 || p.Latency.Min != 1000 || p.Latency.Max != 1039 || p.Latency.Percentile(50) != 1019 {
		t.Errorf("point 0: errors %v latency %+v p50 %d", p.Errors, p.Latency.Exact, p.Latency.Percentile(50))
	}
	if p := s.Points[2]; p.Errors["failed.timeout.total"] != 1 || p.Latency.Min != 3000 || p.Latency.Max != 7000 {
		t.Errorf("point 2: errors %v latency %+v", p.Errors, p.Latency.Exact)
	}
	// the first point covers 750 ms of the run: its rate is over those.
	if r := s.Points[0].RPS; r < 53.3 || r > 53.4 {
		t.Errorf("point 0 rps %v, want 40/0.75", r)
	}
	back, _ := roundTrip(t, res)
	if p := back.Series.Points[1].Latency.Percentile(99); p != s.Points[1].Latency.Percentile(99) || p < 5000 || p > 5005 {
		t.Error("the series does not survive a JSON round trip")
	}
}

// TestNoSeriesWithoutStartSeries: recorders that keep no series give a
// result without one, and the same histograms.
func TestNoSeriesWithoutStartSeries(t *testing.T) {
	groups := NewGroups(1)
	rec := NewRecorder(groups[0], true, false, 0)
	for i := int64(1); i <= 100; i++ {
		tm := Timing{stats.Total: i, stats.Corrected: 2 * i}
		rec.Response(&tm, 0)
		rec.EndAt(stats.OK, i*int64(time.Second))
	}
	res := Collect(stats.Result{Counts: stats.Counts{Dispatched: 100}}, []*Recorder{rec}, groups)
	if res.Series != nil || res.Latency[stats.Corrected].Percentile(100) != 200 || res.Latency[stats.Total].Hist.TotalCount() != 100 {
		t.Errorf("series %v, corrected max %d", res.Series, res.Latency[stats.Corrected].Percentile(100))
	}
}

// TestSeriesRecordingAllocatesNothing: with a series, recording a request
// (batch flushes into the group's interval included) allocates nothing;
// only a new interval costs memory, once per group and interval.
func TestSeriesRecordingAllocatesNothing(t *testing.T) {
	groups := NewGroups(1)
	rec := NewRecorder(groups[0], true, false, 0)
	rec.StartSeries(time.Hour, time.Unix(1795269600, 0))
	var at int64
	one := func() {
		at += 1000
		tm := Timing{stats.Total: 100 + at%5000, stats.Corrected: 200 + at%7000, stats.Lag: 3}
		rec.Response(&tm, 0)
		rec.Status(200)
		rec.EndAt(stats.OK, at)
	}
	for range 3 * batchLen { // the group's histograms exist
		one()
	}
	many := func() { // AllocsPerRun rounds down per run: count over many requests
		for range 10 * batchLen {
			one()
		}
	}
	if n := testing.AllocsPerRun(5, many); n != 0 {
		t.Errorf("%v allocations per %d requests", n, 10*batchLen)
	}
}

// TestSeriesWithoutRunTimes: a result merged without Start and End (a
// caller that does not time the run) has the points that hold requests,
// not every interval since 1970.
func TestSeriesWithoutRunTimes(t *testing.T) {
	groups := NewGroups(1)
	rec := NewRecorder(groups[0], false, false, 0)
	rec.StartSeries(time.Second, time.Unix(1795269600, 0))
	for _, at := range []int64{1, 2, 3} {
		tm := Timing{stats.Total: 10}
		rec.Response(&tm, 0)
		rec.EndAt(stats.OK, at*int64(time.Second))
	}
	s := Collect(stats.Result{Counts: stats.Counts{Dispatched: 3}}, []*Recorder{rec}, groups).Series
	if s == nil || len(s.Points) != 3 || !s.Points[0].Start.Equal(time.Unix(1795269601, 0)) {
		t.Errorf("series %+v", s)
	}
}

// TestClosedLatencyAndLive: while one recorder runs through four
// seconds, ClosedLatency answers nothing until the group has handed over
// two intervals, then the percentiles of the older; AddLive counts every
// ended request by outcome.
func TestClosedLatencyAndLive(t *testing.T) {
	start := time.Unix(1795269090, 0)
	groups := NewGroups(1)
	r := NewRecorder(groups[0], false, false, 0)
	r.StartSeries(time.Second, start)
	end := func(total, at int64) {
		tm := Timing{stats.Total: total}
		r.Response(&tm, 0)
		r.Status(200)
		r.EndAt(stats.OK, at*int64(time.Millisecond))
		r.Flush()
	}
	for i := range int64(100) { // second 0: 1..100 ms
		end(1000*(i+1), 5*i)
	}
	end(50_000, 1500) // second 1
	if _, _, ok := ClosedLatency(groups); ok {
		t.Fatal("a closed interval before any was handed over")
	}
	end(60_000, 2500) // second 2: second 0 is handed over
	if _, _, ok := ClosedLatency(groups); ok {
		t.Fatal("an answer with one interval handed over")
	}
	end(70_000, 3500) // second 3: second 1 too, the newest handed over
	// The newest handed over is second 1; the answer is second 0's, where
	// the samples are 1..100 ms (within the histogram's 0.1%).
	p50, p99, ok := ClosedLatency(groups)
	if !ok || p50 < 50_000 || p50 > 50_050 || p99 < 99_000 || p99 > 99_100 {
		t.Errorf("closed latency p50 %d p99 %d ok %v; want second 0's, about 50000 and 99000 µs", p50, p99, ok)
	}
	r.EndAt(stats.FailReset, 3600*int64(time.Millisecond))
	var c LiveCounts
	r.AddLive(&c)
	if c.Outcomes[stats.OK] != 103 || c.Outcomes[stats.FailReset] != 1 || r.Done() != 104 {
		t.Errorf("live ok %d reset %d done %d, want 103, 1, 104", c.Outcomes[stats.OK], c.Outcomes[stats.FailReset], r.Done())
	}
}

// TestClosedWatchAllocatesNothing: a watcher copying the closed intervals
// (CopyClosed, a metrics scrape) between the requests adds no allocation
// to recording (a new interval costs the same, watched or not); after
// Merge the copies hold the whole run, with its status classes and bytes.
func TestClosedWatchAllocatesNothing(t *testing.T) {
	groups := NewGroups(1)
	rec := NewRecorder(groups[0], true, false, 0)
	rec.StartSeries(time.Millisecond, time.Unix(1795269600, 0))
	var dst [2]*hdrhistogram.Histogram
	var at int64
	interval := func() { // one whole 1 ms interval: 100 requests 10 µs apart
		for range 100 {
			at += 10_000
			tm := Timing{stats.Total: 100 + at%5000, stats.Corrected: 200 + at%7000, stats.Lag: 3}
			rec.Response(&tm, 0)
			rec.Body(10, nil, 0)
			rec.BytesIn += 50
			rec.Status(200 + 300*int(at/10_000%2)) // 200 and 500 in turn
			rec.EndAt(stats.OK, at)
		}
	}
	for range 5 { // the group's histograms exist
		interval()
	}
	// The fewest allocations of one interval's requests: an interval's
	// point costs the same in each, but the timeline's map grows now and
	// then, in one of them.
	allocs := func(watch bool) float64 {
		least := math.Inf(1)
		for range 10 {
			if watch {
				CopyClosed(groups, &dst)
			}
			least = min(least, testing.AllocsPerRun(1, interval))
		}
		return least
	}
	if without, with := allocs(false), allocs(true); with != without {
		t.Errorf("recording an interval: %v allocations watched, %v unwatched", with, without)
	}
	res := Collect(stats.Result{}, []*Recorder{rec}, groups)
	c := CopyClosed(groups, &dst)
	if dst[0].TotalCount() != res.Latency[stats.Total].Hist.TotalCount() || dst[1].TotalCount() != res.Latency[stats.Corrected].Hist.TotalCount() {
		t.Errorf("closed copies hold %d and %d, the result %d and %d", dst[0].TotalCount(), dst[1].TotalCount(),
			res.Latency[stats.Total].Hist.TotalCount(), res.Latency[stats.Corrected].Hist.TotalCount())
	}
	if c.BytesIn != res.Counts.BytesIn || c.Status[2] != res.Counts.Status[200] || c.Status[5] != res.Counts.Status[500] || c.Status[2] == 0 || c.Status[5] == 0 {
		t.Errorf("closed counts %+v, result bytes %d status %v", c, res.Counts.BytesIn, res.Counts.Status)
	}
}
