package report

import (
	"bufio"
	"errors"
	"io"

	"github.com/gb-bench/gb/internal/ramp"
)

// RampPNG writes rp's throughput/latency curve as a PNG image, 1200 pixels
// wide, drawn by gonum/plot (no gnuplot needed): on top, requests per
// second against the load (concurrency, or target rate with the target as
// a dashed reference); below, p50 and p99 latency in ms (service time, or
// from the intended send time in rate steps); the saturation step is
// marked on both by a dashed vertical line, with a dot and a label on the
// throughput. A ramp without steps is an error.
func RampPNG(w io.Writer, rp *ramp.Ramp) error {
	if len(rp.Steps) == 0 {
		return errors.New("report: a ramp plot needs at least one step")
	}
	plots, err := rampCharts(rp)
	if err != nil {
		return err
	}
	b := bufio.NewWriter(w)
	if err := render(b, "png", figure{plots: plots}); err != nil {
		return err
	}
	return b.Flush()
}
