package htmlreport

import (
	"image/color"
	"math"
	"strconv"

	"github.com/gb-bench/gb/internal/chart"
	"github.com/gb-bench/gb/stats"
)

// spectrumSteps is how many points per decade of 1/(1-q) a percentile
// distribution line has.
const spectrumSteps = 24

// spectrum returns d's latency percentile distribution as HdrHistogram's
// plotter draws it: x is 1/(1-q) for the quantile q (1 at the median's
// left end, 10 at 90%, 100 at 99% …), up to the quantile of the last
// sample, and y the latency at q in ms. nil without samples.
func spectrum(d *stats.Dist) []chart.XY {
	if d == nil || d.Hist == nil || d.Count == 0 {
		return nil
	}
	top := float64(d.Count) // 1/(1-q) of the last sample's quantile
	var xys []chart.XY
	for i := 0; ; i++ {
		x := math.Pow(10, float64(i)/spectrumSteps)
		last := x >= top
		if last {
			x = top
		}
		q := 100 * (1 - 1/x)
		v := d.Percentile(q)
		if last {
			v = d.Max
		}
		xys = append(xys, chart.XY{X: x, Y: float64(v) / 1000})
		if last {
			return xys
		}
	}
}

// percentileTicks returns the ticks of a 1/(1-q) axis from 1 to max:
// labelled decades ("0%", "90%", "99%", "99.9%" …) and unlabelled minor
// ticks between them.
func percentileTicks(max float64) []chart.Tick {
	var ticks []chart.Tick
	for decade, nines := 1.0, 0; decade <= max*10; decade, nines = decade*10, nines+1 {
		ticks = append(ticks, chart.Tick{Value: decade, Label: ninesLabel(nines)})
		for k := 2.0; k < 10 && decade*k <= max; k++ {
			ticks = append(ticks, chart.Tick{Value: decade * k})
		}
	}
	return ticks
}

// ninesLabel is the percentile with n nines: "0%", "90%", "99%", "99.9%".
func ninesLabel(n int) string {
	if n == 0 {
		return "0%"
	}
	return strconv.FormatFloat(100*(1-math.Pow(10, -float64(n))), 'f', max(n-2, 0), 64) + "%"
}

// spectrumLine is one named distribution of a spectrum chart.
type spectrumLine struct {
	name  string
	dist  *stats.Dist
	color color.RGBA // the zero value: the palette's next colour
}

// spectrumChart plots the latency percentile distributions of dists on
// the 1/(1-q) log axis, with room above the lines for a legend of
// legendRows rows; nil when none has samples.
func spectrumChart(title string, dists []spectrumLine, legendRows int) *chart.Plot {
	var lines []series
	top := 1.0
	for _, d := range dists {
		xys := spectrum(d.dist)
		if len(xys) == 0 {
			continue
		}
		top = max(top, xys[len(xys)-1].X)
		lines = append(lines, series{name: d.name, xys: xys, color: d.color})
	}
	if len(lines) == 0 {
		return nil
	}
	p := newPlot(title, "percentile (log scale of 1/(1-q))", "latency (ms)")
	addLines(p, lines)
	p.X.Log, p.X.Ticks = true, percentileTicks(top)
	p.X.Min, p.X.Max = 1, max(10, math.Pow(10, math.Ceil(math.Log10(top))))
	fromZero(p, legendRows)
	return p
}
