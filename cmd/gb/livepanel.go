package main

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/gb-bench/gb"
	"github.com/gb-bench/gb/stats"
)

// busyShare is the share of gb's cores above which gb itself may be the
// limit (the report's self-bottleneck warning uses the same).
const busyShare = 0.9

// liveLimits is what a run was asked for: the panel's denominators.
type liveLimits struct {
	Requests int64         // request budget; 0 = none (time-bound)
	Duration time.Duration // time limit; 0 = none
	Rate     float64       // target requests per second; 0 = closed loop
	Cores    int           // the cores gb's load may use (gb.Plan.Cores): gb's CPU is read against them
}

// liveSnap is one redraw's input: the engine's progress plus what the
// panel derives from the previous ones.
type liveSnap struct {
	gb.Progress
	RecentRate float64   // req/s over about the last second
	History    []float64 // req/s per whole second so far, oldest first
	CPU        float64   // gb's CPU over about the last second, in cores (CPU seconds per second), as the report's client line
}

// panel renders a liveSnap; its zero width means 80 columns.
type panel struct {
	limits liveLimits
	snap   liveSnap
	width  int
}

// widthOr80 is the panel's width, 80 when unknown.
func (p panel) widthOr80() int {
	if p.width <= 0 {
		return defaultWidth
	}
	return p.width
}

// View is the panel's text as the screen shows it, without styles.
func (p panel) View() string { return joinLines(p.lines()) }

// joinLines is ls's text without styles, one line each.
func joinLines(ls []styledLine) string {
	s := make([]string, len(ls))
	for i, l := range ls {
		s[i] = l.String()
	}
	return strings.Join(s, "\n")
}

// lines are the panel's lines, none wider than its width.
func (p panel) lines() []styledLine {
	w := p.widthOr80()
	lines := []styledLine{p.timeLine(w), p.rateLine(w), p.latencyLine(), p.outcomeLine(), p.connLine()}
	if p.limits.Rate > 0 {
		lines = append(lines, p.scheduleLine())
	}
	lines = append(lines, p.cpuLine())
	if p.snap.Server.Known {
		lines = append(lines, p.serverLine())
	}
	for i, l := range lines {
		lines[i] = l.cut(w)
	}
	return lines
}

// timeLine is elapsed against the limit, a bar and the ETA.
func (p panel) timeLine(w int) styledLine {
	s := p.snap
	frac, eta := -1.0, time.Duration(-1)
	switch {
	case p.limits.Duration > 0 && (p.limits.Requests == 0 || p.timeFirst()):
		frac = s.Elapsed.Seconds() / p.limits.Duration.Seconds()
		eta = p.limits.Duration - s.Elapsed
	case p.limits.Requests > 0:
		frac = float64(s.Done) / float64(p.limits.Requests)
		if s.Done > 0 {
			eta = time.Duration(float64(s.Elapsed) / frac * (1 - frac))
		}
	}
	head := " " + round(s.Elapsed)
	if p.limits.Duration > 0 {
		head += " / " + round(p.limits.Duration)
	}
	if p.limits.Requests > 0 {
		head += fmt.Sprintf("  %d/%d req", s.Done, p.limits.Requests)
	} else {
		head += fmt.Sprintf("  %d req", s.Done)
	}
	line := styledLine{bold("elapsed"), text(head)}
	if frac < 0 {
		return line
	}
	frac = min(max(frac, 0), 1)
	tail := fmt.Sprintf(" %3.0f%%", frac*100)
	if eta >= 0 {
		tail += "  ETA " + round(max(eta, 0))
	}
	n := min(w-line.width()-styledLine{text(tail)}.width()-3, 30)
	if n < 5 {
		return append(line, text(tail))
	}
	k := int(frac * float64(n))
	return append(line, text("  ["+strings.Repeat("█", k)+strings.Repeat("░", n-k)+"]"+tail))
}

// timeFirst reports whether the time limit will end the run before the
// request budget, at the rate so far.
func (p panel) timeFirst() bool {
	s := p.snap
	if s.Done == 0 || s.Elapsed <= 0 {
		return true
	}
	left := float64(p.limits.Requests-s.Done) / (float64(s.Done) / s.Elapsed.Seconds())
	return s.Elapsed.Seconds()+left > p.limits.Duration.Seconds()
}

// rateLine is the last second's req/s, the run's average and a sparkline
// of the per-second history, as much of it as fits.
func (p panel) rateLine(w int) styledLine {
	s := p.snap
	avg := 0.0
	if s.Elapsed > 0 {
		avg = float64(s.Done) / s.Elapsed.Seconds()
	}
	head := styledLine{bold("req/s"), textf(" %.0f  (avg %.0f)", s.RecentRate, avg)}
	room := w - head.width() - 2
	if room < 4 || len(s.History) == 0 {
		return head
	}
	return append(head, text("  "+sparkline(s.History[max(len(s.History)-room, 0):])))
}

