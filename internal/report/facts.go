package report

import (
	"bytes"
	"strings"
	"time"

	"github.com/gb-bench/gb/stats"
)

// The text report's facts that the HTML page (internal/htmlreport) shows
// too, so that both say the same thing in the same words.

// StopReason says what ended r's run, as the text's "Stopped by" line
// does, with the error for StopError.
func StopReason(r *stats.Result) string { return stoppedBy(r) }

// LatencyModel says what r's latency measures: service time, or from the
// intended send time in rate mode.
func LatencyModel(r *stats.Result) string { return latencyModel(r) }

// CheckMark is a check's mark in the text: ✗ when a response failed it,
// ✓ when one passed, - when none was checked.
func CheckMark(c stats.CheckStats) string { return checkMark(c) }

// Micros formats d in microseconds as the diagnosis does ("2100us", at
// most two decimals).
func Micros(d time.Duration) string { return micros(d) }

// CPUCause names a diagnosis CPU class ("user_cpu", ...) in the words of
// the text ("your code", ...).
func CPUCause(class string) string { return classWords(class) }

// ProfileFacts are the text's lines about a server profile's capture and
// its saved files, as key and value.
func ProfileFacts(sp *stats.ServerProfile) [][2]string {
	var out [][2]string
	add := func(k, v string) { out = append(out, [2]string{k, v}) }
	profileFacts(sp, add)
	writeFiles(add, sp)
	return out
}

// ProfileTop is a pprof top as the text shows it: the command that made
// it (or why there is none), and one row per function of flat, flat pct,
// sum pct, cum, cum pct and the function's name (as recorded, not
// defused).
func ProfileTop(t *stats.ProfileTop) (cmd string, rows [][]string) {
	var sum int64
	for _, f := range t.Functions {
		sum += f.Flat
		rows = append(rows, []string{formatValue(f.Flat, t.Unit), pct(f.Flat, t.Total), pct(sum, t.Total),
			formatValue(f.Cum, t.Unit), pct(f.Cum, t.Total), f.Name})
	}
	return command(t.Command), rows
}

// DiagnosisLines are the "key: value" lines of the text's diagnosis
// section as key and value; none without a diagnosis.
func DiagnosisLines(r *stats.Result) [][2]string {
	var b bytes.Buffer
	writeDiagnosis(&b, r)
	var out [][2]string
	for _, l := range strings.Split(b.String(), "\n") {
		rest, ok := strings.CutPrefix(l, "  ")
		key, value, ok2 := strings.Cut(rest, ":")
		if ok && ok2 {
			out = append(out, [2]string{key, strings.TrimLeft(value, " ")})
		}
	}
	return out
}
