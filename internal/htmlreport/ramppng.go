package htmlreport

import (
	"errors"
	"io"

	"github.com/gb-bench/gb/internal/chart"
	"github.com/gb-bench/gb/internal/ramp"
)

// pngPoints is RampPNG's width in points: 8 inches, so that its 1200
// pixels are 150 per inch and each of its two plots 510 pixels high.
const pngPoints = 8 * 72

// RampPNG writes rp's throughput/latency curve as a PNG image, 1200 by
// 1020 pixels, drawn by internal/chart (no gnuplot needed): on top, requests per
// second against the load (concurrency, or target rate with the target as
// a dashed reference); below, p50 and p99 latency in ms (service time, or
// from the intended send time in rate steps); the saturation step is
// marked on both by a dashed vertical line, with a dot and a label on the
// throughput. A ramp without steps is an error.
func RampPNG(w io.Writer, rp *ramp.Ramp) error {
	if len(rp.Steps) == 0 {
		return errors.New("report: a ramp plot needs at least one step")
	}
	return render(w, "png", chart.Figure{Plots: rampCharts(rp), Width: pngPoints, PlotHeight: chart.PlotHeight})
}