// sparkline draws vs as block characters scaled to their maximum.
func sparkline(vs []float64) string {
	const ticks = "▁▂▃▄▅▆▇█"
	blocks := []rune(ticks)
	top := slices.Max(vs)
	var b strings.Builder
	for _, v := range vs {
		i := 0
		if top > 0 {
			i = min(int(v/top*float64(len(blocks)-1)+0.5), len(blocks)-1)
		}
		b.WriteRune(blocks[i])
	}
	return b.String()
}

// latencyLine is p50 and p99 of a recently closed interval.
func (p panel) latencyLine() styledLine {
	s := p.snap
	if s.P99 <= 0 {
		return styledLine{bold("latency"), text(" p50 -  p99 -  (after the first intervals)")}
	}
	return styledLine{bold("latency"), textf(" p50 %s  p99 %s  (a closed interval)", latency(s.P50), latency(s.P99))}
}

// latency is d in µs, ms or s, three digits or so.
func latency(d time.Duration) string {
	switch {
	case d < time.Millisecond:
		return fmt.Sprintf("%dµs", d.Microseconds())
	case d < time.Second:
		return fmt.Sprintf("%.1fms", float64(d)/float64(time.Millisecond))
	}
	return fmt.Sprintf("%.2fs", d.Seconds())
}

// outcomeLine counts the outcomes: ok, non-2xx, failed with its two
// largest classes, retries.
func (p panel) outcomeLine() styledLine {
	s := p.snap
	l := styledLine{bold("ok"), textf(" %d  non-2xx %d  ", s.OK, s.Non2xx)}
	if s.Failed > 0 {
		l = append(l, warn(fmt.Sprintf("failed %d", s.Failed)), text(topFailures(&s.Outcomes)))
	} else {
		l = append(l, textf("failed %d", s.Failed))
	}
	return append(l, textf("  retries %d", s.Retries))
}

// topFailures is " (class n, class n)" for the two most frequent failure
// classes.
func topFailures(o *stats.Outcomes) string {
	var classes []stats.Outcome
	for i, n := range o {
		if stats.Outcome(i).Failed() && n > 0 {
			classes = append(classes, stats.Outcome(i))
		}
	}
	slices.SortStableFunc(classes, func(a, b stats.Outcome) int { return int(o[b] - o[a]) })
	var parts []string
	for _, c := range classes[:min(len(classes), 2)] {
		parts = append(parts, fmt.Sprintf("%s %d", strings.TrimPrefix(c.String(), "failed."), o[c]))
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

// connLine is the connections open.
func (p panel) connLine() styledLine {
	return styledLine{bold("connections"), textf(" %d open", p.snap.ConnsOpen)}
}

// scheduleLine is rate mode's target against achieved, and the late.
func (p panel) scheduleLine() styledLine {
	s := p.snap
	return styledLine{bold("rate"), textf(" target %.0f/s  achieved %.0f/s  late %d  dropped %d",
		p.limits.Rate, s.RecentRate, s.Late, s.Outcomes[stats.Dropped])}
}

// cpuLine is gb's own CPU in cores, in the report's unit ("cpu=0.95
// cores (of 1)"), with the self-bottleneck warning.
func (p panel) cpuLine() styledLine {
	l := styledLine{bold("gb cpu"), textf(" %.2f cores (of %d)", p.snap.CPU, p.limits.Cores)}
	if p.limits.Cores > 0 && p.snap.CPU >= busyShare*float64(p.limits.Cores) {
		l = append(l, text("  "), warn("gb itself may be the bottleneck"))
	}
	return l
}

// serverLine is the server's busy cores and GC cycles during --profile:
// "-" for what its capture cannot read (no cpu kind, no /debug/vars).
func (p panel) serverLine() styledLine {
	s := p.snap.Server
	cpu, gc := "-", "-"
	if s.CPU > 0 {
		cpu = fmt.Sprintf("%.2f", s.CPU)
	}
	if s.GC > 0 || s.GCRecent > 0 {
		gc = fmt.Sprintf("%d (+%d)", s.GC, s.GCRecent)
	}
	return styledLine{bold("server:"), textf(" cpu %s cores, gc %s", cpu, gc)}
}

// round is d to a tenth of a second, as "3.2s".
func round(d time.Duration) string {
	return fmt.Sprintf("%.1fs", d.Seconds())
}
