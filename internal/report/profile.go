package report

import (
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/gb-bench/gb/stats"
)

// writeProfile writes the server profile section (--profile) after gb's
// section: an empty line, "gb server profile:", aligned "key: value" lines
// like gb's, and the tops of `go tool pprof -top` as tables indented by
// four spaces, with percentages in "pct" columns (never a percent sign).
// Every string from the Result is defused: function names come from the
// server. Nothing is written without a profile.
func writeProfile(w io.Writer, r *stats.Result) {
	sp := r.Profile
	if sp == nil {
		return
	}
	line := func(key, value string) { fmt.Fprintf(w, "  %-22s%s\n", key+":", defuse(value)) }
	fmt.Fprint(w, "\ngb server profile:\n")
	profileFacts(sp, line)
	writeFiles(line, sp)
	if c := sp.CPU; c != nil {
		line("cpu by flat", command(c.Top.Command))
		writeTop(w, &c.Top)
		line("cpu by cum", command(c.TopCum.Command))
		writeTop(w, &c.TopCum)
		writeOwn(w, line, &c.Own)
	}
	if a := sp.Allocs; a != nil {
		line("alloc by flat", command(a.Command))
		writeTop(w, a)
	}
}

// profileFacts calls line with each key and value of a profile's
// summary: the pprof URL and kinds, the CPU cores used, the runtime's
// counters, the cost per request and the notes.
func profileFacts(sp *stats.ServerProfile, line func(key, value string)) {
	line("pprof", fmt.Sprintf("%s (%s)", sp.URL, strings.Join(sp.Kinds, ",")))
	if c := sp.CPU; c != nil {
		line("cpu", fmt.Sprintf("%.2f cores; %d windows profiled %.3fs of the %.3fs load",
			c.Cores, c.Windows, c.Covered.Seconds(), c.Load.Seconds()))
	}
	if rt := sp.Runtime; rt != nil {
		line("runtime", fmt.Sprintf("gc=%d pause=%.3fms allocated=%dB objects=%d heap=%dB",
			rt.GCCycles, float64(rt.GCPause)/float64(time.Millisecond), rt.AllocBytes, rt.AllocObjects, rt.HeapAlloc))
	}
	if v := perRequest(sp); v != "" {
		line("per request", v)
	}
	for _, n := range sp.Notes {
		line("note", n)
	}
}

// perRequest is the server's cost per response: allocated bytes and
// objects (and GC cycles) exact from memstats, else estimated from the
// sampled allocs profile, then CPU time from the CPU profile (scaled from
// the part of the load the windows covered); "" without requests or any
// of them.
func perRequest(sp *stats.ServerProfile) string {
	if sp.Requests <= 0 {
		return ""
	}
	n := float64(sp.Requests)
	var parts, sources []string
	if b, o, est, ok := sp.AllocPerRequest(); ok && !est {
		parts = append(parts, fmt.Sprintf("allocated=%.0fB objects=%.1f gc=%.4f", b, o, float64(sp.Runtime.GCCycles)/n))
		sources = append(sources, "allocations from memstats")
	} else if ok {
		parts = append(parts, fmt.Sprintf("allocated=%.0fB objects=%.1f", b, o))
		sources = append(sources, "allocations estimated from the allocs profile")
	}
	if c := sp.CPU; c != nil && c.Covered > 0 {
		cpu := float64(c.Top.Total) * float64(c.Load) / float64(c.Covered) / n // ns
		parts = append(parts, fmt.Sprintf("cpu=%.3fms", cpu/1e6))
		sources = append(sources, "cpu from the CPU profile")
	}
	if len(parts) == 0 {
		return ""
	}
	return fmt.Sprintf("%s (%s, over %d responses)", strings.Join(parts, " "), strings.Join(sources, ", "), sp.Requests)
}

// writeOwn writes the "your code" view of the CPU profile (ServerCPU.Own)
// as a table like writeTop's, the library calls of the target's code
// marked "(called by your code)".
func writeOwn(w io.Writer, line func(key, value string), t *stats.ProfileTop) {
	if len(t.Functions) == 0 {
		line("cpu in your code", "none: every sampled function is in the Go standard library or runtime")
		return
	}
	line("cpu in your code", "by cum: functions outside the standard library and runtime, and the library calls they make")
	writeTop(w, t)
}

// writeFiles lists the folder and files saved, and the command that opens
// each.
func writeFiles(line func(key, value string), sp *stats.ServerProfile) {
	if len(sp.Files) == 0 {
		return
	}
	var names []string
	for _, f := range sp.Files {
		names = append(names, filepath.Base(f.Path))
	}
	line("saved", fmt.Sprintf("%s (%s)", sp.Dir, strings.Join(names, " ")))
	for _, f := range sp.Files {
		line("open "+f.Kind, f.Open)
	}
}

// command is a top's pprof command, or why there is none.
func command(c string) string {
	if c == "" {
		return "(the profile could not be saved)"
	}
	return c
}

// writeTop writes a top as `go tool pprof -top` does, percent signs
// spelled out as "pct" columns.
func writeTop(w io.Writer, t *stats.ProfileTop) {
	fmt.Fprintf(w, "    %10s %9s %9s %10s %9s  %s\n", "flat", "flat pct", "sum pct", "cum", "cum pct", "function")
	var sum int64
	for _, f := range t.Functions {
		sum += f.Flat
		name := defuse(f.Name)
		if f.Callee {
			name += " (called by your code)"
		}
		fmt.Fprintf(w, "    %10s %9s %9s %10s %9s  %s\n", formatValue(f.Flat, t.Unit), pct(f.Flat, t.Total),
			pct(sum, t.Total), formatValue(f.Cum, t.Unit), pct(f.Cum, t.Total), name)
	}
	if len(t.Functions) == 0 {
		fmt.Fprint(w, "    (no samples)\n")
	}
}

// pct is v as a percentage of total with two decimals, without the sign.
func pct(v, total int64) string {
	if total == 0 {
		return "0.00"
	}
	return strconv.FormatFloat(math.Abs(float64(v))*100/float64(total), 'f', 2, 64)
}

// valueUnits are the scales of formatValue, largest first, per pprof unit.
var valueUnits = map[string][]struct {
	name   string
	factor float64
}{
	"nanoseconds": {{"s", 1e9}, {"ms", 1e6}, {"us", 1e3}, {"ns", 1}},
	"bytes":       {{"TB", 1 << 40}, {"GB", 1 << 30}, {"MB", 1 << 20}, {"kB", 1 << 10}, {"B", 1}},
}

// formatValue writes v in the largest unit in which it is at least 1,
// with at most two decimals, as pprof labels values ("150ms", "1.35s",
// "1.44GB"); "0" for zero, and plain numbers for units gb does not scale.
func formatValue(v int64, unit string) string {
	scales, ok := valueUnits[unit]
	if v == 0 || !ok {
		return strconv.FormatInt(v, 10)
	}
	a := math.Abs(float64(v))
	s := scales[len(scales)-1]
	for _, u := range scales {
		if a >= u.factor {
			s = u
			break
		}
	}
	num := strconv.FormatFloat(float64(v)/s.factor, 'f', 2, 64)
	num = strings.TrimSuffix(strings.TrimRight(num, "0"), ".")
	return num + s.name
}
