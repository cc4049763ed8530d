package record

import (
	"bytes"
	"encoding/json"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/gb-bench/gb/stats"
)

// longRun is a run of one-second intervals driven by a scripted clock:
// perSecond requests end in each simulated second, on the recorders of
// the run's groups. With latency, their latencies vary over the run (so
// the histograms hold many buckets) and every 50th request is a reset;
// without, every request is a reset (no histogram: a day is quick to
// simulate).
type longRun struct {
	start   time.Time
	groups  []*Group
	recs    []*Recorder
	latency bool
	sec     int64 // seconds simulated so far
	sent    int64
}

const perSecond = 4

// newLongRun returns a run of n groups of one recorder each; recent and
// maxOld, when positive, replace the timeline's bounds.
func newLongRun(n int, latency bool, recent, maxOld int64) *longRun {
	l := &longRun{start: time.Unix(1795269090, 250_000_000), groups: NewGroups(n), latency: latency}
	l.groups[0].tl.recent, l.groups[0].tl.maxOld = recent, maxOld
	for i := range n {
		r := NewRecorder(l.groups[i], true, false, 0)
		r.StartSeries(time.Second, l.start)
		l.recs = append(l.recs, r)
	}
	return l
}

// run simulates the next n seconds.
func (l *longRun) run(n int64) {
	for end := l.sec + n; l.sec < end; l.sec++ {
		for i := range int64(perSecond) {
			at := l.sec*int64(time.Second) + i*int64(time.Second)/perSecond
			r := l.recs[int(i)%len(l.recs)]
			l.sent++
			if !l.latency || l.sent%50 == 0 {
				r.EndAt(stats.FailReset, at)
				continue
			}
			us := 200 + (l.sec*37+i*101)%50000 // 0.2 to 50 ms
			tm := Timing{stats.Total: us, stats.Processing: us, stats.Corrected: us + 10}
			r.Response(&tm, 0)
			r.Status(200)
			r.EndAt(stats.OK, at)
		}
	}
}

// points returns how many points the run's timeline holds.
func (l *longRun) points() int {
	tl := l.groups[0].tl
	tl.mu.Lock()
	defer tl.mu.Unlock()
	return len(tl.points) + len(tl.bulk) + len(tl.tail)
}

// bound is the most points the run's timeline may hold.
func (l *longRun) bound() int {
	tl := l.groups[0].tl
	return int(cmpOr(tl.recent, recentPoints) + cmpOr(tl.maxOld, maxOldPoints) + 64 + 1) // the tail: fewer than log2(width) <= 63 points
}

// result collects the run so far.
func (l *longRun) result() *stats.Result {
	end := l.start.Add(time.Duration(l.sec) * time.Second)
	return Collect(stats.Result{Start: l.start, End: end, Elapsed: end.Sub(l.start),
		Load:   stats.Load{URL: "http://127.0.0.1:1/", Rate: perSecond},
		Counts: stats.Counts{Dispatched: l.sent, Scheduled: l.sent}}, l.recs, l.groups)
}

// skipUnderRace skips a test that simulates hours: under the race
// detector each simulated hour takes minutes.
func skipUnderRace(t *testing.T) {
	t.Helper()
	if raceEnabled {
		t.Skip("simulates hours: minutes under the race detector")
	}
}

// heap returns the bytes live on the heap after a collection.
func heap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// TestSeriesStaysFlatOverDays: with gb's own bounds, a run's timeline
// holds at most recentPoints+maxOldPoints+1 points at every simulated hour
// of 100 hours, and its series' JSON is no longer after 100 hours than
// after 10: memory and output are bounded whatever the run's length.
// Counts stay exact (checkFlatSeries).
func TestSeriesStaysFlatOverDays(t *testing.T) {
	skipUnderRace(t)
	l := newLongRun(1, false, 0, 0)
	var at10h []byte
	for h := 1; h <= 100; h++ {
		l.run(3600)
		if n := l.points(); n > l.bound() {
			t.Fatalf("after %d h: %d points, want at most %d", h, n, l.bound())
		}
		if h == 10 {
			at10h = seriesJSON(t, l.result())
		}
	}
	res := l.result()
	checkFlatSeries(t, res, l.bound()+1)
	if b := seriesJSON(t, res); len(b) > len(at10h)+len(at10h)/10 {
		t.Errorf("series JSON %d bytes after 100 h, %d after 10 h", len(b), len(at10h))
	}
}

