package stats

import (
	"fmt"
	"slices"
	"time"
)

// maxMergedPoints bounds a merged series: results more intervals apart
// than this are not the shards of one load.
const maxMergedPoints = 1 << 20

// span is a point's place in interval indexes: [idx, idx+n).
type span struct{ idx, n int64 }

// combineSeries merges the time series of rs: points over the same
// wall-clock interval (the same in every process, since points start at
// whole multiples of their width in Unix time) are summed, counts as sums,
// latencies as HdrHistogram sums. Where one result merged older intervals
// into a wider point (a long run) and another did not, the finer points
// are summed into the wider one. A point's rate is the sum of the results'
// rates when they all had that very point (the shards ran side by side),
// else its responses over the part of it within [start, end]. The merged
// series runs from the earliest point to the latest, none skipped. Results
// without a series add nothing; nil when none has one. Series of different
// intervals are refused.
func combineSeries(rs []*Result, start, end time.Time) (*Series, error) {
	var every time.Duration
	var spans []span
	for i, r := range rs {
		s := r.Series
		if s == nil || len(s.Points) == 0 {
			continue
		}
		if every == 0 {
			every = s.Interval
		}
		if s.Interval != every || s.Interval <= 0 {
			return nil, fmt.Errorf("result %d: another interval (%v, not %v)", i+1, s.Interval, every)
		}
		for j := range s.Points {
			spans = append(spans, spanOf(s, j))
		}
	}
	if every == 0 {
		return nil, nil
	}
	out, err := mergedPoints(outerSpans(spans), every)
	if err != nil {
		return nil, err
	}
	starts := make([]int64, len(out.Points))
	for i := range out.Points {
		starts[i] = out.Points[i].Start.UnixNano() / int64(every)
	}
	same := make([]bool, len(out.Points)) // every point summed into out.Points[i] had its width
	for i := range same {
		same[i] = true
	}
	for _, r := range rs {
		if r.Series == nil {
			continue
		}
		for j := range r.Series.Points {
			sp := spanOf(r.Series, j)
			k, _ := slices.BinarySearch(starts, sp.idx+1)
			k-- // the merged point that holds sp
			out.Points[k].add(&r.Series.Points[j])
			same[k] = same[k] && out.Width(k) == r.Series.Width(j)
		}
	}
	for i := range out.Points {
		p := &out.Points[i]
		p.Latency.pack()
		p.Corrected.pack()
		if !same[i] {
			p.RPS = rateOver(p, out.Width(i), start, end)
		}
	}
	return out, nil
}

// spanOf returns point j of s in interval indexes.
func spanOf(s *Series, j int) span {
	every := int64(s.Interval)
	return span{s.Points[j].Start.UnixNano() / every, max(int64(s.Width(j))/every, 1)}
}

// outerSpans returns the spans that no other span holds, in time order.
// Points start at whole multiples of their width (a power of two
// intervals), so two of them are either disjoint or one holds the other.
func outerSpans(spans []span) []span {
	slices.SortFunc(spans, func(a, b span) int {
		if a.idx != b.idx {
			return int(a.idx - b.idx)
		}
		return int(b.n - a.n) // the widest first
	})
	var out []span
	for _, sp := range spans {
		if len(out) > 0 {
			if last := out[len(out)-1]; sp.idx < last.idx+last.n {
				continue // held by last
			}
		}
		out = append(out, sp)
	}
	return out
}

// mergedPoints returns the empty points of a merged series: the outer
// spans, and one-interval points in any gap between them.
func mergedPoints(outer []span, every time.Duration) (*Series, error) {
	first, last := outer[0].idx, outer[len(outer)-1].idx+outer[len(outer)-1].n
	n := int64(len(outer))
	for i := 1; i < len(outer); i++ {
		n += outer[i].idx - (outer[i-1].idx + outer[i-1].n)
	}
	if n > maxMergedPoints {
		return nil, fmt.Errorf("the series are %d intervals of %v apart: not one load", last-first, every)
	}
	out := &Series{Interval: every, Points: make([]Point, 0, n)}
	point := func(idx, w int64) {
		out.Points = append(out.Points, Point{Start: time.Unix(0, idx*int64(every)), Width: time.Duration(w) * every})
	}
	for i, sp := range outer {
		if i > 0 {
			for idx := outer[i-1].idx + outer[i-1].n; idx < sp.idx; idx++ {
				point(idx, 1)
			}
		}
		point(sp.idx, sp.n)
	}
	return out, nil
}

// rateOver returns p's responses per second over the part of [p.Start,
// p.Start+width) within [start, end] (all of it when either is zero).
func rateOver(p *Point, width time.Duration, start, end time.Time) float64 {
	from, to := p.Start, p.Start.Add(width)
	if !start.IsZero() && !end.IsZero() {
		from, to = maxTime(from, start), minTime(to, end)
	}
	if !to.After(from) {
		return 0
	}
	return float64(p.OK+p.Non2xx) / to.Sub(from).Seconds()
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

// add sums o into p (Start and Width aside).
func (p *Point) add(o *Point) {
	p.Ended += o.Ended
	p.OK += o.OK
	p.Non2xx += o.Non2xx
	p.Failed += o.Failed
	p.RPS += o.RPS
	p.Errors = addMap(p.Errors, o.Errors)
	p.Latency = mergeDist(p.Latency, o.Latency)
	p.Corrected = mergeDist(p.Corrected, o.Corrected)
}
