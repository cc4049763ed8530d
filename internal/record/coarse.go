package record

import (
	"math"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/gb-bench/gb/stats"
)

// A run's series stays flat in memory however long the run: the newest
// recentPoints intervals keep a point each, and older intervals are merged
// into coarse points. Most of those (the bulk) are width intervals each
// (2, 4, 8, ...), width doubling (adjacent points merged in pairs)
// whenever the bulk would span more than maxOldPoints of them; between the
// bulk and the recent points, a tail of fewer than log2(width) points of
// decreasing widths holds the intervals that do not yet fill a bulk point
// (the binary digits of their count: each new interval carries into the
// points before it). Every point is a power of two intervals wide and
// starts at a whole multiple of its width in interval indexes (Unix time),
// so the series of several processes still line up (stats.Merge). Counts
// stay exact; latencies are HdrHistogram sums, as any merge of intervals.
const (
	recentPoints = 600 // ten minutes of one-second points
	maxOldPoints = 600
)

// block is a tail point: n intervals from idx; p nil when empty.
type block struct {
	idx, n int64
	p      *timePoint
}

// coarse is a timeline's older intervals: [start, end) in the bulk, [end,
// cut) in the tail. The zero value has none; the timeline starts
// coarsening when an interval falls out of the recent ones.
type coarse struct {
	bulk   map[int64]*timePoint // bulk points by first interval index, a multiple of width; absent = empty
	width  int64                // intervals per bulk point; 0 = nothing coarsened yet
	start  int64                // the first interval of the bulk (coarse points start at floorTo(start, width))
	end    int64                // the bulk's end, a multiple of width: the tail's start
	tail   []block              // [end, cut), widths decreasing, each less than width
	cut    int64                // intervals below cut are coarse, the others in points
	first  int64                // the oldest interval index in points (before coarsening starts)
	recent int64                // the recent intervals kept apart; 0 = recentPoints (tests set fewer)
	maxOld int64                // the most bulk points; 0 = maxOldPoints
}

func (c *coarse) coarsened() bool { return c.width > 0 }

// floorTo returns idx rounded down to a multiple of w (w > 0).
func floorTo(idx, w int64) int64 {
	m := idx % w
	if m < 0 {
		m += w
	}
	return idx - m
}

// oldPoint returns the coarse point that holds interval idx (< cut), made
// on first use.
func (c *coarse) oldPoint(idx int64) *timePoint {
	if idx < c.end {
		c.start = min(c.start, idx)
		k := floorTo(idx, c.width)
		if c.bulk[k] == nil {
			c.bulk[k] = &timePoint{}
		}
		return c.bulk[k]
	}
	for i := range c.tail {
		if b := &c.tail[i]; idx < b.idx+b.n {
			if b.p == nil {
				b.p = &timePoint{}
			}
			return b.p
		}
	}
	panic("record: coarse point past cut") // the caller checks idx < cut
}

// fold appends interval cut (its point p, nil when empty) to the tail and
// carries: two tail points of one width become one of twice the width,
// and a tail point of the bulk's width joins the bulk.
func (c *coarse) fold(p *timePoint) {
	c.tail = append(c.tail, block{c.cut, 1, p})
	c.cut++
	for n := len(c.tail); n >= 2 && c.tail[n-1].n == c.tail[n-2].n; n = len(c.tail) {
		a := &c.tail[n-2]
		a.n *= 2
		a.p = mergePoints(a.p, c.tail[n-1].p)
		c.tail = c.tail[:n-1]
	}
	if len(c.tail) == 1 && c.tail[0].n == c.width {
		if c.tail[0].p != nil {
			c.bulk[c.end] = c.tail[0].p
		}
		c.end += c.width
		c.tail = c.tail[:0]
	}
}

// double merges the bulk's points in aligned pairs: width doubles. A last
// point left without its pair leads the tail.
func (c *coarse) double() {
	half := c.width
	c.width *= 2
	if c.end%c.width != 0 {
		c.end -= half
		c.tail = append([]block{{c.end, half, c.bulk[c.end]}}, c.tail...)
		delete(c.bulk, c.end)
	}
	old := c.bulk
	c.bulk = make(map[int64]*timePoint, len(old)/2+1)
	for k, p := range old {
		k = floorTo(k, c.width)
		c.bulk[k] = mergePoints(c.bulk[k], p)
	}
}

