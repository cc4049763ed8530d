package report

import (
	"image/color"
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"

	"github.com/gb-bench/gb/stats"
)

// spectrumSteps is how many points per decade of 1/(1-q) a percentile
// distribution line has.
const spectrumSteps = 24

// spectrum returns d's latency percentile distribution as HdrHistogram's
// plotter draws it: x is 1/(1-q) for the quantile q (1 at the median's
// left end, 10 at 90%, 100 at 99% …), up to the quantile of the last
// sample, and y the latency at q in ms. nil without samples.
func spectrum(d *stats.Dist) plotter.XYs {
	if d == nil || d.Hist == nil || d.Count == 0 {
		return nil
	}
	top := float64(d.Count) // 1/(1-q) of the last sample's quantile
	var xys plotter.XYs
	for i := 0; ; i++ {
		x := math.Pow(10, float64(i)/spectrumSteps)
		last := x >= top
		if last {
			x = top
		}
		q := 100 * (1 - 1/x)
		v := percentile(d, q)
		if last {
			v = d.Max
		}
		xys = append(xys, plotter.XY{X: x, Y: float64(v) / 1000})
		if last {
			return xys
		}
	}
}

// percentileTicks returns the ticks of a 1/(1-q) axis from 1 to max:
// labelled decades ("0%", "90%", "99%", "99.9%" …) and unlabelled minor
// ticks between them.
func percentileTicks(max float64) []plot.Tick {
	var ticks []plot.Tick
	for decade, nines := 1.0, 0; decade <= max*10; decade, nines = decade*10, nines+1 {
		ticks = append(ticks, plot.Tick{Value: decade, Label: ninesLabel(nines)})
		for k := 2.0; k < 10 && decade*k <= max; k++ {
			ticks = append(ticks, plot.Tick{Value: decade * k})
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
	color color.Color // nil: the palette's next colour
}

// spectrumChart plots the latency percentile distributions of dists on
// the 1/(1-q) log axis, with room above the lines for a legend of
// legendRows rows; nil when none has samples.
func spectrumChart(title string, dists []spectrumLine, legendRows int) (*plot.Plot, error) {
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
		return nil, nil
	}
	p := newPlot(title, "percentile (log scale of 1/(1-q))", "latency (ms)")
	if err := addLines(p, lines); err != nil {
		return nil, err
	}
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = plot.ConstantTicks(percentileTicks(top))
	p.X.Min, p.X.Max = 1, max(10, math.Pow(10, math.Ceil(math.Log10(top))))
	fromZero(p, legendRows)
	return p, nil
}
