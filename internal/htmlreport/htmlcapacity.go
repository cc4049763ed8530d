package htmlreport

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/gb-bench/gb/internal/capacity"
	"github.com/gb-bench/gb/internal/chart"
	"github.com/gb-bench/gb/internal/threshold"
)

// Capacity writes a capacity search (gb capacity) as one
// self-contained HTML page, like Run's: the answer; a chart of the
// corrected p99 against the offered rate (log scale, reruns left out)
// with each latency SLO's line, the failing probes marked and the capacity drawn; and a
// table of the probes in the order they ran. A search without probes is
// an error.
func Capacity(w io.Writer, r *capacity.Report) error {
	if r == nil || len(r.Probes) == 0 {
		return errors.New("report: a capacity report needs at least one probe")
	}
	p := &page{Title: "gb capacity: " + r.URL, Cards: capacityCards(r)}
	p.Lead = []string{strings.Join(r.Command, " "), fmt.Sprintf("SLO %s; probes of %v after %v warm-up; gb %s",
		strings.Join(r.SLOs, ", "), r.StepTime, r.Warmup, r.GBVersion)}
	var answer bytes.Buffer
	if err := r.Answer(&answer, r.SLOs); err != nil {
		return err
	}
	curve := section{ID: "curve", Title: "Latency by offered rate", Notes: strings.Split(strings.TrimSpace(answer.String()), "\n")}
	if err := curve.addChart(capacityChart(r)); err != nil {
		return err
	}
	p.Sections = []section{curve, probesSection(r)}
	return p.write(w)
}

// capacityCards are the search's headline numbers.
func capacityCards(r *capacity.Report) []card {
	cards := []card{{Label: "capacity", Value: "none", Note: string(r.Status)}}
	if r.Capacity > 0 {
		cards[0].Value = capacity.Group(r.Capacity) + " req/s"
		if r.Status == capacity.AboveMax {
			cards[0].Value = "≥ " + cards[0].Value
		}
	}
	if r.Failed > 0 {
		cards = append(cards, card{Label: "next probe failed", Value: capacity.Group(r.Failed) + " req/s"})
	}
	if r.Capacity > 0 && r.Failed > 0 {
		cards = append(cards, card{Label: "bracket", Value: fmt.Sprintf("%.1f%%", 100*r.Bracket()),
			Note: fmt.Sprintf("precision %.3g%%", 100*r.Precision)})
	}
	return append(cards, card{Label: "probes", Value: strconv.Itoa(len(r.Probes))})
}

// capacityChart is the corrected p99 of every probe against its offered
// rate, on a log scale, with the latency SLOs and the capacity.
func capacityChart(r *capacity.Report) *chart.Plot {
	probes := slices.Clone(r.Probes)
	slices.SortStableFunc(probes, func(a, b capacity.Probe) int { return cmp.Compare(a.Rate, b.Rate) })
	var all, failed []chart.XY
	lo, hi := float64(probes[0].Rate), float64(probes[len(probes)-1].Rate)
	top, bottom := 0.0, 0.0
	for _, p := range probes {
		if p.P99 <= 0 || p.Retry != "" { // a rerun's failure was gb's, not the server's
			continue
		}
		xy := chart.XY{X: float64(p.Rate), Y: float64(p.P99) / 1000}
		all = append(all, xy)
		if !p.Pass {
			failed = append(failed, xy)
		}
		top = max(top, xy.Y)
		bottom = min(cmp.Or(bottom, xy.Y), xy.Y)
	}
	pl := newPlot("Corrected p99 latency by offered rate", "offered rate (requests per second)", "p99 latency (ms, log scale)")
	addLines(pl, []series{{name: "p99 (from the intended send time)", xys: all, points: true}})
	if len(failed) > 0 {
		pl.Lines = append(pl.Lines, chart.Line{Name: "failed probe", Points: failed, Color: markRGB, Mark: chart.Cross, Radius: 4})
	}
	for i, t := range latencySLOs(r) {
		v := t.Value / 1000
		pl.Lines = append(pl.Lines, chart.Line{Name: "SLO " + r.SLOs[t.index], Points: []chart.XY{{X: lo, Y: v}, {X: hi, Y: v}},
			Color: palette[(i+1)%len(palette)], Width: lineWidth, Dashed: true})
		top, bottom = max(top, v), min(cmp.Or(bottom, v), v)
	}
	if len(all) > 0 {
		pl.Y.Log = true
		pl.Y.Min, pl.Y.Max = bottom/2, top*3 // a labelled power of ten below; room for the legend above
	}
	if r.Capacity > 0 {
		markCapacity(pl, r)
	}
	return pl
}

// indexedSLO is a latency SLO and its place among the --slo expressions.
type indexedSLO struct {
	threshold.Threshold
	index int
}

// latencySLOs are r's latency SLOs, parsed again from their expressions.
func latencySLOs(r *capacity.Report) []indexedSLO {
	var out []indexedSLO
	for i, e := range r.SLOs {
		t, err := threshold.Parse(e)
		if err == nil && t.Kind == threshold.Latency && t.Value > 0 {
			out = append(out, indexedSLO{t, i})
		}
	}
	return out
}

// markCapacity draws the capacity: a dashed vertical line at its rate,
// labelled at the bottom of the plot.
func markCapacity(pl *chart.Plot, r *capacity.Report) {
	x, ymin := float64(r.Capacity), pl.Y.Min
	if ymin <= 0 && pl.Y.Log {
		ymin = 1e-3
	}
	pl.Rules = append(pl.Rules, chart.Rule{X: x, Name: "capacity", Color: markRGB})
	pl.Labels = append(pl.Labels, chart.Label{X: x, Y: ymin, Text: "capacity: " + capacity.Group(r.Capacity) + " req/s",
		Color: markRGB, AlignRight: true, DX: -6, DY: 4})
}

// probesSection tabulates the probes in the order they ran, as gb
// capacity prints them.
func probesSection(r *capacity.Report) section {
	t := table{Head: []string{"probe", "target/s", "achieved/s", "p50 ms", "p99 ms", "errors", "dropped", "conns", "verdict"}, Last: true}
	for i, p := range r.Probes {
		t.Rows = append(t.Rows, []string{strconv.Itoa(i + 1), strconv.FormatInt(p.Rate, 10),
			strconv.FormatFloat(p.Achieved, 'f', 1, 64), ms(float64(p.P50)), ms(float64(p.P99)),
			strconv.FormatInt(p.Errors, 10), strconv.FormatInt(p.Dropped, 10), strconv.Itoa(p.Conns), p.Verdict()})
	}
	return section{ID: "probes", Title: "Probes", Notes: []string{"Latency is corrected: measured from each request's intended send time."},
		Tables: []table{t}}
}
