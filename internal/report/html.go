package report

import (
	"bufio"
	"fmt"
	"html"
	"io"

	"github.com/gb-bench/gb/stats"
)

// HTML writes ab's -w report for r (ab's output_html_results): a <table>
// of label/value rows with the -x/-y/-z attributes of o. It differs from
// the text report as ab's does: the failure row has no Receive count; there
// are no Write errors, Time per request or percentile rows; the rates print
// whenever time passed; Connection Times has min/avg/max for Connect,
// Processing and Total only, computed from ms-rounded extremes and sums
// (Processing = Total - Connect column by column). Every string is
// HTML-escaped; the attributes are written as given.
//
// After ab's table come two more in its style (same attributes): ab's
// percentile table of total times, as the text report has it (with two or
// more complete responses, not with -d), and gb's section (see
// writeExtra), whose values are defused as in the text report.
func HTML(w io.Writer, r *stats.Result, o Options) error {
	b := bufio.NewWriter(w)
	t := htmlTable{w: b, tr: o.RowAttrs, td: o.cellAttrs()}
	fmt.Fprintf(b, "\n\n<table %s>\n", o.TableAttrs)
	t.rows(r)
	t.rates(r)
	if r.Complete() > 0 {
		t.times(r)
	}
	fmt.Fprint(b, "</table>\n")
	if r.Complete() > 1 && !o.NoPercentiles {
		fmt.Fprintf(b, "<table %s>\n", o.TableAttrs)
		t.percentiles(r)
		fmt.Fprint(b, "</table>\n")
	}
	fmt.Fprintf(b, "<table %s>\n", o.TableAttrs)
	t.heading("gb")
	extraLines(r, func(key, value string) { t.row(html.EscapeString(key), html.EscapeString(defuse(value))) })
	fmt.Fprint(b, "</table>\n")
	return b.Flush()
}

// heading writes a row with one heading cell across the table.
func (t htmlTable) heading(text string) {
	fmt.Fprintf(t.w, "<tr %s><th %s colspan=4>%s</th></tr>\n", t.tr, t.td, text)
}

// percentiles writes ab's percentile table of total times, the values of
// the text report's.
func (t htmlTable) percentiles(r *stats.Result) {
	total := newRanks(r.Latency[stats.Total])
	t.heading("Percentage of the requests served within a certain time (ms)")
	for _, p := range abPercentiles {
		t.cells(fmt.Sprintf("%d%%", p), fmt.Sprint(roundMS(total.percentile(p))))
	}
	t.cells("100%", fmt.Sprintf("%d (longest request)", roundMS(total.max)))
}

// htmlTable writes rows with the row and cell attributes.
type htmlTable struct {
	w      io.Writer
	tr, td string
}

// row writes a two-column row: a <th> label with a colon and a <td> value.
func (t htmlTable) row(label, value string) { t.cells(label+":", value) }

// cells writes a two-column row: a <th> and a <td>, as given.
func (t htmlTable) cells(th, td string) {
	fmt.Fprintf(t.w, "<tr %s><th colspan=2 %s>%s</th><td colspan=2 %s>%s</td></tr>\n",
		t.tr, t.td, th, t.td, td)
}

// rows writes the rows from Server Software to HTML transferred.
func (t htmlTable) rows(r *stats.Result) {
	c := &r.Counts
	h := headerOf(r)
	t.row("Server Software", html.EscapeString(h.software))
	t.row("Server Hostname", html.EscapeString(h.host))
	t.row("Server Port", html.EscapeString(h.port))
	t.row("Document Path", html.EscapeString(h.path))
	t.row("Document Length", html.EscapeString(h.length))
	t.row("Concurrency Level", fmt.Sprint(r.Load.Concurrency))
	t.row("Time taken for tests", fmt.Sprintf("%.3f seconds", r.Elapsed.Seconds()))
	t.row("Complete requests", fmt.Sprint(r.Complete()))
	t.row("Failed requests", fmt.Sprint(r.Failed()))
	if r.Failed() > 0 {
		b := r.Breakdown()
		fmt.Fprintf(t.w, "<tr %s><td colspan=4 %s >   (Connect: %d, Length: %d, Exceptions: %d)</td></tr>\n",
			t.tr, t.td, b.Connect, b.Length, b.Exceptions)
	}
	if n := c.Outcomes[stats.Non2xx]; n > 0 {
		t.row("Non-2xx responses", fmt.Sprint(n))
	}
	if r.Load.KeepAlive {
		t.row("Keep-Alive requests", fmt.Sprint(c.KeepAlive))
	}
	t.row("Total transferred", fmt.Sprintf("%d bytes", c.BytesIn))
	if hasBody(r) {
		t.row("Total body sent", fmt.Sprint(c.BytesOut))
	}
	t.row("HTML transferred", fmt.Sprintf("%d bytes", c.BodyIn))
	if s, ok := decodedLine(r, "&times;"); ok { // ab's page names no charset
		t.row("Decoded body", s)
	}
}

// rates writes the rate rows; ab writes them whenever time passed, even
// with no complete request.
func (t htmlTable) rates(r *stats.Result) {
	s := r.Elapsed.Seconds()
	if s == 0 {
		return
	}
	t.row("Requests per second", fmt.Sprintf("%.2f", r.RPS()))
	t.row("Transfer rate", fmt.Sprintf("%.2f kb/s received", float64(r.Counts.BytesIn)/1024/s))
	if hasBody(r) {
		t.blankRow(fmt.Sprintf("%.2f kb/s sent", float64(r.Counts.BytesOut)/1024/s))
		t.blankRow(fmt.Sprintf("%.2f kb/s total", float64(r.Counts.BytesIn+r.Counts.BytesOut)/1024/s))
	}
}

// blankRow writes a continuation row with an empty label cell.
func (t htmlTable) blankRow(value string) {
	fmt.Fprintf(t.w, "<tr %s><td colspan=2 %s>&nbsp;</td><td colspan=2 %s>%s</td></tr>\n",
		t.tr, t.td, t.td, value)
}

// times writes ab's HTML Connection Times: extremes and sums are rounded
// to ms first, then the averages are integer divisions of the rounded sums.
func (t htmlTable) times(r *stats.Result) {
	var con, tot stats.Exact
	if d := r.Latency[stats.Connect]; d != nil {
		con = d.Exact
	}
	if d := r.Latency[stats.Total]; d != nil {
		tot = d.Exact
	}
	done := r.Complete()
	minCon, maxCon, sumCon := roundMS(con.Min), roundMS(con.Max), roundMS(con.Sum)
	minTot, maxTot, sumTot := roundMS(tot.Min), roundMS(tot.Max), roundMS(tot.Sum)
	t.heading("Connection Times (ms)")
	fmt.Fprintf(t.w, "<tr %s><th %s>&nbsp;</th> <th %s>min</th>   <th %s>avg</th>   <th %s>max</th></tr>\n",
		t.tr, t.td, t.td, t.td, t.td)
	t.timesRow("Connect", minCon, sumCon/done, maxCon)
	t.timesRow("Processing", minTot-minCon, sumTot/done-sumCon/done, maxTot-maxCon)
	t.timesRow("Total", minTot, sumTot/done, maxTot)
}

// timesRow writes one Connection Times row.
func (t htmlTable) timesRow(label string, lo, avg, hi int64) {
	fmt.Fprintf(t.w, "<tr %s><th %s>%s:</th><td %s>%5d</td><td %s>%5d</td><td %s>%5d</td></tr>\n",
		t.tr, t.td, label, t.td, lo, t.td, avg, t.td, hi)
}
