package report

import (
	"fmt"
	"strings"

	"github.com/gb-bench/gb/stats"
)

// targetLines writes gb's section's lines for a run with several targets:
// "targets" (how many, and the order), then one "target N" line each, a
// small table of name=value tokens padded into columns: complete
// responses per second, the share of the requests sent, total latency
// p50 and p99 in ms, failures (as ab's Failed requests: failed outcomes,
// and length mismatches unless -l) and non-2xx responses, then the
// method and URL.
func targetLines(r *stats.Result, line func(key, value string)) {
	order := r.Load.Order
	if order == "random" {
		order += fmt.Sprintf(" (seed %d)", r.Load.Seed)
	}
	line("targets", fmt.Sprintf("%d, %s", len(r.Targets), order))
	var sent int64
	for i := range r.Targets {
		sent += r.Targets[i].Requests
	}
	rows := make([][]string, len(r.Targets))
	for i := range r.Targets {
		rows[i] = targetRow(r, &r.Targets[i], sent)
	}
	width := make([]int, len(rows[0]))
	for _, row := range rows {
		for j, cell := range row {
			width[j] = max(width[j], len(cell))
		}
	}
	for i, row := range rows {
		for j := range row[:len(row)-1] {
			row[j] = fmt.Sprintf("%-*s", width[j], row[j])
		}
		line(fmt.Sprintf("target %d", i+1), strings.Join(row, " "))
	}
}

// targetRow is one target's cells.
func targetRow(r *stats.Result, t *stats.TargetStats, sent int64) []string {
	complete := t.Outcomes[stats.OK] + t.Outcomes[stats.Non2xx]
	var rps, share float64
	if s := r.Elapsed.Seconds(); s > 0 {
		rps = float64(complete) / s
	}
	if sent > 0 {
		share = float64(t.Requests) / float64(sent)
	}
	failed := t.Failed()
	if !r.Load.VariableLength {
		failed += t.LengthMismatch
	}
	p50, p99 := "-", "-"
	if d := t.Latency; d != nil && d.Count > 0 {
		p50 = fmt.Sprintf("%.3f", float64(min(max(d.Percentile(50), d.Min), d.Max))/1000)
		p99 = fmt.Sprintf("%.3f", float64(min(max(d.Percentile(99), d.Min), d.Max))/1000)
	}
	return []string{
		fmt.Sprintf("requests=%d", t.Requests),
		fmt.Sprintf("rps=%.1f", rps),
		fmt.Sprintf("share=%.3f", share),
		"p50=" + p50,
		"p99=" + p99,
		fmt.Sprintf("failed=%d", failed),
		fmt.Sprintf("non2xx=%d", t.Outcomes[stats.Non2xx]),
		t.Method + " " + t.URL,
	}
}
