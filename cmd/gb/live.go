package main

import (
	"io"
	"runtime"
	"strings"
	"sync/atomic"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"github.com/gb-bench/gb"
	"github.com/gb-bench/gb/internal/rusage"
)

// live draws the panel on a terminal while the load runs. The bubbletea
// program reads no input and installs no signal handler: Ctrl-C stays
// gb's (runSignalled). It draws on the terminal's alternate screen, so
// leaving it removes the panel whole, whatever the terminal echoed (^C)
// meanwhile, and the screen shows the banner and then the report.
type live struct {
	prog  *tea.Program
	ended chan struct{} // closed when the program has returned
	track tracker
}

// newLive starts the panel on w (a terminal) for a run with limits.
func newLive(w io.Writer, limits liveLimits) *live {
	l := &live{ended: make(chan struct{})}
	l.prog = tea.NewProgram(liveModel{panel: panel{limits: limits}},
		tea.WithOutput(w), tea.WithInput(nil), tea.WithoutSignalHandler(), tea.WithoutCatchPanics(), tea.WithAltScreen())
	go func() {
		defer close(l.ended)
		_, _ = l.prog.Run()
	}()
	return l
}

// update gives the panel the run's latest progress; from one goroutine.
func (l *live) update(p gb.Progress) {
	l.prog.Send(l.track.add(p, cpuTime()))
}

// stop removes the panel and waits until the terminal is left clean.
func (l *live) stop() {
	l.prog.Send(liveEnd{})
	<-l.ended
}

// setLimits gives the panel a new run's limits (gb ramp's next step).
func (l *live) setLimits(lim liveLimits) { l.prog.Send(lim) }

// setAbove sets the lines drawn above the panel (gb ramp's steps so far).
func (l *live) setAbove(s liveAbove) { l.prog.Send(s) }

// liveEnd ends the program, blanking the panel.
type liveEnd struct{}

// liveAbove is text drawn above the panel, each line cut to its width.
type liveAbove string

// liveModel is the bubbletea model: the panel, the lines above it and
// whether it has ended.
type liveModel struct {
	panel panel
	above liveAbove
	ended bool
}

func (m liveModel) Init() tea.Cmd { return nil }

func (m liveModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case liveSnap:
		m.panel.snap = msg
	case liveLimits:
		m.panel.limits = msg
	case liveAbove:
		m.above = msg
	case tea.WindowSizeMsg:
		m.panel.width = msg.Width
	case liveEnd:
		m.ended = true
		return m, tea.Quit
	}
	return m, nil
}

func (m liveModel) View() string {
	if m.ended {
		return ""
	}
	if m.above == "" {
		return m.panel.View()
	}
	w := m.panel.width
	if w <= 0 {
		w = 80
	}
	fit := lipgloss.NewStyle().MaxWidth(w)
	var b strings.Builder
	for _, l := range strings.Split(strings.TrimSuffix(string(m.above), "\n"), "\n") {
		b.WriteString(fit.Render(l) + "\n")
	}
	return b.String() + m.panel.View()
}

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
