package report

import (
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"

	"github.com/gb-bench/gb/stats"
)

// forbidden are the strings that scripts written for ab match in its
// report (DESIGN.md §4). gb's own section must never contain them, nor a
// number followed by a percent sign.
var forbidden = []string{
	"Complete requests:", "Failed requests:", "Requests per second:", "Time per request:",
	"Transfer rate:", "Total:", "Non-2xx responses:",
}

// percentToken matches a number followed by a percent sign ("99%").
var percentToken = regexp.MustCompile(`[0-9]%`)

// extraPercentiles are the latency percentiles of gb's section.
var extraPercentiles = []struct {
	name string
	p    float64
}{{"p50", 50}, {"p90", 90}, {"p99", 99}, {"p99.9", 99.9}}

// stopReasons spells Result.StoppedBy.
var stopReasons = map[string]string{
	stats.StopCount:  "request count",
	stats.StopTime:   "time limit",
	stats.StopSignal: "signal",
	stats.StopError:  "error",
}

// writeExtra writes gb's section after ab's report: an empty line, "gb:",
// then one indented "key: value" line each, values aligned at column 24
// like ab's. The keys are stable; lists of counts are space-separated
// name=value tokens; latencies are ms with three decimals (p99.9, never a
// percent sign). Every key is always present except the rate-mode keys
// (see writeRate) and "warning", which appears once per warning.
func writeExtra(w io.Writer, r *stats.Result) {
	fmt.Fprint(w, "\ngb:\n")
	extraLines(r, func(key, value string) { fmt.Fprintf(w, "  %-22s%s\n", key+":", defuse(value)) })
	writeProfile(w, r)
	writeDiagnosis(w, r)
}

// connections is the measured run's connections opened and closed, and
// those the warm-up opened and the run went on using: without them, a
// run after a warm-up read "opened=0" with connections in use.
func connections(r *stats.Result) string {
	c := &r.Counts
	s := fmt.Sprintf("opened=%d closed=%d", c.ConnsOpened, c.ConnsClosed)
	if w := r.Warmup; w != nil && w.Counts.ConnsOpened > w.Counts.ConnsClosed {
		s += fmt.Sprintf(" (+%d opened in the warm-up and kept)", w.Counts.ConnsOpened-w.Counts.ConnsClosed)
	}
	return s
}

// tlsHandshakes counts the run's full and resumed TLS handshakes. With
// --tls-resume and none resumed, a note says why: the server refused
// resumption (more full handshakes than connections that could open
// before a first session was in hand: in a closed loop, a connection's
// successor opens after its response, with the session it got), or no
// connection opened after a first session came.
func tlsHandshakes(r *stats.Result) string {
	full, resumed := samples(r.Latency[stats.TLSFull]), samples(r.Latency[stats.TLSResumed])
	s := fmt.Sprintf("full=%d resumed=%d", full, resumed)
	switch {
	case !r.Load.TLSResume || resumed > 0:
	case full > int64(r.Load.Concurrency):
		c := int64(r.Load.Concurrency)
		s += fmt.Sprintf(" (--tls-resume: the server resumed none of the %d sessions after the first %d handshakes: it refuses resumption)", full-c, c)
	default:
		s += " (--tls-resume: every connection opened before a first session could be resumed)"
	}
	return s
}

// samples is d's number of samples; 0 for nil.
func samples(d *stats.Dist) int64 {
	if d == nil {
		return 0
	}
	return d.Count
}

// extraLines calls line with each key and value of gb's section, in
// order (see writeExtra); the values are not yet defused.
func extraLines(r *stats.Result, line func(key, value string)) {
	c := &r.Counts
	line("latency model", latencyModel(r))
	if p := protocolLine(&r.Load); p != "" {
		line("protocol", p)
	}
	line("stopped by", stoppedBy(r))
	if s := r.Load.Shard; s.Count > 0 {
		line("shard", fmt.Sprintf("%d/%d: this process's share of the load (gb merge combines the shards)", s.Index, s.Count))
	}
	if p := r.Partial; p != nil {
		line("partial merge", p.String()+" merged, the others missing: the counts above are not the whole load's")
	}
	if w := r.Warmup; w != nil {
		line("warm-up", fmt.Sprintf("%v before measuring, not counted above: %d requests, %s, connections opened=%d",
			w.Duration, w.Counts.Dispatched, outcomes(&w.Counts.Outcomes), w.Counts.ConnsOpened))
	}
	line("outcomes", outcomes(&c.Outcomes))
	if len(c.Errors) > 0 || c.OtherErrors > 0 {
		line("errors", errorSummary(c))
	}
	if strings.HasPrefix(r.Load.URL, "https:") {
		line("tls verify", map[bool]string{true: "on", false: "off (--insecure)"}[r.Load.TLSVerify])
	}
	line("retries", fmt.Sprint(c.Retries))
	line("length mismatches", fmt.Sprint(c.LengthMismatch))
	line("status codes", statusCodes(c))
	line("connections", connections(r))
	if d := r.Latency[stats.TLS]; d != nil && d.Count > 0 {
		line("tls handshakes", tlsHandshakes(r))
	}
	line("bytes sent", fmt.Sprint(c.BytesOut))
	line("latency ms", latencySummary(r.Latency[stats.Total]))
	if len(r.Targets) > 0 {
		targetLines(r, line)
	}
	if r.Load.Rate > 0 {
		writeRate(line, r)
	}
	line("client", clientCost(r))
	for _, warn := range warnings(r) {
		line("warning", warn)
	}
}

