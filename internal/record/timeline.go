package record

import (
	"sync"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/gb-bench/gb/stats"
)

// The phases a time series records per interval: Total, and in rate mode
// Corrected. Their run-wide histograms are the sum of the intervals', so a
// sample is recorded into a histogram once, as before the series existed.
const numSeriesPhases = 2

// seriesPhases maps a series slot to its phase.
var seriesPhases = [numSeriesPhases]stats.Phase{stats.Total, stats.Corrected}

// interval accumulates one interval of one group (or of the whole run):
// outcome counts, and per series phase exact moments and a dense histogram
// (allocated on first use). The zero value is empty.
type interval struct {
	idx   int64 // Unix time / interval length: which interval this is
	used  bool
	out   stats.Outcomes
	exact [numSeriesPhases]stats.Exact
	hist  [numSeriesPhases]*hdrhistogram.Histogram

	counts stats.Closed // status classes and bytes flushed into this interval
}

// add folds a recorder's batch and outcome counts into iv. series says
// whether the recorder keeps a series (only then are per-interval exact
// moments worth their cost).
func (iv *interval) add(batch []Timing, out *stats.Outcomes, rate, series bool) {
	for i := range iv.out {
		iv.out[i] += out[i]
	}
	for s, p := range seriesPhases {
		if p == stats.Corrected && !rate || len(batch) == 0 {
			continue
		}
		h := iv.hist[s]
		if h == nil {
			h = stats.NewHistogram()
			iv.hist[s] = h
		}
		for i := range batch {
			v := batch[i][p]
			if series {
				iv.exact[s].Add(v)
			}
			_ = h.RecordValue(min(max(v, stats.HistLowest), stats.HistHighest)) // clamped into range: cannot fail
		}
	}
}

// reset empties iv, keeping its histograms' memory.
func (iv *interval) reset() {
	hist := iv.hist
	*iv = interval{}
	for s, h := range hist {
		if h != nil {
			h.Reset()
			iv.hist[s] = h
		}
	}
}

// timeline collects the intervals that the groups of one run hand over,
// and the run-wide histograms of the series phases. Closed intervals are
// kept sparse (PackedHistogram), so a long run costs memory in proportion
// to the buckets its intervals use, not to their number times a dense
// histogram. Safe for concurrent use.
type timeline struct {
	mu     sync.Mutex
	keep   bool                                     // some recorder keeps a series: store each interval
	points map[int64]*timePoint                     // the recent intervals' points, by interval index (>= cut once coarse)
	coarse                                          // the older intervals, merged (coarse.go)
	total  [numSeriesPhases]*hdrhistogram.Histogram // the run's histograms of the series phases
	newest int64                                    // the newest interval a group handed over; 0 = none
	closed stats.Closed                             // the status classes and bytes handed over

	targets targetTable // per-target counts, in runs with several targets (EndTarget)
}

// timePoint is one interval of the run, all groups summed.
type timePoint struct {
	out   stats.Outcomes
	exact [numSeriesPhases]stats.Exact
	hist  [numSeriesPhases]*hdrhistogram.PackedHistogram
}

// merge adds a group's interval to the run. The caller keeps iv.
func (t *timeline) merge(iv *interval) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.newest = max(t.newest, iv.idx)
	addClosed(&t.closed, &iv.counts)
	t.compact()
	p := t.point(iv.idx)
	if p != nil {
		for i := range p.out {
			p.out[i] += iv.out[i]
		}
	}
	for s, h := range iv.hist {
		if h == nil || h.TotalCount() == 0 {
			continue
		}
		if p != nil {
			p.add(s, &iv.exact[s], h)
		}
		if t.total[s] == nil {
			t.total[s] = stats.NewHistogram()
		}
		t.total[s].Merge(h)
	}
}

// addBatch adds a recorder's batch and outcomes to interval idx directly,
// for a recorder that flushes into an interval its group has retired.
func (t *timeline) addBatch(idx int64, batch []Timing, out *stats.Outcomes, rate, series bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	p := t.point(idx)
	if p != nil {
		for i := range p.out {
			p.out[i] += out[i]
		}
	}
	for s, ph := range seriesPhases {
		if ph == stats.Corrected && !rate || len(batch) == 0 {
			continue
		}
		if t.total[s] == nil {
			t.total[s] = stats.NewHistogram()
		}
		if p != nil && p.hist[s] == nil {
			p.hist[s] = hdrhistogram.NewPacked(stats.HistLowest, stats.HistHighest, stats.HistDigits)
		}
		for i := range batch {
			v := min(max(batch[i][ph], stats.HistLowest), stats.HistHighest)
			_ = t.total[s].RecordValue(v) // clamped into range: cannot fail
			if p != nil {
				_ = p.hist[s].RecordValue(v)
				if series {
					p.exact[s].Add(batch[i][ph])
				}
			}
		}
	}
}

