package report

import (
	"bufio"
	"bytes"
	"io"
	"strconv"
	"strings"
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/gb-bench/gb"
	"github.com/gb-bench/gb/internal/realrun"
	"github.com/gb-bench/gb/stats"
)

// hgrmRow is one row of a .hgrm table.
type hgrmRow struct {
	valueMS    float64
	percentile float64 // 0..1
	count      int64
}

// parseHGRM reads a .hgrm's table rows and its footer's total count, as a
// plotting script would.
func parseHGRM(t *testing.T, b []byte) (rows []hgrmRow, total int64) {
	t.Helper()
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if i := strings.Index(sc.Text(), "Total count    ="); i >= 0 {
			total, _ = strconv.ParseInt(strings.Trim(strings.TrimSpace(sc.Text()[i+16:]), "]"), 10, 64)
		}
		if len(f) != 4 || strings.HasPrefix(f[0], "#") || f[0] == "Value" {
			continue
		}
		v, err1 := strconv.ParseFloat(f[0], 64)
		q, err2 := strconv.ParseFloat(f[1], 64)
		n, err3 := strconv.ParseInt(f[2], 10, 64)
		if err1 != nil || err2 != nil || err3 != nil {
			t.Fatalf("bad .hgrm row %q", sc.Text())
		}
		rows = append(rows, hgrmRow{v, q, n})
	}
	return rows, total
}

// TestHGRMMatchesReport: the .hgrm of a real run holds every response, and
// the p99 of gb's text report lies between the .hgrm rows around 99% (the
// format samples the distribution at fixed ticks, none at exactly 99%),
// as every percentile the JSON gives lies between the rows around it (or
// is the exact maximum, to which gb clamps the histogram's value).
func TestHGRMMatchesReport(t *testing.T) {
	res := realrun.Run(t, 2000, nil)
	b := renderBytes(t, func(w io.Writer) error { return HGRM(w, res) })
	rows, total := parseHGRM(t, b)
	if total != res.Complete() || len(rows) < 10 || rows[len(rows)-1].percentile != 1 {
		t.Fatalf("%d rows, total count %d, %d complete:\n%s", len(rows), total, res.Complete(), b)
	}
	p99, _ := textP99(t, res)
	maxMS := float64(res.Latency[stats.Total].Max) / 1000
	bracket := func(p float64, ms float64) {
		for i := 1; i < len(rows); i++ {
			if rows[i].percentile >= p/100 {
				if lo, hi := rows[i-1].valueMS, rows[i].valueMS; ms < min(lo, maxMS) || ms > hi {
					t.Errorf("p%v = %v ms, outside the .hgrm rows %v..%v at %v..%v", p, ms, lo, hi,
						rows[i-1].percentile, rows[i].percentile)
				}
				return
			}
		}
		t.Errorf("no .hgrm row at or above p%v", p)
	}
	bracket(99, p99)
	for _, p := range stats.Percentiles {
		bracket(p, float64(res.Latency[stats.Total].Percentile(p))/1000)
	}
}

