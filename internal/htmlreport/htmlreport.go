package htmlreport

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/gb-bench/gb/internal/report"
	"github.com/gb-bench/gb/stats"
)

// htmlPercentiles are the percentile columns of the HTML latency table.
var htmlPercentiles = []struct {
	name string
	p    float64
}{{"p50", 50}, {"p75", 75}, {"p90", 90}, {"p95", 95}, {"p99", 99}, {"p99.9", 99.9}, {"p99.99", 99.99}}

// phaseLabels name the phases in the HTML latency table.
var phaseLabels = [stats.NumPhases]string{
	stats.Connect:    "connect",
	stats.Processing: "processing",
	stats.Waiting:    "waiting (to first byte)",
	stats.Total:      "total (service time)",
	stats.Corrected:  "corrected (from the intended send time)",
	stats.Lag:        "lag (send behind schedule)",
	stats.TLS:        "tls (handshake, per new connection)",
	stats.TLSFull:    "tls, full handshakes",
	stats.TLSResumed: "tls, resumed handshakes",
}

// Run writes r as one self-contained HTML page, the report of
// `--html FILE` and `gb report --html`: the headline numbers; latency per
// phase with percentiles up to p99.99; the checks (gb --check) with
// their passes and failures, when the run had checks; throughput, errors and latency
// percentiles over time from r.Series (a note says so when r has no
// series); the latency percentile distribution on HdrHistogram's
// 1/(1-q) axis (service time, and in rate mode the corrected latency);
// status codes, outcomes and failure messages; the server profile tables
// when r.Profile is set, and its diagnosis (the verdict, the CPU by
// cause, the facts per request, the profiles to open next, what is
// missing); and ab's text report with gb's section. Charts
// are SVG drawn by internal/chart, inlined; the page loads nothing (no
// script, no font or style from elsewhere; its Content-Security-Policy
// forbids it) and opens offline. Every string from r is escaped.
func Run(w io.Writer, r *stats.Result) error {
	if r == nil {
		return errors.New("report: no result")
	}
	p := &page{Title: "gb: " + r.Load.Method + " " + r.Load.URL, Lead: runLead(r), Cards: runCards(r)}
	sections := []func(*stats.Result) (section, error){summarySection, checksSection, timeSection, spectrumSection, responsesSection}
	for _, f := range sections {
		s, err := f(r)
		if err != nil {
			return err
		}
		if s.ID != "" { // "" a section the result has nothing for
			p.Sections = append(p.Sections, s)
		}
	}
	if r.Profile != nil {
		p.Sections = append(p.Sections, profileSection(r.Profile))
	}
	if s, ok := diagnosisSection(r); ok {
		p.Sections = append(p.Sections, s)
	}
	var text bytes.Buffer
	if err := report.Text(&text, r, report.Options{}); err != nil {
		return err
	}
	p.Sections = append(p.Sections, section{ID: "ab", Title: "ab's report",
		Notes: []string{"The text report, as gb prints it: ab's layout, then gb's own section."},
		Pre:   strings.TrimLeft(text.String(), "\n")})
	return p.write(w)
}

// runLead is the lines under a run's heading.
func runLead(r *stats.Result) []string {
	lead := []string{strings.Join(r.Command, " ")}
	if !r.Start.IsZero() {
		lead = append(lead, fmt.Sprintf("started %s, took %.3f s, stopped by %s",
			r.Start.UTC().Format("2006-01-02 15:04:05 MST"), r.Elapsed.Seconds(), report.StopReason(r)))
	}
	return append(lead, fmt.Sprintf("%s; gb %s", report.LatencyModel(r), r.GBVersion))
}

// msValue formats µs as "1.234 ms".
func msValue(us int64) string { return ms(float64(us)) + " ms" }