// latencyModel says what the latencies measure.
func latencyModel(r *stats.Result) string {
	if r.Load.Rate > 0 {
		return "rate mode: latency from intended send time in corrected ms; ab's tables show service time"
	}
	if r.Load.Pipeline > 1 {
		return fmt.Sprintf("closed loop, pipelined %d deep: latency from each batch's start, service time", r.Load.Pipeline)
	}
	return "closed loop: latency is service time, not corrected for coordinated omission"
}

// stoppedBy says what ended the run, with the error for StopError.
func stoppedBy(r *stats.Result) string {
	s, ok := stopReasons[r.StoppedBy]
	if !ok {
		s = "unknown"
	}
	if r.StopError != "" {
		s += ": " + r.StopError
	}
	return s
}

// outcomes lists ok and non2xx, then every other non-zero outcome by name.
func outcomes(o *stats.Outcomes) string {
	parts := []string{
		fmt.Sprintf("ok=%d", o[stats.OK]),
		fmt.Sprintf("non2xx=%d", o[stats.Non2xx]),
	}
	for i := stats.Non2xx + 1; i < stats.NumOutcomes; i++ {
		if o[i] > 0 {
			parts = append(parts, fmt.Sprintf("%s=%d", i, o[i]))
		}
	}
	return strings.Join(parts, " ")
}

// errorSummary lists failure messages by count, most frequent first, as
// "message=count" separated by "; ".
func errorSummary(c *stats.Counts) string {
	msgs := make([]string, 0, len(c.Errors))
	for m := range c.Errors {
		msgs = append(msgs, m)
	}
	slices.SortFunc(msgs, func(a, b string) int {
		if c.Errors[a] != c.Errors[b] {
			return int(c.Errors[b] - c.Errors[a])
		}
		return strings.Compare(a, b)
	})
	parts := make([]string, 0, len(msgs)+1)
	for _, m := range msgs {
		parts = append(parts, fmt.Sprintf("%s=%d", m, c.Errors[m]))
	}
	if c.OtherErrors > 0 {
		parts = append(parts, fmt.Sprintf("other=%d", c.OtherErrors))
	}
	return strings.Join(parts, "; ")
}

// statusCodes lists the final status codes in ascending order, then
// "other" for codes beyond the recorders' tables; "none" when empty.
func statusCodes(c *stats.Counts) string {
	codes := make([]int, 0, len(c.Status))
	for code := range c.Status {
		codes = append(codes, code)
	}
	slices.Sort(codes)
	var parts []string
	for _, code := range codes {
		parts = append(parts, fmt.Sprintf("%d=%d", code, c.Status[code]))
	}
	if c.OtherStatus > 0 {
		parts = append(parts, fmt.Sprintf("other=%d", c.OtherStatus))
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, " ")
}

// latencySummary lists d's percentiles and maximum in ms, each clamped to
// the exact extremes; "none" without samples.
func latencySummary(d *stats.Dist) string {
	if d == nil || d.Count == 0 {
		return "none"
	}
	var parts []string
	for _, p := range extraPercentiles {
		v := min(max(d.Percentile(p.p), d.Min), d.Max)
		parts = append(parts, fmt.Sprintf("%s=%.3f", p.name, float64(v)/1000))
	}
	parts = append(parts, fmt.Sprintf("max=%.3f", float64(d.Max)/1000))
	return strings.Join(parts, " ")
}

// defuse makes free text safe for gb's section: control characters become '?',
// the colon of an ab label becomes " -", and a percent sign after a digit
// becomes " pct", so that no ab parser can mistake the line for ab's.
func defuse(s string) string {
	s = defuseControls(s)
	for _, f := range forbidden {
		s = strings.ReplaceAll(s, f, strings.TrimSuffix(f, ":")+" -")
	}
	return percentToken.ReplaceAllStringFunc(s, func(m string) string { return m[:1] + " pct" })
}

// defuseControls replaces control characters with '?'.
func defuseControls(s string) string {
	return strings.Map(func(r rune) rune {
		if r < ' ' || (r >= 0x7f && r < 0xa0) {
			return '?'
		}
		return r
	}, s)
}
