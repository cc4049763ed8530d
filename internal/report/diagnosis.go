package report

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/gb-bench/gb/stats"
)

// writeDiagnosis writes the diagnosis section (--profile) after the
// server profile: an empty line, "gb diagnosis:", the verdict, then
// aligned "key: value" lines like gb's: the CPU split per request, the
// GC facts, the waits, the goroutine counts, and what is missing. Shares
// are "pct" numbers (never a percent sign) and every string is defused:
// function names come from the server. Nothing is written without one.
func writeDiagnosis(w io.Writer, r *stats.Result) {
	if r.Profile == nil || r.Profile.Diagnosis == nil {
		return
	}
	d := r.Profile.Diagnosis
	line := func(key, value string) { fmt.Fprintf(w, "  %-22s%s\n", key+":", defuse(value)) }
	fmt.Fprint(w, "\ngb diagnosis:\n")
	line("bound by", d.Verdict)
	if c := d.CPU; c != nil {
		line("cpu per request", micros(c.PerRequest))
		for _, cl := range c.Classes {
			v := fmt.Sprintf("%s per request, %s pct", micros(cl.PerRequest), share(cl.Share))
			if cl.Top != "" {
				v += ", most in " + cl.Top
			}
			line("cpu "+classWords(cl.Class), v)
		}
	}
	writeGC(line, d.GC)
	for _, wt := range d.Contention {
		line("wait "+wt.Kind, fmt.Sprintf("%s per request in %s (%d events)", micros(wt.PerRequest), wt.Site, wt.Events))
	}
	if g := d.Goroutines; g != nil {
		line("goroutines", fmt.Sprintf("before=%s during=%s after=%s", count(g.Before), count(g.During), count(g.After)))
		for _, gr := range g.Grew {
			line("goroutines grew", fmt.Sprintf("+%d in %s", gr.Added, gr.Stack))
		}
	}
	writeScheduling(line, d.Scheduling)
	for _, m := range d.Missing {
		line("missing", m)
	}
}

// writeGC writes the allocation and GC facts.
func writeGC(line func(key, value string), g *stats.DiagnosisGC) {
	if g == nil {
		return
	}
	v := fmt.Sprintf("allocated=%.0fB objects=%.1f per request", g.BytesPerRequest, g.ObjectsPerRequest)
	if g.CyclesPer1000 >= 0 {
		v += fmt.Sprintf(", %.2f cycles per 1000 requests", g.CyclesPer1000)
	}
	if g.MaxPause > 0 {
		v += ", longest pause " + micros(g.MaxPause)
	}
	if g.CPUShare >= 0 {
		v += fmt.Sprintf(", gc and allocation %s pct of the cpu", share(g.CPUShare))
	}
	line("gc", v+" (from "+g.Source+")")
	for _, s := range g.Sites {
		line("alloc site", fmt.Sprintf("%.0fB per request (%s pct) in %s", s.BytesPerRequest, share(s.Share), s.Function))
	}
}

// writeScheduling writes what the execution trace showed of the
// scheduler: the waits for a P, the Ps' time, the stop-the-world pauses.
func writeScheduling(line func(key, value string), s *stats.DiagnosisScheduling) {
	if s == nil {
		return
	}
	v := fmt.Sprintf("p50=%s p99=%s max=%s over %d waits for a P", micros(s.WaitP50), micros(s.WaitP99), micros(s.WaitMax), s.Waits)
	if s.RequestWait >= 0 {
		v = fmt.Sprintf("requests waited %s per request for a P (%s of it the server's other goroutines' share), %s",
			micros(s.RequestWait), micros(max(s.Starving, 0)), v)
	}
	line("sched wait", v)
	line("sched ps", fmt.Sprintf("%d Ps busy %s pct, all busy while goroutines waited %s pct, idle while goroutines were runnable %s pct; "+
		"goroutines ran serving requests %s pct, other %s pct (%s traced)",
		s.Procs, share(s.Busy), share(s.Starved), share(s.IdleWhileRunnable), share(s.ServingShare), share(s.OtherShare),
		s.Traced.Round(time.Millisecond)))
	line("stop the world", fmt.Sprintf("%d pauses, %s in all, longest %s", s.STW, micros(s.STWTotal), micros(s.STWMax)))
}

// micros is d in microseconds with at most two decimals ("12.5us").
func micros(d time.Duration) string {
	v := strconv.FormatFloat(float64(d)/1e3, 'f', 2, 64)
	return strings.TrimSuffix(strings.TrimRight(v, "0"), ".") + "us"
}

// share is a 0..1 share as a percentage with one decimal, no sign.
func share(f float64) string { return strconv.FormatFloat(f*100, 'f', 1, 64) }

// count is a goroutine count, "?" when it was not measured.
func count(n int64) string {
	if n < 0 {
		return "?"
	}
	return strconv.FormatInt(n, 10)
}

// classWords names a CPU class in a key (keys are lowercase words).
func classWords(class string) string {
	switch class {
	case "user_cpu":
		return "your code"
	case "http_stack":
		return "http stack"
	case "alloc":
		return "allocation"
	case "profiling":
		return "profile requests"
	}
	return strings.Map(func(r rune) rune {
		if r < 'a' || r > 'z' {
			return ' '
		}
		return r
	}, class)
}
