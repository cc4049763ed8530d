package htmlreport

import (
	"slices"

	"github.com/gb-bench/gb/internal/chart"
	"github.com/gb-bench/gb/stats"
)

// maxErrorLines is how many failure classes the errors chart draws by
// name; the rest are summed into one "other failures" line.
const maxErrorLines = 4

// timeAxis places a Series' points on a run's clock: x is the middle of
// the part of each interval that lies inside the run, in seconds since the
// run started, and span that part's length, so the first and last
// (partial) intervals show their true rate instead of a dip.
type timeAxis struct {
	r *stats.Result
	s *stats.Series
}

// at returns point i's x in seconds and the seconds of the run it covers.
func (t timeAxis) at(i int) (x, span float64) {
	// Wall clock only (Round(0) drops the monotonic reading), so that a
	// Result read back from JSON is drawn the same as the live one.
	start := t.s.Points[i].Start.Round(0)
	from, to := start, start.Add(t.s.Width(i))
	origin := t.r.Start.Round(0)
	if origin.IsZero() {
		origin = t.s.Points[0].Start.Round(0)
	}
	if from.Before(origin) {
		from = origin
	}
	if end := t.r.End.Round(0); !end.IsZero() && to.After(end) && end.After(from) {
		to = end
	}
	if !to.After(from) { // a point outside the run's clock: show it whole
		from, to = start, start.Add(t.s.Width(i))
	}
	mid := from.Add(to.Sub(from) / 2)
	return max(mid.Sub(origin).Seconds(), 0), to.Sub(from).Seconds()
}

// rates returns, per point, f(point) divided by the seconds it covers.
func (t timeAxis) rates(f func(p *stats.Point) int64) []chart.XY {
	xys := make([]chart.XY, 0, len(t.s.Points))
	for i := range t.s.Points {
		x, span := t.at(i)
		if span <= 0 {
			continue
		}
		xys = append(xys, chart.XY{X: x, Y: float64(f(&t.s.Points[i])) / span})
	}
	return xys
}

// latencies returns, per point with samples in the phase chosen by d, its
// p-th percentile in ms (p 100 is the exact maximum).
func (t timeAxis) latencies(d func(p *stats.Point) *stats.Dist, p float64) []chart.XY {
	var xys []chart.XY
	for i := range t.s.Points {
		dist := d(&t.s.Points[i])
		if dist == nil || dist.Count == 0 {
			continue
		}
		x, _ := t.at(i)
		v := dist.Percentile(p)
		if p == 100 {
			v = dist.Max
		}
		xys = append(xys, chart.XY{X: x, Y: float64(v) / 1000})
	}
	return xys
}

// timePlot returns a plot of lines over a run's time.
func timePlot(title, yLabel string, lines []series) *chart.Plot {
	p := newPlot(title, "time since the start of the run (s)", yLabel)
	addLines(p, lines)
	fromZero(p, len(lines))
	return p
}

// throughputChart plots responses per second in each interval, and in
// rate mode the target rate for comparison.
func throughputChart(t timeAxis) *chart.Plot {
	lines := []series{{name: "responses per second", points: true,
		xys: t.rates(func(p *stats.Point) int64 { return p.OK + p.Non2xx })}}
	if rate := t.r.Load.Rate; rate > 0 {
		first, _ := t.at(0)
		last, _ := t.at(len(t.s.Points) - 1)
		lines = append(lines, series{name: "target rate", dashed: true,
			xys: []chart.XY{{X: first, Y: rate}, {X: last, Y: rate}}})
	}
	return timePlot("Throughput over time", "responses per second", lines)
}

// hasErrors reports whether any point of s has a failure or a non-2xx
// response.
func hasErrors(s *stats.Series) bool {
	for _, p := range s.Points {
		if p.Failed > 0 || p.Non2xx > 0 {
			return true
		}
	}
	return false
}

// errorsChart plots non-2xx responses and failures per second in each
// interval: the largest failure classes by name, the rest together.
func errorsChart(t timeAxis) *chart.Plot {
	totals := map[string]int64{}
	for _, p := range t.s.Points {
		for k, v := range p.Errors {
			totals[k] += v
		}
	}
	classes := byCount(totals)
	named := classes[:min(len(classes), maxErrorLines)]
	lines := []series{{name: "non-2xx responses", points: true,
		xys: t.rates(func(p *stats.Point) int64 { return p.Non2xx })}}
	for _, k := range named {
		lines = append(lines, series{name: k, points: true,
			xys: t.rates(func(p *stats.Point) int64 { return p.Errors[k] })})
	}
	other := t.rates(func(p *stats.Point) int64 {
		n := p.Failed
		for _, k := range named {
			n -= p.Errors[k]
		}
		return n
	})
	if slices.ContainsFunc(other, func(xy chart.XY) bool { return xy.Y > 0 }) {
		name := "other failures"
		if len(named) == 0 {
			name = "failures"
		}
		lines = append(lines, series{name: name, points: true, xys: other})
	}
	return timePlot("Errors over time", "per second", lines)
}

// latencyChart plots the p50, p90, p99 and maximum latency of each
// interval's responses, and in rate mode the p99 from the intended send
// time.
func latencyChart(t timeAxis) *chart.Plot {
	total := func(p *stats.Point) *stats.Dist { return p.Latency }
	lines := []series{
		{name: "p50", points: true, xys: t.latencies(total, 50)},
		{name: "p90", points: true, xys: t.latencies(total, 90)},
		{name: "p99", points: true, xys: t.latencies(total, 99)},
		{name: "max", points: true, xys: t.latencies(total, 100)},
	}
	if t.r.Load.Rate > 0 {
		corrected := func(p *stats.Point) *stats.Dist { return p.Corrected }
		lines = append(lines, series{name: "p99 from the intended send time", points: true, xys: t.latencies(corrected, 99)})
	}
	return timePlot("Latency over time", "latency (ms)", lines)
}