// runCards are a run's headline numbers.
func runCards(r *stats.Result) []card {
	total := r.Latency[stats.Total]
	errRate, _ := r.ErrorRate()
	non2xx, _ := r.Non2xxRate()
	cards := []card{
		{Label: "requests per second", Value: strconv.FormatFloat(r.RPS(), 'f', 2, 64), Note: "complete responses ÷ time taken"},
		{Label: "complete", Value: strconv.FormatInt(r.Complete(), 10), Note: fmt.Sprintf("of %d sent", r.Counts.Dispatched)},
		{Label: "error rate", Value: pctShare(errRate), Note: fmt.Sprintf("%d failed of %d ended; non-2xx %d (%s)",
			r.Counts.Outcomes.Failed(), r.Complete()+r.Counts.Outcomes.Failed(), r.Counts.Outcomes[stats.Non2xx], pctShare(non2xx))},
	}
	if total != nil && total.Count > 0 {
		cards = append(cards,
			card{Label: "p50", Value: msValue(total.Percentile(50)), Note: "service time"},
			card{Label: "p99", Value: msValue(total.Percentile(99)), Note: "service time"},
			card{Label: "p99.9", Value: msValue(total.Percentile(99.9)), Note: "service time"})
	}
	if c := r.Latency[stats.Corrected]; c != nil && c.Count > 0 {
		cards = append(cards, card{Label: "corrected p99", Value: msValue(c.Percentile(99)), Note: "from the intended send time"},
			card{Label: "target rate", Value: strconv.FormatFloat(r.Load.Rate, 'f', -1, 64) + "/s", Note: fmt.Sprintf("achieved %.2f/s", perSecond(float64(r.Counts.Dispatched), r))})
	}
	return cards
}

// pctOf formats n as a percentage of total with two decimals.
func pctOf(n, total int64) string {
	if total <= 0 {
		return "0.00%"
	}
	return pctShare(float64(n) / float64(total))
}

// pctShare formats a share (0..1) as a percentage with two decimals.
func pctShare(share float64) string { return strconv.FormatFloat(100*share, 'f', 2, 64) + "%" }

// summarySection is the latency table: per phase with samples, count,
// min, mean, sd, the percentiles and max in ms.
func summarySection(r *stats.Result) (section, error) {
	t := table{Caption: "Latency (ms)", Head: []string{"phase", "count", "min", "mean", "sd"}, Left: 1}
	for _, p := range htmlPercentiles {
		t.Head = append(t.Head, p.name)
	}
	t.Head = append(t.Head, "max")
	for ph, d := range r.Latency {
		if d == nil || d.Count == 0 {
			continue
		}
		row := []string{phaseLabels[ph], strconv.FormatInt(d.Count, 10), ms(float64(d.Min)), ms(d.Mean()), ms(d.StdDev())}
		for _, p := range htmlPercentiles {
			row = append(row, ms(float64(d.Percentile(p.p))))
		}
		t.Rows = append(t.Rows, append(row, ms(float64(d.Max))))
	}
	s := section{ID: "latency", Title: "Latency"}
	if len(t.Rows) == 0 {
		s.Notes = []string{"No response completed, so there is no latency to show."}
		return s, nil
	}
	s.Notes = []string{"Percentiles come from the run's HdrHistograms (within 0.1%); min, mean, sd and max are exact."}
	s.Tables = []table{t}
	return s, nil
}

// timeSection is the run over time: throughput, errors and latency
// percentiles per interval of r.Series.
func timeSection(r *stats.Result) (section, error) {
	s := section{ID: "time", Title: "Over time"}
	if r.Series == nil || len(r.Series.Points) == 0 || r.Series.Interval <= 0 {
		s.Notes = []string{"No time series: this result has no per-interval data, so nothing is plotted over time."}
		return s, nil
	}
	t := timeAxis{r: r, s: r.Series}
	s.Notes = []string{fmt.Sprintf("%d intervals of %v; each point is one interval, placed at its middle.", len(r.Series.Points), r.Series.Interval)}
	if w := r.Series.Width(0); w > r.Series.Interval {
		s.Notes = []string{fmt.Sprintf("%d points: the older part of the run merged into points of up to %v, the newest of %v each; each point is placed at its middle.",
			len(r.Series.Points), w, r.Series.Interval)}
	}
	if err := s.addChart(throughputChart(t)); err != nil {
		return s, err
	}
	if hasErrors(r.Series) {
		if err := s.addChart(errorsChart(t)); err != nil {
			return s, err
		}
	} else {
		s.Notes = append(s.Notes, "No interval had a failure or a non-2xx response.")
	}
	if !slices.ContainsFunc(r.Series.Points, func(p stats.Point) bool { return p.Latency != nil && p.Latency.Count > 0 }) {
		s.Notes = append(s.Notes, "No interval had a response, so there is no latency over time.")
		return s, nil
	}
	return s, s.addChart(latencyChart(t))
}