// addCounts adds a recorder's flush to the closed counts directly, beside
// addBatch.
func (t *timeline) addCounts(c *stats.Closed) {
	t.mu.Lock()
	addClosed(&t.closed, c)
	t.mu.Unlock()
}

// point returns the point that holds interval idx, made on first use:
// its own, or, for an interval older than the recent ones, the coarse
// point it was merged into. nil when the run keeps no series.
func (t *timeline) point(idx int64) *timePoint {
	if !t.keep {
		return nil
	}
	if t.coarsened() && idx < t.cut {
		return t.oldPoint(idx)
	}
	if t.points == nil {
		t.points = map[int64]*timePoint{}
	}
	p := t.points[idx]
	if p == nil {
		p = &timePoint{}
		t.points[idx] = p
		t.first = min(t.first, idx)
		if len(t.points) == 1 && !t.coarsened() {
			t.first = idx
		}
	}
	return p
}

// add folds one series phase (slot s) of a group's interval into p.
func (p *timePoint) add(s int, e *stats.Exact, h *hdrhistogram.Histogram) {
	p.exact[s].Merge(e)
	if p.hist[s] == nil {
		p.hist[s] = hdrhistogram.NewPacked(stats.HistLowest, stats.HistHighest, stats.HistDigits)
	}
	p.hist[s].MergeFrom(h)
}

// fillPoint sets pt's counts and latencies from tp.
func fillPoint(pt *stats.Point, tp *timePoint) {
	o := &tp.out
	pt.OK, pt.Non2xx, pt.Failed = o[stats.OK], o[stats.Non2xx], o.Failed()
	pt.Ended = o.Sum() - o[stats.Dropped]
	for i, v := range o {
		if v > 0 && stats.Outcome(i).Failed() {
			if pt.Errors == nil {
				pt.Errors = map[string]int64{}
			}
			pt.Errors[stats.Outcome(i).String()] = v
		}
	}
	for s, h := range tp.hist {
		if h == nil || h.TotalCount() == 0 {
			continue
		}
		d := stats.SparseDist(tp.exact[s], h)
		if seriesPhases[s] == stats.Total {
			pt.Latency = d
		} else {
			pt.Corrected = d
		}
	}
}

// ClosedLatency returns the total latency's p50 and p99 (µs) in the
// interval before the newest one the run's groups have handed over: an
// interval that every busy group has closed, about two intervals old.
// ok is false until there is one. For a live display, from one goroutine
// a few times a second: it takes the timeline's lock (never a recorder's),
// and does not touch the histograms the recorders write.
func ClosedLatency(groups []*Group) (p50, p99 int64, ok bool) {
	if len(groups) == 0 {
		return 0, 0, false
	}
	t := groups[0].tl
	t.mu.Lock()
	defer t.mu.Unlock()
	tp := t.points[t.newest-1]
	if t.newest == 0 || tp == nil || tp.hist[0] == nil || tp.hist[0].TotalCount() == 0 {
		return 0, 0, false
	}
	d := stats.SparseDist(tp.exact[0], tp.hist[0])
	return d.Percentile(50), d.Percentile(99), true
}

// CopyClosed sets dst[0] to a copy of the run's total latency (µs) over
// every interval the groups have handed over so far, and dst[1] to its
// corrected latency (rate mode; an empty histogram otherwise). The copies
// are new (the caller owns them; the old entries are dropped). For a
// watcher (a metrics scrape), from any goroutine: it holds the timeline's
// lock (never a recorder's) for a plain copy of the counts, and does not
// touch the histograms the recorders write. After Collect it holds the whole
// run. It returns the status classes and bytes of the same intervals.
func CopyClosed(groups []*Group, dst *[2]*hdrhistogram.Histogram) stats.Closed {
	var c stats.Closed
	var src [numSeriesPhases]*hdrhistogram.Histogram
	if len(groups) > 0 {
		t := groups[0].tl
		t.mu.Lock()
		for s, h := range t.total {
			if h != nil {
				src[s] = h.Clone()
			}
		}
		c = t.closed
		t.mu.Unlock()
	}
	for s, h := range src {
		if h == nil {
			h = stats.NewHistogram()
		}
		dst[s] = h
	}
	return c
}

// addClosed adds o to c.
func addClosed(c, o *stats.Closed) {
	for i := range c.Status {
		c.Status[i] += o.Status[i]
	}
	c.BytesIn += o.BytesIn
	c.BytesOut += o.BytesOut
}

// minusClosed returns c - o.
func minusClosed(c stats.Closed, o *stats.Closed) stats.Closed {
	for i := range c.Status {
		c.Status[i] -= o.Status[i]
	}
	c.BytesIn -= o.BytesIn
	c.BytesOut -= o.BytesOut
	return c
}

// statusClass returns code's index in stats.Closed.Status: 1 to 5 for 1xx to
// 5xx, 0 for any other code.
func statusClass(code int) int {
	if code >= 100 && code < 600 {
		return code / 100
	}
	return 0
}