// TestHLogReadsBack: the .hlog of a real run, read with hdrhistogram-go's
// log reader, has one histogram per interval of the series, each holding
// that interval's responses, and their merge holds every response with the
// run's percentiles. The series' counts add up to the run's.
func TestHLogReadsBack(t *testing.T) {
	res := realrun.Run(t, 1<<40, func(c *gb.Config) {
		c.Duration, c.Interval = 300*time.Millisecond, 50*time.Millisecond
	})
	s := res.Series
	if s == nil || s.Interval != 50*time.Millisecond || len(s.Points) < 2 {
		t.Fatalf("series of a 300 ms run in 50 ms intervals: %+v", s)
	}
	if first := s.Points[0].Start; res.Start.Before(first) || !res.Start.Before(first.Add(s.Interval)) {
		t.Errorf("the first point starts %v, the run %v", first, res.Start)
	}
	for i := 1; i < len(s.Points); i++ {
		if !s.Points[i].Start.Equal(s.Points[i-1].Start.Add(s.Interval)) {
			t.Errorf("point %d starts %v after %v", i, s.Points[i].Start, s.Points[i-1].Start)
		}
	}
	var ended, complete int64
	for _, p := range s.Points {
		ended += p.Ended
		complete += p.OK + p.Non2xx
	}
	if ended != res.Counts.Dispatched || complete != res.Complete() {
		t.Errorf("points: %d ended, %d complete; run: %d dispatched, %d complete", ended, complete, res.Counts.Dispatched, res.Complete())
	}
	rd := hdrhistogram.NewHistogramLogReader(bytes.NewReader(renderBytes(t, func(w io.Writer) error { return HLog(w, res) })))
	merged := stats.NewHistogram()
	var n int
	for {
		h, err := rd.NextIntervalHistogram()
		if err == io.EOF || h == nil && err == nil {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if n < len(s.Points) {
			p := s.Points[n]
			from := p.Start // the first interval starts with the run
			if n == 0 {
				from = res.Start
			}
			// A busy machine can stamp the requests aborted at the stop
			// after the run's end, in an interval of their own with no
			// response: its histogram is empty and spans that interval.
			after := !p.Start.Before(res.End) && p.OK+p.Non2xx == 0
			if h.TotalCount() != p.OK+p.Non2xx || h.StartTimeMs() != from.UnixMilli() || h.EndTimeMs() > res.End.UnixMilli() && !after {
				t.Errorf("interval %d: %d samples from %d to %d ms; point: %d from %d ms, run ends at %d ms", n, h.TotalCount(),
					h.StartTimeMs(), h.EndTimeMs(), p.OK+p.Non2xx, from.UnixMilli(), res.End.UnixMilli())
			}
		}
		merged.Merge(h)
		n++
	}
	total := res.Latency[stats.Total]
	if n != len(s.Points) || merged.TotalCount() != res.Complete() || merged.ValueAtPercentile(99) != total.Hist.ValueAtPercentile(99) {
		t.Errorf("%d histograms for %d points; merged count %d p99 %d; run %d p99 %d", n, len(s.Points),
			merged.TotalCount(), merged.ValueAtPercentile(99), res.Complete(), total.Hist.ValueAtPercentile(99))
	}
}

// TestRateModeFiles: in rate mode the .hgrm holds the corrected latency
// (from the intended send time), and the .hlog has, per interval, the
// total latency untagged and the corrected one tagged "corrected", each
// summing to every response.
func TestRateModeFiles(t *testing.T) {
	res := realrun.Run(t, 600, func(c *gb.Config) {
		c.Rate, c.Interval = gb.Rate{Freq: 2000}, 100*time.Millisecond
	})
	corr := res.Latency[stats.Corrected]
	if LeadPhase(res) != stats.Corrected || corr == nil || res.Series == nil {
		t.Fatalf("rate mode: lead %v, corrected %v, series %v", LeadPhase(res), corr, res.Series)
	}
	b := renderBytes(t, func(w io.Writer) error { return HGRM(w, res) })
	if _, total := parseHGRM(t, b); total != corr.Count || !bytes.Contains(b, []byte(strconv.FormatFloat(corr.Hist.Mean()/1000, 'f', 3, 64))) {
		t.Errorf(".hgrm total count %d of %d corrected samples, or not their mean %.3f:\n%s", total, corr.Count, corr.Hist.Mean()/1000, b)
	}
	rd := hdrhistogram.NewHistogramLogReader(bytes.NewReader(renderBytes(t, func(w io.Writer) error { return HLog(w, res) })))
	counts := map[string]int64{}
	histograms := map[string]int{}
	for {
		h, err := rd.NextIntervalHistogram()
		if err != nil {
			t.Fatal(err)
		}
		if h == nil {
			break
		}
		counts[h.Tag()] += h.TotalCount()
		histograms[h.Tag()]++
	}
	n := len(res.Series.Points)
	if histograms[""] != n || histograms["corrected"] != n || counts[""] != res.Complete() || counts["corrected"] != res.Complete() {
		t.Errorf("%d points; histograms %v, samples %v, complete %d", n, histograms, counts, res.Complete())
	}
}

// TestHLogIntervalLengths: with scripted interval boundaries (1 s points
// from 10:00:00; a run from 10:00:00.250 to 10:00:02.600), each interval's
// StartTimestamp and Interval_Length are the part of it the run covered:
// the first 0.750 s from 0.250, the middle one a whole second, the last
// 0.600 s, as the file's lines say and hdrhistogram-go's reader reads.
func TestHLogIntervalLengths(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	point := func(sec int, samples ...int64) stats.Point {
		h := stats.NewHistogram()
		for _, v := range samples {
			_ = h.RecordValue(v)
		}
		return stats.Point{Start: t0.Add(time.Duration(sec) * time.Second), OK: int64(len(samples)), Latency: &stats.Dist{Hist: h}}
	}
	res := &stats.Result{Start: t0.Add(250 * time.Millisecond), End: t0.Add(2600 * time.Millisecond),
		Series: &stats.Series{Interval: time.Second, Points: []stats.Point{point(0, 100, 200), point(1, 300), point(2)}}}
	res.Elapsed = res.End.Sub(res.Start)
	b := renderBytes(t, func(w io.Writer) error { return HLog(w, res) })
	var lines []string
	for _, l := range strings.Split(string(b), "\n") {
		if l != "" && l[0] >= '0' && l[0] <= '9' {
			f := strings.Split(l, ",")
			lines = append(lines, f[0]+","+f[1])
		}
	}
	if want := []string{"0.250000,0.750000", "1.000000,1.000000", "2.000000,0.600000"}; strings.Join(lines, " ") != strings.Join(want, " ") {
		t.Errorf("StartTimestamp,Interval_Length = %q, want %q; file:\n%s", lines, want, b)
	}
	rd := hdrhistogram.NewHistogramLogReader(bytes.NewReader(b))
	want := [][2]time.Duration{{250 * time.Millisecond, time.Second}, {time.Second, 2 * time.Second}, {2 * time.Second, 2600 * time.Millisecond}}
	for i := 0; ; i++ {
		h, err := rd.NextIntervalHistogram()
		if err != nil {
			t.Fatal(err)
		}
		if h == nil {
			if i != len(want) {
				t.Errorf("%d intervals read, want %d", i, len(want))
			}
			break
		}
		if i >= len(want) {
			t.Fatalf("more than %d intervals", len(want))
		}
		from, to := t0.Add(want[i][0]).UnixMilli(), t0.Add(want[i][1]).UnixMilli()
		if h.StartTimeMs() != from || h.EndTimeMs() != to || h.TotalCount() != res.Series.Points[i].OK {
			t.Errorf("interval %d read back as [%d, %d) ms with %d samples, want [%d, %d) with %d",
				i, h.StartTimeMs(), h.EndTimeMs(), h.TotalCount(), from, to, res.Series.Points[i].OK)
		}
	}
}
