package htmlreport

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/gb-bench/gb/internal/chart"
	"github.com/gb-bench/gb/internal/ramp"
	"github.com/gb-bench/gb/internal/report"
)

// Ramp writes rp (gb ramp) as one self-contained HTML page, like
// Run's: the saturation step and best throughput; the
// throughput/latency curve against the load with the saturation step
// marked (the chart of RampPNG) and report.RampSummary's conclusion; a table of
// the steps (RampStep's columns); and each step's latency percentile
// distribution on HdrHistogram's 1/(1-q) axis. A ramp without steps is an
// error.
func Ramp(w io.Writer, rp *ramp.Ramp) error {
	if rp == nil || len(rp.Steps) == 0 {
		return errors.New("report: a ramp report needs at least one step")
	}
	first := rp.Steps[0]
	p := &page{Title: "gb ramp: " + first.Load.Method + " " + first.Load.URL, Cards: rampCards(rp)}
	p.Lead = []string{strings.Join(rp.Command, " "),
		fmt.Sprintf("%d steps by %s, started %s; gb %s", len(rp.Steps), ramp.LevelName(rp.By),
			first.Start.UTC().Format("2006-01-02 15:04:05 MST"), rp.GBVersion)}
	curve := section{ID: "curve", Title: "Throughput and latency by load"}
	var summary bytes.Buffer
	if err := report.RampSummary(&summary, rp); err != nil {
		return err
	}
	curve.Notes = []string{strings.TrimSpace(summary.String())}
	if err := curve.addChart(rampCharts(rp)...); err != nil {
		return err
	}
	dist := section{ID: "distribution", Title: "Latency percentile distribution by step"}
	var lines []spectrumLine
	shown := shownSteps(rp)
	for i, n := range shown {
		s := rp.Steps[n]
		lines = append(lines, spectrumLine{stepName(rp.By, s), ramp.Latency(rp.By, s), gradient(i, len(shown))})
	}
	title := "Latency by percentile, per step"
	if len(shown) < len(rp.Steps) {
		title = fmt.Sprintf("Latency by percentile, %d of the %d steps", len(shown), len(rp.Steps))
	}
	sp := spectrumChart(title, lines, 0)
	if sp == nil {
		dist.Notes = []string{"No step completed a response, so there is no distribution to show."}
	} else if err := dist.addFigure(chart.Figure{Plots: []*chart.Plot{sp}, SideLegend: true}); err != nil {
		return err
	}
	p.Sections = []section{curve, stepsSection(rp), dist}
	return p.write(w)
}

// maxSpectrumSteps is how many steps the per-step distribution chart
// draws at most, so its legend fits.
const maxSpectrumSteps = 10

// shownSteps returns the indexes of the steps whose distributions are
// drawn, in order: all, or maxSpectrumSteps spread evenly from the first
// to the last, with the saturation step among them.
func shownSteps(rp *ramp.Ramp) []int {
	n := len(rp.Steps)
	var idx []int
	for k := range min(n, maxSpectrumSteps) {
		idx = append(idx, int(math.Round(float64(k)*float64(n-1)/float64(max(min(n, maxSpectrumSteps)-1, 1)))))
	}
	if sat := rp.Saturation - 1; sat >= 0 && sat < n && !slices.Contains(idx, sat) {
		i, _ := slices.BinarySearch(idx, sat)
		j := min(max(i, 1), len(idx)-2) // replace a neighbour, never the first or last step
		idx[j] = sat
		slices.Sort(idx)
	}
	return idx
}

// rampCards are a ramp's headline numbers.
func rampCards(rp *ramp.Ramp) []card {
	best := 0
	for i, s := range rp.Steps {
		if s.RPS() > rp.Steps[best].RPS() {
			best = i
		}
	}
	b := rp.Steps[best]
	cards := []card{{Label: "steps", Value: strconv.Itoa(len(rp.Steps)), Note: "by " + ramp.LevelName(rp.By)},
		{Label: "best throughput", Value: fmt.Sprintf("%.2f/s", b.RPS()), Note: fmt.Sprintf("step %d, %s %s", best+1, ramp.LevelName(rp.By), ramp.FormatLevel(rp.By, b))}}
	if n := rp.Saturation; n >= 1 && n <= len(rp.Steps) {
		s := rp.Steps[n-1]
		return append(cards, card{Label: "saturation", Value: ramp.LevelName(rp.By) + " " + ramp.FormatLevel(rp.By, s), Note: fmt.Sprintf("step %d: %.2f/s", n, s.RPS())},
			card{Label: "p99 at saturation", Value: msValue(ramp.Latency(rp.By, s).Percentile(99))})
	}
	return append(cards, card{Label: "saturation", Value: "none", Note: "throughput kept rising, or p99 did not"})
}

// stepsSection tabulates the steps as RampStep's lines do.
func stepsSection(rp *ramp.Ramp) section {
	t := table{Head: []string{"step", ramp.LevelName(rp.By), "complete", "failed", "req/s", "mean ms", "p50 ms", "p99 ms", "stopped by"}, Last: true}
	for i, s := range rp.Steps {
		d := ramp.Latency(rp.By, s)
		mean := 0.0
		if d != nil {
			mean = d.Mean()
		}
		t.Rows = append(t.Rows, []string{strconv.Itoa(i + 1), ramp.FormatLevel(rp.By, s), strconv.FormatInt(s.Complete(), 10),
			strconv.FormatInt(s.Failed(), 10), strconv.FormatFloat(s.RPS(), 'f', 2, 64), ms(mean),
			ms(float64(d.Percentile(50))), ms(float64(d.Percentile(99))), report.StopReason(s)})
	}
	return section{ID: "steps", Title: "Steps", Tables: []table{t}}
}
