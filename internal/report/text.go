package report

import (
	"bufio"
	"fmt"
	"io"

	"github.com/gb-bench/gb/stats"
)

// Text writes ab's text report for r (ab's output_results): from the two
// leading newlines through the percentile table, then gb's own section
// (see writeExtra), which is always written, also with -d.
//
// The lines and conditions are ab's: the failure breakdown only when there
// are failures; Write errors and Non-2xx responses only when non-zero;
// Keep-Alive requests only with -k; Total body sent and the kb/s sent and
// total lines only with a request body; the rates only when time passed and
// a response completed; Connection Times only with a complete response; the
// percentile table only with two or more and without -d. Counts and bytes
// are r's; "Time taken for tests" is r.Elapsed in seconds.
func Text(w io.Writer, r *stats.Result, o Options) error {
	b := bufio.NewWriter(w)
	writeServer(b, r)
	writeCounts(b, r)
	writeRates(b, r)
	if r.Complete() > 0 {
		writeTimes(b, r, o)
		if r.Complete() > 1 && !o.NoPercentiles {
			writePercentiles(b, r)
		}
	}
	writeExtra(b, r)
	writeChecks(b, r)
	return b.Flush()
}

// writeServer writes the lines about the server and the document (with
// several targets, "(several)" where they differ: headerOf).
func writeServer(w io.Writer, r *stats.Result) {
	h := headerOf(r)
	fmt.Fprintf(w, "\n\nServer Software:        %s\n", h.software)
	fmt.Fprintf(w, "Server Hostname:        %s\n", h.host)
	fmt.Fprintf(w, "Server Port:            %s\n", h.port)
	if isHTTPS(r.Load) {
		if v := tlsInfo(r.Server); v != "" {
			fmt.Fprintf(w, "SSL/TLS Protocol:       %s\n", v)
		}
		if v := r.Server.TLSTempKey; v != "" {
			fmt.Fprintf(w, "Server Temp Key:        %s\n", v)
		}
		if v := r.Server.TLSServerName; v != "" {
			fmt.Fprintf(w, "TLS Server Name:        %s\n", v)
		}
	}
	fmt.Fprintf(w, "\nDocument Path:          %s\n", h.path)
	fmt.Fprintf(w, "Document Length:        %s\n", h.length)
}

// writeCounts writes the lines from Concurrency Level to HTML transferred.
func writeCounts(w io.Writer, r *stats.Result) {
	c := &r.Counts
	fmt.Fprintf(w, "\nConcurrency Level:      %d\n", r.Load.Concurrency)
	fmt.Fprintf(w, "Time taken for tests:   %.3f seconds\n", r.Elapsed.Seconds())
	fmt.Fprintf(w, "Complete requests:      %d\n", r.Complete())
	fmt.Fprintf(w, "Failed requests:        %d\n", r.Failed())
	if r.Failed() > 0 {
		b := r.Breakdown()
		fmt.Fprintf(w, "   (Connect: %d, Receive: %d, Length: %d, Exceptions: %d)\n",
			b.Connect, b.Receive, b.Length, b.Exceptions)
	}
	if n := c.Outcomes[stats.FailWrite]; n > 0 {
		fmt.Fprintf(w, "Write errors:           %d\n", n)
	}
	if n := c.Outcomes[stats.Non2xx]; n > 0 {
		fmt.Fprintf(w, "Non-2xx responses:      %d\n", n)
	}
	if r.Load.KeepAlive {
		fmt.Fprintf(w, "Keep-Alive requests:    %d\n", c.KeepAlive)
	}
	fmt.Fprintf(w, "Total transferred:      %d bytes\n", c.BytesIn)
	if hasBody(r) {
		fmt.Fprintf(w, "Total body sent:        %d\n", c.BytesOut)
	}
	fmt.Fprintf(w, "HTML transferred:       %d bytes\n", c.BodyIn)
	writeDecoded(w, r)
}

// hasBody reports whether the run sent a request body (ab's -p or -u),
// the condition for "Total body sent" and the kb/s sent and total lines.
func hasBody(r *stats.Result) bool { return r.Load.BodyLength > 0 }

// writeRates writes the rate lines, computed in ab's order of floating
// point operations so that they round identically.
func writeRates(w io.Writer, r *stats.Result) {
	t, done := r.Elapsed.Seconds(), float64(r.Complete())
	if t == 0 || done == 0 {
		return
	}
	in, out := float64(r.Counts.BytesIn), float64(r.Counts.BytesOut)
	fmt.Fprintf(w, "Requests per second:    %.2f [#/sec] (mean)\n", r.RPS())
	fmt.Fprintf(w, "Time per request:       %.3f [ms] (mean)\n", float64(r.Load.Concurrency)*t*1000/done)
	fmt.Fprintf(w, "Time per request:       %.3f [ms] (mean, across all concurrent requests)\n", t*1000/done)
	fmt.Fprintf(w, "Transfer rate:          %.2f [Kbytes/sec] received\n", in/1024/t)
	if hasBody(r) {
		fmt.Fprintf(w, "                        %.2f kb/s sent\n", out/1024/t)
		fmt.Fprintf(w, "                        %.2f kb/s total\n", float64(r.Counts.BytesIn+r.Counts.BytesOut)/1024/t)
	}
}