// TestSeriesStaysFlat: with latencies (histograms in every point) and
// smaller bounds (30 recent points, 30 coarse ones: the same code at a
// scale a test can simulate in seconds), from hour 1 to hour 3 the
// timeline stays within its points, the heap grows by less than 1 MiB
// (keeping the per-second points of those 2 hours took 6 MiB), the
// series' JSON does not grow, the live view's latency still reads a recent
// interval, and the points sum to the run.
func TestSeriesStaysFlat(t *testing.T) {
	skipUnderRace(t)
	l := newLongRun(1, true, 30, 30)
	l.run(3600)
	before := heap()
	at1h := seriesJSON(t, l.result())
	for h := 2; h <= 3; h++ {
		l.run(3600)
		if n := l.points(); n > l.bound() {
			t.Fatalf("after %d h: %d points, want at most %d", h, n, l.bound())
		}
	}
	grown := int64(heap()) - int64(before)
	if !raceEnabled && grown > 1<<20 {
		t.Errorf("the heap grew by %d bytes from hour 1 to hour 3", grown)
	}
	if p50, p99, ok := ClosedLatency(l.groups); !ok || p50 <= 0 || p99 < p50 {
		t.Errorf("live latency after 3 h: p50 %d p99 %d ok %v", p50, p99, ok)
	}
	res := l.result()
	checkFlatSeries(t, res, l.bound()+1)
	if b := seriesJSON(t, res); len(b) > len(at1h)+len(at1h)/5 {
		t.Errorf("series JSON %d bytes after 3 h, %d after 1 h", len(b), len(at1h))
	}
}

// checkFlatSeries checks res's series: at most bound points, each
// starting where the one before ends, each a power of two intervals wide
// and starting at a whole multiple of its width; its counts and
// latencies sum to the run's.
func checkFlatSeries(t *testing.T, res *stats.Result, bound int) {
	t.Helper()
	if errs := res.Check(); len(errs) > 0 {
		t.Fatal(errs)
	}
	s := res.Series
	if s == nil || len(s.Points) == 0 || len(s.Points) > bound {
		t.Fatalf("series of %d points, want 1 to %d", len(s.Points), bound)
	}
	var ended, ok, failed, lat, corr int64
	coarse := 0
	for i, p := range s.Points {
		w := s.Width(i)
		n := int64(w / s.Interval)
		if n < 1 || n&(n-1) != 0 || w%s.Interval != 0 || p.Start.UnixNano()%int64(w) != 0 {
			t.Fatalf("point %d: width %v at %v", i, w, p.Start)
		}
		if n > 1 {
			coarse++
		}
		if i > 0 && !s.Points[i-1].Start.Add(s.Width(i-1)).Equal(p.Start) {
			t.Fatalf("point %d starts at %v, the one before ends at %v", i, p.Start, s.Points[i-1].Start.Add(s.Width(i-1)))
		}
		ended, ok, failed = ended+p.Ended, ok+p.OK, failed+p.Failed
		if p.Latency != nil {
			lat += p.Latency.Count
		}
		if p.Corrected != nil {
			corr += p.Corrected.Count
		}
	}
	o := res.Counts.Outcomes
	count := func(d *stats.Dist) int64 {
		if d == nil {
			return 0
		}
		return d.Count
	}
	if ended != res.Counts.Dispatched || ok != o[stats.OK] || failed != o.Failed() || lat != count(res.Latency[stats.Total]) ||
		corr != count(res.Latency[stats.Corrected]) {
		t.Errorf("points sum to ended %d ok %d failed %d latencies %d/%d; the run's %d %d %d %d/%d", ended, ok, failed, lat, corr,
			res.Counts.Dispatched, o[stats.OK], o.Failed(), count(res.Latency[stats.Total]), count(res.Latency[stats.Corrected]))
	}
	if coarse == 0 {
		t.Error("no coarse point")
	}
	for i := len(s.Points) - 3; i < len(s.Points); i++ {
		if s.Width(i) != s.Interval || s.Points[i].Ended == 0 && i < len(s.Points)-1 {
			t.Errorf("recent point %d: %v wide, %d ended; want one interval with requests", i, s.Width(i), s.Points[i].Ended)
		}
	}
}

