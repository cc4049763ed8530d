package report

import (
	"fmt"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/gb-bench/gb/internal/ramp"
	"github.com/gb-bench/gb/stats"
)

// rampCharts returns the ramp's throughput/latency curve as two plots to
// stack: requests per second against the load, and p50 and p99 latency in
// ms against the load, both with the saturation step marked.
func rampCharts(rp *ramp.Ramp) ([]*plot.Plot, error) {
	xLabel, lat := "concurrency (connections)", "service time"
	if rp.By == ramp.ByRate {
		xLabel, lat = "target rate (requests per second)", "from the intended send time"
	}
	var tput, p50, p99, target plotter.XYs
	for _, s := range rp.Steps {
		x, d := load(rp.By, s), latency(rp.By, s)
		tput = append(tput, plotter.XY{X: x, Y: throughput(s)})
		target = append(target, plotter.XY{X: x, Y: x})
		if d != nil && d.Count > 0 {
			p50 = append(p50, plotter.XY{X: x, Y: float64(percentile(d, 50)) / 1000})
			p99 = append(p99, plotter.XY{X: x, Y: float64(percentile(d, 99)) / 1000})
		}
	}
	lines := []series{{name: "requests per second", xys: tput, points: true}}
	if rp.By == ramp.ByRate {
		lines = append(lines, series{name: "target rate", xys: target, dashed: true})
	}
	top := newPlot(rampTitle(rp), xLabel, "requests per second")
	bottom := newPlot("Latency ("+lat+")", xLabel, "latency (ms)")
	if err := addLines(top, lines); err != nil {
		return nil, err
	}
	if err := addLines(bottom, []series{{name: "p50", xys: p50, points: true}, {name: "p99", xys: p99, points: true}}); err != nil {
		return nil, err
	}
	fromZero(top, len(lines))
	fromZero(bottom, 2)
	ticks := plot.ConstantTicks(stepTicks(rp))
	for _, p := range []*plot.Plot{top, bottom} {
		p.X.Min, p.X.Tick.Marker = 0, ticks
	}
	if err := markSaturation(rp, top, bottom); err != nil {
		return nil, err
	}
	return []*plot.Plot{top, bottom}, nil
}

// maxStepLabels is how many step loads the curve's x axis labels at most.
const maxStepLabels = 16

// stepTicks returns a tick at each step's load, labelled (every k-th
// step when there are many), from the axis origin 0.
func stepTicks(rp *ramp.Ramp) []plot.Tick {
	ticks := []plot.Tick{{Value: 0, Label: "0"}}
	every := (len(rp.Steps) + maxStepLabels - 1) / maxStepLabels
	for i, s := range rp.Steps {
		t := plot.Tick{Value: load(rp.By, s)}
		if i%every == 0 {
			t.Label = loadString(rp.By, s)
		}
		ticks = append(ticks, t)
	}
	return ticks
}

// rampTitle is the curve's title: the ramp's request and target.
func rampTitle(rp *ramp.Ramp) string {
	if len(rp.Steps) == 0 {
		return "gb ramp"
	}
	t := rp.Steps[0].Target
	keepAlive := map[bool]string{true: " (keep-alive)"}[t.KeepAlive]
	return defuseControls(fmt.Sprintf("gb ramp: %s %s%s", t.Method, t.URL, keepAlive))
}

// markSaturation draws the saturation step on both plots: a dashed
// vertical line at its load, and on top a dot on its throughput with a
// label; or, when the ramp found none, a label saying so.
func markSaturation(rp *ramp.Ramp, top, bottom *plot.Plot) error {
	n := rp.Saturation
	if n < 1 || n > len(rp.Steps) {
		top.Title.Text += "\nno saturation point within the ramp"
		return nil
	}
	s := rp.Steps[n-1]
	x, y := load(rp.By, s), throughput(s)
	for _, p := range []*plot.Plot{top, bottom} {
		l, err := plotter.NewLine(plotter.XYs{{X: x, Y: p.Y.Min}, {X: x, Y: p.Y.Max}})
		if err != nil {
			return err
		}
		l.Color, l.Width, l.Dashes = markRGB, 1.5, []vg.Length{5, 4}
		p.Add(l)
	}
	dot, err := plotter.NewScatter(plotter.XYs{{X: x, Y: y}})
	if err != nil {
		return err
	}
	dot.GlyphStyle = draw.GlyphStyle{Color: markRGB, Radius: 5, Shape: draw.CircleGlyph{}}
	text := fmt.Sprintf("saturation: %s %s, %.2f req/s", loadName(rp.By), loadString(rp.By, s), y)
	label, err := plotter.NewLabels(plotter.XYLabels{XYs: plotter.XYs{{X: x, Y: top.Y.Min}}, Labels: []string{text}})
	if err != nil {
		return err
	}
	style := &label.TextStyle[0]
	style.Color, style.Font = markRGB, top.Legend.TextStyle.Font
	style.YAlign = draw.YBottom
	if n > (len(rp.Steps)+1)/2 { // the label goes on the side with more room
		style.XAlign, label.Offset.X = draw.XRight, -6
	} else {
		label.Offset.X = 6
	}
	label.Offset.Y = 4
	top.Add(dot, label)
	top.Legend.Add("saturation step", dot)
	return nil
}

// stepName names a ramp step for a legend: "c=16" or "rate=500/s".
func stepName(by string, s *stats.Result) string {
	if by == ramp.ByRate {
		return "rate=" + loadString(by, s) + "/s"
	}
	return "c=" + loadString(by, s)
}
