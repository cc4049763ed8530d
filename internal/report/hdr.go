package report

import (
	"bufio"
	"fmt"
	"io"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/gb-bench/gb/stats"
)

// hgrmTicks is the .hgrm's rows per half distance to 100%, HdrHistogram's
// and wrk2's default.
const hgrmTicks = 5

// LeadPhase is the latency a run's summary leads with: Corrected (from
// the intended send time) in rate mode, Total (service time) otherwise.
func LeadPhase(r *stats.Result) stats.Phase {
	if r.Load.Rate > 0 && r.Latency[stats.Corrected] != nil {
		return stats.Corrected
	}
	return stats.Total
}

// HGRM writes the percentile distribution of r's LeadPhase latency in
// HdrHistogram's .hgrm format (hdrhistogram-go's PercentilesPrint, values
// in ms, 5 ticks per half distance): the file wrk2 --latency users and
// HdrHistogram's plotter read. A run without responses writes the header
// and footer only.
func HGRM(w io.Writer, r *stats.Result) error {
	h := r.Latency[LeadPhase(r)].Histogram()
	if h == nil {
		h = stats.NewHistogram()
	}
	b := bufio.NewWriter(w)
	if _, err := h.PercentilesPrint(b, hgrmTicks, 1000); err != nil {
		return fmt.Errorf("report: hgrm: %w", err)
	}
	return b.Flush()
}

// HLog writes r's time series in HdrHistogram's interval log format (.hlog,
// hdrhistogram-go's HistogramLogWriter): one untagged histogram of the
// responses' total latency per interval, empty intervals included, and in
// rate mode one more per interval tagged "corrected". Each interval's
// StartTimestamp and Interval_Length are the part of it the run covered
// (the first starts at the run's start, the last ends at its end), to the
// millisecond. Timestamps are
// seconds from the whole second the first interval starts in (the
// StartTime and BaseTime lines); values
// are µs, so HdrHistogram's HistogramLogProcessor needs
// -outputValueUnitRatio 1000 to print ms, and the Interval_Max column is
// in seconds. A result without a series is an error.
func HLog(w io.Writer, r *stats.Result) error {
	s := r.Series
	if s == nil || len(s.Points) == 0 {
		return fmt.Errorf("report: hlog: the result has no time series")
	}
	b := bufio.NewWriter(w)
	lw := hdrhistogram.NewHistogramLogWriter(b)
	base := s.Points[0].Start.Unix() * 1000 // the BaseTime line holds whole seconds
	lw.SetBaseTime(base)
	steps := []func() error{
		lw.OutputLogFormatVersion,
		func() error {
			return lw.OutputComment(fmt.Sprintf("[gb %s, latency in µs, interval %v]", r.GBVersion, s.Interval))
		},
		func() error { return lw.OutputStartTime(base) },
		func() error { return lw.OutputBaseTime(base) },
		lw.OutputLegend,
	}
	for i := range s.Points {
		p, w := &s.Points[i], s.Width(i)
		steps = append(steps, func() error { return logInterval(lw, p.Latency, "", p, w, r) })
		if r.Load.Rate > 0 {
			steps = append(steps, func() error { return logInterval(lw, p.Corrected, "corrected", p, w, r) })
		}
	}
	for _, step := range steps {
		if err := step(); err != nil {
			return fmt.Errorf("report: hlog: %w", err)
		}
	}
	return b.Flush()
}

// logInterval writes d (nil = no samples) as point p's interval histogram,
// over the part of the point (width long) the run covered (span).
func logInterval(lw *hdrhistogram.HistogramLogWriter, d *stats.Dist, tag string, p *stats.Point, width time.Duration, r *stats.Result) error {
	h := d.Histogram()
	if h == nil {
		h = stats.NewHistogram()
	}
	from, to := span(p, width, r)
	h.SetTag(tag)
	h.SetStartTimeMs(from.UnixMilli())
	h.SetEndTimeMs(to.UnixMilli())
	return lw.OutputIntervalHistogram(h)
}

// span is the part of point p's interval [Start, Start+every) that lies
// within the run, [r.Start, r.End]: the first and last intervals of a run
// are partial, and an interval log says each one's real length. The whole
// interval when r has no start or end, or when p lies outside them.
func span(p *stats.Point, every time.Duration, r *stats.Result) (from, to time.Time) {
	from, to = p.Start, p.Start.Add(every)
	if r.Start.IsZero() || r.End.IsZero() || !r.End.After(from) || !r.Start.Before(to) {
		return from, to
	}
	if r.Start.After(from) {
		from = r.Start
	}
	if r.End.Before(to) {
		to = r.End
	}
	return from, to
}
