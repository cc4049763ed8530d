package stats

import (
	"fmt"
	"time"
)

// maxMergedPoints bounds a merged series: results more intervals apart
// than this are not the shards of one load.
const maxMergedPoints = 1 << 20

// combineSeries merges the time series of rs point by point: the points
// with the same Start (a wall-clock interval, the same in every process
// since interval starts are whole multiples of Interval in Unix time) are
// summed, counts as sums, latencies as HdrHistogram sums, and rates as
// sums (the shards ran side by side). The merged series runs from the
// earliest point to the latest, none skipped. Results without a series
// add nothing; nil when none has one. Series of different intervals are
// refused.
func combineSeries(rs []*Result) (*Series, error) {
	var every time.Duration
	first, last := int64(0), int64(0)
	for i, r := range rs {
		s := r.Series
		if s == nil || len(s.Points) == 0 {
			continue
		}
		if every == 0 {
			every = s.Interval
			first = s.Points[0].Start.UnixNano() / int64(every)
			last = first
		}
		if s.Interval != every || s.Interval <= 0 {
			return nil, fmt.Errorf("result %d: another interval (%v, not %v)", i+1, s.Interval, every)
		}
		for _, p := range s.Points {
			idx := p.Start.UnixNano() / int64(every)
			first, last = min(first, idx), max(last, idx)
		}
	}
	if every == 0 {
		return nil, nil
	}
	if last-first >= maxMergedPoints {
		return nil, fmt.Errorf("the series are %d intervals of %v apart: not one load", last-first, every)
	}
	out := &Series{Interval: every, Points: make([]Point, last-first+1)}
	for i := range out.Points {
		out.Points[i].Start = time.Unix(0, (first+int64(i))*int64(every))
	}
	for _, r := range rs {
		if r.Series == nil {
			continue
		}
		for i := range r.Series.Points {
			p := &r.Series.Points[i]
			out.Points[p.Start.UnixNano()/int64(every)-first].add(p)
		}
	}
	for i := range out.Points {
		out.Points[i].Latency.pack()
		out.Points[i].Corrected.pack()
	}
	return out, nil
}

// add sums o into p (Start aside).
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
