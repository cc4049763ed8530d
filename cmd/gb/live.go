package main

import (
	"io"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gb-bench/gb"
	"github.com/gb-bench/gb/internal/rusage"
)

// live draws the panel on a terminal while the load runs (livescreen.go:
// the alternate screen, so leaving it removes the panel whole, whatever
// the terminal echoed meanwhile, and the screen shows the banner and then
// the report).
type live struct {
	scr   *screen
	mu    sync.Mutex // guards model: the screen's goroutine reads it
	model liveModel
	track tracker // from the progress callback's goroutine only
}

// shown is the screen drawn now, if any: gb's exit on a second Ctrl-C
// leaves it (atExit) so that the shell gets its screen and cursor back.
var shown atomic.Pointer[screen]

func init() {
	atExit = append(atExit, func() {
		if s := shown.Load(); s != nil {
			s.leave()
		}
	})
}

// newLive starts the panel on w (a terminal) for a run with limits.
func newLive(w io.Writer, limits liveLimits) *live {
	l := &live{model: liveModel{panel: panel{limits: limits}}}
	l.scr = newScreen(w, l.lines)
	shown.Store(l.scr)
	return l
}

// lines is the frame at width cells: the screen's draw function.
func (l *live) lines(width int) []styledLine {
	l.mu.Lock()
	m := l.model
	l.mu.Unlock()
	m.panel.width = width
	return m.lines()
}

// set changes the model with f and asks for a frame.
func (l *live) set(f func(m *liveModel)) {
	l.mu.Lock()
	f(&l.model)
	l.mu.Unlock()
	l.scr.changed()
}

// update gives the panel the run's latest progress; from one goroutine.
func (l *live) update(p gb.Progress) {
	s := l.track.add(p, cpuTime())
	l.set(func(m *liveModel) { m.panel.snap = s })
}

// stop removes the panel and waits until the terminal is left clean.
func (l *live) stop() {
	l.scr.stop()
	shown.CompareAndSwap(l.scr, nil)
}

// setLimits gives the panel a new run's limits (gb ramp's next step).
func (l *live) setLimits(lim liveLimits) { l.set(func(m *liveModel) { m.panel.limits = lim }) }

// setAbove sets the lines drawn above the panel (gb ramp's steps so far).
func (l *live) setAbove(s liveAbove) { l.set(func(m *liveModel) { m.above = s }) }

// liveAbove is text drawn above the panel, each line cut to its width.
type liveAbove string

// liveModel is what the screen draws: the panel and the lines above it.
type liveModel struct {
	panel panel
	above liveAbove
}

// lines are the model's lines, none wider than the panel's width.
func (m liveModel) lines() []styledLine {
	var out []styledLine
	if m.above != "" {
		w := m.panel.widthOr80()
		for _, l := range strings.Split(strings.TrimSuffix(string(m.above), "\n"), "\n") {
			out = append(out, styledLine{text(l)}.cut(w))
		}
	}
	return append(out, m.panel.lines()...)
}

// View is the model's text as the screen shows it, without styles.
func (m liveModel) View() string { return joinLines(m.lines()) }

// sample is one progress reading, kept for about a second.
type sample struct {
	at   time.Duration // elapsed
	done int64
	cpu  time.Duration // gb's CPU time, user+system
}

// tracker turns cumulative progress into the last second's rates and the
// per-second history.
type tracker struct {
	recent  []sample  // the readings of about the last second, oldest first
	history []float64 // req/s per whole second
	mark    sample    // the reading at the last whole second
}

// add folds in a reading and returns the panel's snapshot.
func (t *tracker) add(p gb.Progress, cpu time.Duration) liveSnap {
	now := sample{at: p.Elapsed, done: p.Done, cpu: cpu}
	if n := len(t.recent); n > 0 && now.at < t.recent[n-1].at {
		*t = tracker{} // the next run of --repeat
	}
	if len(t.recent) == 0 {
		t.mark = sample{cpu: cpu}
	}
	t.recent = append(t.recent, now)
	for len(t.recent) > 2 && now.at-t.recent[1].at >= time.Second {
		t.recent = t.recent[1:]
	}
	if next := time.Duration(len(t.history)+1) * time.Second; now.at >= next {
		rate := float64(now.done-t.mark.done) / max((now.at-t.mark.at).Seconds(), 1e-9)
		for ; now.at >= next; next += time.Second { // a late tick fills every second it spans
			t.history = append(t.history, rate)
		}
		t.mark = now
	}
	s := liveSnap{Progress: p, History: t.history}
	if old := t.recent[0]; now.at > old.at {
		dt := now.at - old.at
		s.RecentRate = float64(now.done-old.done) / dt.Seconds()
		s.CPU = float64(now.cpu-old.cpu) / float64(dt) // cores, as the report's client line
	}
	return s
}

// planCores is the cores of the Plan that runs (gb.Plan.Cores), set by
// useCores; 0 before one runs.
var planCores atomic.Int64

// useCores gives gb the Plan's GOMAXPROCS and notes its cores, against
// which the live panel reads gb's CPU, as the report does.
func useCores(p *gb.Plan) {
	runtime.GOMAXPROCS(p.Procs())
	planCores.Store(int64(p.Cores()))
}

// cores is how many cores gb's load may use (gb.Plan.Cores, the report's
// "(of N)"); GOMAXPROCS before a Plan runs.
func cores() int {
	if n := planCores.Load(); n > 0 {
		return int(n)
	}
	return runtime.GOMAXPROCS(0)
}

// cpuTime is gb's CPU time so far, user+system; 0 if unknown.
func cpuTime() time.Duration {
	cpu, _ := rusage.Self()
	return cpu
}