// seriesJSON returns res's series as JSON, and checks that it reads back.
func seriesJSON(t *testing.T, res *stats.Result) []byte {
	t.Helper()
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	back, err := stats.ReadResult(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if len(back.Series.Points) != len(res.Series.Points) || back.Series.Width(0) != res.Series.Width(0) {
		t.Fatalf("read back: %d points, %v wide first; want %d, %v", len(back.Series.Points), back.Series.Width(0),
			len(res.Series.Points), res.Series.Width(0))
	}
	s, _ := json.Marshal(res.Series)
	return s
}

// TestFlatSeriesShardsMerge: two processes of one load (shards, the same
// wall-clock seconds) whose series coarsened at different times (one ran
// longer) merge: counts sum, the merged points are each other's or the
// wider of them, and the merged series passes the same checks.
func TestFlatSeriesShardsMerge(t *testing.T) {
	skipUnderRace(t)
	a, b := newLongRun(1, true, 30, 30), newLongRun(1, true, 30, 30)
	a.run(3600)
	b.run(2400 + 17)
	ra, rb := a.result(), b.result()
	ra.Load.Shard, rb.Load.Shard = stats.ShardID{Index: 0, Count: 2}, stats.ShardID{Index: 1, Count: 2}
	m, err := stats.Merge(ra, rb)
	if err != nil {
		t.Fatal(err)
	}
	checkFlatSeries(t, m, 2*a.bound()+2)
	if m.Counts.Dispatched != a.sent+b.sent {
		t.Errorf("merged %d requests of %d", m.Counts.Dispatched, a.sent+b.sent)
	}
}

// TestSeriesShortRunUnchanged: a run shorter than the recent window keeps
// one point per interval, each Interval wide, as before.
func TestSeriesShortRunUnchanged(t *testing.T) {
	l := newLongRun(1, true, 0, 0)
	l.run(recentPoints / 2)
	s := l.result().Series
	for i := range s.Points {
		if s.Width(i) != time.Second {
			t.Fatalf("point %d of a short run is %v wide", i, s.Width(i))
		}
	}
	if got, want := len(s.Points), recentPoints/2+1; got != want { // the run's last (partial) second too
		t.Errorf("%d points, want %d", got, want)
	}
}

// TestFlatSeriesConcurrent: two workers record on their own groups of
// one timeline at once while it coarsens (small bounds: 4 recent points,
// 4 coarse ones); the series still sums to the run. Short enough for the
// race detector.
func TestFlatSeriesConcurrent(t *testing.T) {
	l := newLongRun(2, true, 4, 4)
	var wg sync.WaitGroup
	sent := make([]int64, 2)
	for w := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := l.recs[w]
			for sec := range int64(600) {
				for i := range int64(perSecond) {
					at := sec*int64(time.Second) + i*int64(time.Second)/perSecond
					tm := Timing{stats.Total: 300 + i, stats.Processing: 300 + i, stats.Corrected: 310 + i}
					r.Response(&tm, 0)
					r.Status(200)
					r.EndAt(stats.OK, at)
					sent[w]++
				}
			}
		}()
	}
	wg.Wait()
	l.sec, l.sent = 600, sent[0]+sent[1]
	if n := l.points(); n > l.bound() {
		t.Errorf("%d points, want at most %d", n, l.bound())
	}
	checkFlatSeries(t, l.result(), l.bound()+1)
}