// mergePoints returns a with b added (either may be nil).
func mergePoints(a, b *timePoint) *timePoint {
	switch {
	case b == nil:
		return a
	case a == nil:
		return b
	}
	a.merge(b)
	return a
}

// compact moves the intervals older than the recent ones into the coarse
// points, one interval at a time, and doubles the bulk's width while it
// spans too many points. Call with t.mu held, after t.newest moved; it
// costs nothing until the run is older than the recent window, then O(1)
// per interval (and a doubling, O(maxOldPoints), every maxOldPoints/2
// bulk points).
func (t *timeline) compact() {
	recent := cmpOr(t.recent, recentPoints)
	if !t.keep || len(t.points) == 0 && !t.coarsened() || t.newest-recent <= t.first {
		return
	}
	if !t.coarsened() {
		t.width, t.bulk = 2, map[int64]*timePoint{}
		t.start = floorTo(t.first, t.width)
		t.end, t.cut = t.start, t.start
	}
	for t.cut < t.newest-recent {
		p := t.points[t.cut]
		delete(t.points, t.cut)
		t.fold(p)
	}
	for (t.end-floorTo(t.start, t.width))/t.width > cmpOr(t.maxOld, maxOldPoints) {
		t.double()
	}
}

func cmpOr(v, def int64) int64 {
	if v > 0 {
		return v
	}
	return def
}

// merge adds o's counts and latencies to p.
func (p *timePoint) merge(o *timePoint) {
	for i := range p.out {
		p.out[i] += o.out[i]
	}
	for s, h := range o.hist {
		if h == nil {
			continue
		}
		p.exact[s].Merge(&o.exact[s])
		if p.hist[s] == nil {
			p.hist[s] = hdrhistogram.NewPacked(stats.HistLowest, stats.HistHighest, stats.HistDigits)
		}
		p.hist[s].Merge(h)
	}
}

// series returns the run's points from the interval of start (or the
// first with requests) to the last, none skipped; start and end are
// ignored when either is zero. Coarse points come first, each width
// intervals long (the last of them also holds the recent intervals up to
// its end), then one point per recent interval. Each point's rate is over
// the part of it that lies within [start, end].
func (t *timeline) series(every time.Duration, start, end time.Time) *stats.Series {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := int64(every)
	first, last := int64(math.MaxInt64), int64(math.MinInt64)
	for idx := range t.points {
		first, last = min(first, idx), max(last, idx)
	}
	if t.coarsened() {
		first, last = min(first, t.start), max(last, t.cut-1)
	}
	if !start.IsZero() && !end.IsZero() && !end.Before(start) {
		first, last = min(first, start.UnixNano()/n), max(last, end.UnixNano()/n)
	}
	if first > last {
		return &stats.Series{Interval: every}
	}
	s := &stats.Series{Interval: every}
	add := func(idx, w int64, tp *timePoint) {
		from, to := time.Unix(0, idx*n), time.Unix(0, (idx+w)*n)
		pt := stats.Point{Start: from, Width: time.Duration(w * n)}
		if tp != nil {
			fillPoint(&pt, tp)
		}
		if d := min(to.UnixNano(), end.UnixNano()) - max(from.UnixNano(), start.UnixNano()); d > 0 {
			pt.RPS = float64(pt.OK+pt.Non2xx) / time.Duration(d).Seconds()
		}
		s.Points = append(s.Points, pt)
	}
	idx := first
	if t.coarsened() && first < t.cut {
		for idx = floorTo(first, t.width); idx < t.end; idx += t.width {
			add(idx, t.width, t.bulk[idx])
		}
		for _, b := range t.tail {
			add(b.idx, b.n, b.p)
		}
		idx = t.cut
	}
	for ; idx <= last; idx++ {
		add(idx, 1, t.points[idx])
	}
	return s
}
