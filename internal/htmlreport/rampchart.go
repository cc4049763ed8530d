package htmlreport

import (
	"fmt"

	"github.com/gb-bench/gb/internal/chart"
	"github.com/gb-bench/gb/internal/ramp"
	"github.com/gb-bench/gb/stats"
)

// rampCharts returns the ramp's throughput/latency curve as two plots to
// stack: requests per second against the load, and p50 and p99 latency in
// ms against the load, both with the saturation step marked.
func rampCharts(rp *ramp.Ramp) []*chart.Plot {
	xLabel, lat := "concurrency (connections)", "service time"
	if rp.By == ramp.ByRate {
		xLabel, lat = "target rate (requests per second)", "from the intended send time"
	}
	var tput, p50, p99, target []chart.XY
	for _, s := range rp.Steps {
		x, d := ramp.Level(rp.By, s), ramp.Latency(rp.By, s)
		tput = append(tput, chart.XY{X: x, Y: s.RPS()})
		target = append(target, chart.XY{X: x, Y: x})
		if d != nil && d.Count > 0 {
			p50 = append(p50, chart.XY{X: x, Y: float64(d.Percentile(50)) / 1000})
			p99 = append(p99, chart.XY{X: x, Y: float64(d.Percentile(99)) / 1000})
		}
	}
	lines := []series{{name: "requests per second", xys: tput, points: true}}
	if rp.By == ramp.ByRate {
		lines = append(lines, series{name: "target rate", xys: target, dashed: true})
	}
	top := newPlot(rampTitle(rp), xLabel, "requests per second")
	bottom := newPlot("Latency ("+lat+")", xLabel, "latency (ms)")
	addLines(top, lines)
	addLines(bottom, []series{{name: "p50", xys: p50, points: true}, {name: "p99", xys: p99, points: true}})
	fromZero(top, len(lines))
	fromZero(bottom, 2)
	ticks := stepTicks(rp)
	top.X.Ticks, bottom.X.Ticks = ticks, ticks
	markSaturation(rp, top, bottom)
	return []*chart.Plot{top, bottom}
}

// maxStepLabels is how many step loads the curve's x axis labels at most.
const maxStepLabels = 16

// stepTicks returns a tick at each step's load, labelled (every k-th
// step when there are many), from the axis origin 0.
func stepTicks(rp *ramp.Ramp) []chart.Tick {
	ticks := []chart.Tick{{Value: 0, Label: "0"}}
	every := (len(rp.Steps) + maxStepLabels - 1) / maxStepLabels
	for i, s := range rp.Steps {
		t := chart.Tick{Value: ramp.Level(rp.By, s)}
		if i%every == 0 {
			t.Label = ramp.FormatLevel(rp.By, s)
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
	t := rp.Steps[0].Load
	keepAlive := map[bool]string{true: " (keep-alive)"}[t.KeepAlive]
	return defuseControls(fmt.Sprintf("gb ramp: %s %s%s", t.Method, t.URL, keepAlive))
}

// markSaturation draws the saturation step on both plots: a dashed
// vertical line at its load, and on top a dot on its throughput with a
// label; or, when the ramp found none, a line under the title saying so.
func markSaturation(rp *ramp.Ramp, top, bottom *chart.Plot) {
	n := rp.Saturation
	if n < 1 || n > len(rp.Steps) {
		top.Title += "\nno saturation point within the ramp"
		return
	}
	s := rp.Steps[n-1]
	x, y := ramp.Level(rp.By, s), s.RPS()
	for _, p := range []*chart.Plot{top, bottom} {
		p.Rules = append(p.Rules, chart.Rule{X: x, Color: markRGB})
	}
	top.Lines = append(top.Lines, chart.Line{Name: "saturation step", Points: []chart.XY{{X: x, Y: y}}, Color: markRGB, Mark: chart.Dot, Radius: 5})
	label := chart.Label{X: x, Y: 0, Text: fmt.Sprintf("saturation: %s %s, %.2f req/s", ramp.LevelName(rp.By), ramp.FormatLevel(rp.By, s), y),
		Color: markRGB, DX: 6, DY: 4}
	if n > (len(rp.Steps)+1)/2 { // the label goes on the side with more room
		label.AlignRight, label.DX = true, -6
	}
	top.Labels = append(top.Labels, label)
}

// stepName names a ramp step for a legend: "c=16" or "rate=500/s".
func stepName(by string, s *stats.Result) string {
	if by == ramp.ByRate {
		return "rate=" + ramp.FormatLevel(by, s) + "/s"
	}
	return "c=" + ramp.FormatLevel(by, s)
}
