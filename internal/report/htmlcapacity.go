package report

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/gb-bench/gb/internal/capacity"
	"github.com/gb-bench/gb/internal/threshold"
)

// HTMLCapacityReport writes a capacity search (gb capacity) as one
// self-contained HTML page, like HTMLReport's: the answer; a chart of the
// corrected p99 against the offered rate (log scale, reruns left out)
// with each latency SLO's line, the failing probes marked and the capacity drawn; and a
// table of the probes in the order they ran. A search without probes is
// an error.
func HTMLCapacityReport(w io.Writer, r *capacity.Report) error {
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
	chart, err := capacityChart(r)
	if err != nil {
		return err
	}
	if err := curve.addChart(chart); err != nil {
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
func capacityChart(r *capacity.Report) (*plot.Plot, error) {
	probes := slices.Clone(r.Probes)
	slices.SortStableFunc(probes, func(a, b capacity.Probe) int { return cmp.Compare(a.Rate, b.Rate) })
	var all, failed plotter.XYs
	lo, hi := float64(probes[0].Rate), float64(probes[len(probes)-1].Rate)
	top, bottom := 0.0, 0.0
	for _, p := range probes {
		if p.P99 <= 0 || p.Retry != "" { // a rerun's failure was gb's, not the server's
			continue
		}
		xy := plotter.XY{X: float64(p.Rate), Y: float64(p.P99) / 1000}
		all = append(all, xy)
		if !p.Pass {
			failed = append(failed, xy)
		}
		top = max(top, xy.Y)
		bottom = min(cmp.Or(bottom, xy.Y), xy.Y)
	}
	pl := newPlot("Corrected p99 latency by offered rate", "offered rate (requests per second)", "p99 latency (ms, log scale)")
	if err := addLines(pl, []series{{name: "p99 (from the intended send time)", xys: all, points: true}}); err != nil {
		return nil, err
	}
	if len(failed) > 0 {
		sc, err := plotter.NewScatter(failed)
		if err != nil {
			return nil, err
		}
		sc.GlyphStyle = draw.GlyphStyle{Color: markRGB, Radius: 4, Shape: draw.CrossGlyph{}}
		pl.Add(sc)
		pl.Legend.Add("failed probe", sc)
	}
	for i, t := range latencySLOs(r) {
		v := t.Value / 1000
		l, err := plotter.NewLine(plotter.XYs{{X: lo, Y: v}, {X: hi, Y: v}})
		if err != nil {
			return nil, err
		}
		l.Color, l.Width, l.Dashes = palette[(i+1)%len(palette)], 1.5, []vg.Length{4, 3}
		pl.Add(l)
		pl.Legend.Add("SLO "+r.SLOs[t.index], l)
		top, bottom = max(top, v), min(cmp.Or(bottom, v), v)
	}
	if len(all) > 0 {
		pl.Y.Scale, pl.Y.Tick.Marker = plot.LogScale{}, plot.LogTicks{Prec: -1}
		pl.Y.Min, pl.Y.Max = bottom/2, top*3 // a labelled power of ten below; room for the legend above
	}
	pl.X.Min = 0
	if r.Capacity > 0 {
		if err := markCapacity(pl, r); err != nil {
			return nil, err
		}
	}
	return pl, nil
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
// labelled.
func markCapacity(pl *plot.Plot, r *capacity.Report) error {
	x := float64(r.Capacity)
	ymin, ymax := pl.Y.Min, pl.Y.Max
	if ymin <= 0 {
		ymin = 1e-3
	}
	l, err := plotter.NewLine(plotter.XYs{{X: x, Y: ymin}, {X: x, Y: ymax}})
	if err != nil {
		return err
	}
	l.Color, l.Width, l.Dashes = markRGB, 1.5, []vg.Length{5, 4}
	text := "capacity: " + capacity.Group(r.Capacity) + " req/s"
	label, err := plotter.NewLabels(plotter.XYLabels{XYs: plotter.XYs{{X: x, Y: ymin}}, Labels: []string{text}})
	if err != nil {
		return err
	}
	style := &label.TextStyle[0]
	style.Color, style.Font = markRGB, pl.Legend.TextStyle.Font
	style.YAlign, style.XAlign = draw.YBottom, draw.XRight
	label.Offset.X, label.Offset.Y = -6, 4
	pl.Add(l, label)
	pl.Legend.Add("capacity", l)
	return nil
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