// spectrumSection is the latency percentile distribution: service time,
// and in rate mode the latency from the intended send time.
func spectrumSection(r *stats.Result) (section, error) {
	s := section{ID: "distribution", Title: "Latency percentile distribution"}
	lines := []spectrumLine{{name: "service time", dist: r.Latency[stats.Total]}}
	if r.Load.Rate > 0 {
		lines = append(lines, spectrumLine{name: "from the intended send time (corrected)", dist: r.Latency[stats.Corrected]})
	}
	p := spectrumChart("Latency by percentile", lines, len(lines))
	if p == nil {
		s.Notes = []string{"No response completed, so there is no distribution to show."}
		return s, nil
	}
	s.Notes = []string{"The x axis is HdrHistogram's: 1/(1-q) on a log scale, so each decade is one more nine (90%, 99%, 99.9% …) and the tail gets as much room as the median."}
	return s, s.addChart(p)
}

// responsesSection tabulates status codes, outcomes and failure messages.
func responsesSection(r *stats.Result) (section, error) {
	c := &r.Counts
	s := section{ID: "responses", Title: "Responses"}
	codes := make([]int, 0, len(c.Status))
	var responses int64
	for code, n := range c.Status {
		codes = append(codes, code)
		responses += n
	}
	slices.Sort(codes)
	status := table{Caption: "Status codes", Head: []string{"status", "responses", "share"}, Left: 1}
	for _, code := range codes {
		status.Rows = append(status.Rows, []string{strconv.Itoa(code), strconv.FormatInt(c.Status[code], 10), pctOf(c.Status[code], responses+c.OtherStatus)})
	}
	if c.OtherStatus > 0 {
		status.Rows = append(status.Rows, []string{"other codes", strconv.FormatInt(c.OtherStatus, 10), pctOf(c.OtherStatus, responses+c.OtherStatus)})
	}
	outcomes := table{Caption: "Outcomes", Head: []string{"outcome", "requests", "share"}, Left: 1}
	all := c.Outcomes.Sum()
	for o := stats.Outcome(0); o < stats.NumOutcomes; o++ {
		if n := c.Outcomes[o]; n > 0 || o == stats.OK {
			outcomes.Rows = append(outcomes.Rows, []string{o.String(), strconv.FormatInt(n, 10), pctOf(n, all)})
		}
	}
	s.Tables = []table{status, outcomes}
	if len(c.Errors) > 0 || c.OtherErrors > 0 {
		s.Tables = append(s.Tables, errorTable(c))
	}
	if len(status.Rows) == 0 {
		s.Notes = []string{"No response was received."}
		s.Tables = s.Tables[1:]
	}
	return s, nil
}

// errorTable lists failure messages, most frequent first.
func errorTable(c *stats.Counts) table {
	t := table{Caption: "Failure messages", Head: []string{"message", "count"}, Left: 1}
	msgs := byCount(c.Errors)
	for _, m := range msgs {
		t.Rows = append(t.Rows, []string{m, strconv.FormatInt(c.Errors[m], 10)})
	}
	if c.OtherErrors > 0 {
		t.Rows = append(t.Rows, []string{"(other messages)", strconv.FormatInt(c.OtherErrors, 10)})
	}
	return t
}

// byCount returns m's keys, largest value first, then by name.
func byCount(m map[string]int64) []string {
	return slices.SortedFunc(maps.Keys(m), func(a, b string) int { return cmp.Or(cmp.Compare(m[b], m[a]), strings.Compare(a, b)) })
}

// profileSection is the server profile (--profile): what was captured,
// and the tops of `go tool pprof -top` as tables.
func profileSection(sp *stats.ServerProfile) section {
	s := section{ID: "profile", Title: "Server profile"}
	facts := table{Caption: "Capture", Left: 2}
	for _, kv := range report.ProfileFacts(sp) {
		facts.Rows = append(facts.Rows, kv[:])
	}
	s.Tables = append(s.Tables, facts)
	if c := sp.CPU; c != nil {
		s.Tables = append(s.Tables, topTable("CPU by flat time", &c.Top), topTable("CPU by cumulative time", &c.TopCum))
	}
	if a := sp.Allocs; a != nil {
		s.Tables = append(s.Tables, topTable("Allocations by flat bytes", a))
	}
	return s
}

// topTable is a pprof top as a table, with its command in the caption.
func topTable(title string, t *stats.ProfileTop) table {
	cmd, rows := report.ProfileTop(t)
	tb := table{Caption: title + ": " + cmd, Head: []string{"flat", "flat %", "sum %", "cum", "cum %", "function"}, Rows: rows, Last: true}
	if len(t.Functions) == 0 {
		tb.Rows = append(tb.Rows, []string{"", "", "", "", "", "(no samples)"})
	}
	return tb
}
