package diagnose

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
	"github.com/gb-bench/gb/stats"
	"golang.org/x/exp/trace"
)

// TraceLimits bound the analysis of an execution trace, so that a huge
// or hostile trace costs gb bounded memory and time. The zero value of
// each field means its default.
type TraceLimits struct {
	// MaxBytes is how much of the trace is read (it bounds the time:
	// about 0.75 s of CPU per 10 MiB on this project's
	// 2-core machine). Zero means 64 MiB.
	MaxBytes int64
	// MaxGeneration caps one generation of the trace (the runtime starts
	// a new one about every second): the parser holds a whole generation
	// before it yields its events, so this bounds its memory, at about
	// twice this many bytes. Zero means 32 MiB.
	MaxGeneration int64
	// MaxEvents is how many events are analysed. Zero means 10 000 000.
	MaxEvents int64
	// MaxGoroutines is how many goroutines are followed at once; the
	// goroutines beyond it count in the run queue and P counts but in no
	// wait. Zero means 262 144.
	MaxGoroutines int
}

func (l TraceLimits) maxBytes() int64  { return orDefault(l.MaxBytes, 64<<20) }
func (l TraceLimits) maxGen() int64    { return orDefault(l.MaxGeneration, 32<<20) }
func (l TraceLimits) maxEvents() int64 { return orDefault(l.MaxEvents, 10_000_000) }
func (l TraceLimits) maxGoroutines() int {
	return int(orDefault(int64(l.MaxGoroutines), 1<<18))
}

func orDefault(v, def int64) int64 {
	if v <= 0 {
		return def
	}
	return v
}

// Goroutine roles in the trace, from the stacks seen for a goroutine.
const (
	roleUnknown   uint8 = iota // no stack seen yet
	roleServing                // serves requests: net/http's connection or HTTP/2 handler goroutine
	roleRuntime                // the runtime's own (GC workers, sweeper...)
	roleOther                  // the server's other goroutines
	roleProfiling              // runtime/trace's reader, pprof's handlers: answering gb itself
	nRoles
)

// maxLooks is how many stacks of one goroutine are read to find its
// role before it is taken as the server's other goroutine.
const maxLooks = 3

// gState is what the analysis follows of one goroutine.
type gState struct {
	runnable trace.Time // when it last became runnable; 0 when not, or unknown
	running  trace.Time // when it last started running; 0 when not
	wait     int64      // runnable→running time, ns
	run      int64      // running time, ns
	role     uint8
	looks    uint8
}

// schedScan is the state of one streaming analysis.
type schedScan struct {
	lim     TraceLimits
	gs      map[trace.GoID]*gState
	dropped int64 // goroutines not followed (MaxGoroutines)
	waits   *hdrhistogram.Histogram

	first, last       trace.Time
	runnable          int // goroutines runnable now
	idle, busy        int // Ps idle and running now
	maxProcs          int
	pTime, busyTime   float64 // P·ns in existence, running
	idleRunnable      float64 // P·ns idle while a goroutine was runnable
	starved           float64 // ns in which every P ran and a goroutine waited
	roleWait, roleRun [nRoles]int64
	stwStart          trace.Time
	stwN              int64
	stwTotal, stwLong int64
	events            int64
	proc              map[trace.ProcID]trace.ProcState
}

// Scheduling reads an execution trace (runtime/trace, or pprof's
// /debug/pprof/trace) as a stream and measures the scheduler: how long
// runnable goroutines waited for a P, the stop-the-world pauses, and how
// the Ps spent their time. It reads at most lim's bytes and events; a
// trace cut short (by a cap, or truncated) gives what was read and says
// so in Scheduling.Truncated. It fails only when nothing could be read.
//
// Requests are not in the trace: Scheduling leaves RequestWait and
// Starving zero; Builder.Trace sets them from the load. The trace is
// untrusted: a panic of the parser on it is returned as an error.
func Scheduling(r io.Reader, lim TraceLimits) (_ *stats.DiagnosisScheduling, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("the trace parser failed: %s", oneLine(fmt.Errorf("%v", p)))
		}
	}()
	cr := &countReader{r: r, left: lim.maxBytes(), gen: lim.maxGen()}
	tr, err := trace.NewReader(cr)
	if err != nil {
		return nil, fmt.Errorf("cannot read the trace's header: %s", oneLine(err))
	}
	s := &schedScan{lim: lim, gs: map[trace.GoID]*gState{}, proc: map[trace.ProcID]trace.ProcState{},
		waits: hdrhistogram.New(1, int64(time.Hour), 2)}
	var stop string
	for {
		cr.since = 0
		ev, err := tr.ReadEvent()
		if err == io.EOF && !cr.capped {
			break
		}
		if err != nil {
			stop = s.cut(cr, err)
			break
		}
		if s.events >= lim.maxEvents() {
			stop = fmt.Sprintf("analysed the first %d events (gb's cap)", lim.maxEvents())
			break
		}
		s.events++
		s.event(ev)
	}
	if s.last == s.first { // at most a sync event: no time to analyse
		if stop != "" {
			return nil, errors.New("nothing to analyse: " + strings.TrimSuffix(stop, ": analysed what came before"))
		}
		return nil, errors.New("no events in the trace")
	}
	return s.result(stop), nil
}

// cut says why the stream ended early on err.
func (s *schedScan) cut(cr *countReader, err error) string {
	switch {
	case cr.bigGen:
		return fmt.Sprintf("a generation of the trace (about a second) is larger than gb's cap of %d MiB: analysed what came before", s.lim.maxGen()>>20)
	case cr.capped:
		return fmt.Sprintf("analysed the first %d MiB of the trace (gb's cap)", s.lim.maxBytes()>>20)
	}
	return fmt.Sprintf("the trace ends early (%v): analysed what came before", oneLine(err))
}

// event folds one event into the state.
func (s *schedScan) event(ev trace.Event) {
	t := ev.Time()
	s.advance(t)
	switch ev.Kind() {
	case trace.EventStateTransition:
		st := ev.StateTransition()
		switch st.Resource.Kind {
		case trace.ResourceGoroutine:
			s.goroutine(ev, st, t)
		case trace.ResourceProc:
			from, to := st.Proc()
			s.procMove(st.Resource.Proc(), from, to)
		}
	case trace.EventRangeBegin:
		if strings.HasPrefix(ev.Range().Name, "stop-the-world") {
			s.stwStart = t
		}
	case trace.EventRangeEnd:
		if s.stwStart != 0 && strings.HasPrefix(ev.Range().Name, "stop-the-world") {
			d := int64(t.Sub(s.stwStart))
			s.stwN++
			s.stwTotal += d
			s.stwLong = max(s.stwLong, d)
			s.stwStart = 0
		}
	}
}

// advance integrates the P and run-queue counts up to t.
func (s *schedScan) advance(t trace.Time) {
	if s.first == 0 {
		s.first, s.last = t, t
	}
	if t <= s.last {
		return
	}
	dt := float64(t - s.last)
	s.last = t
	s.pTime += dt * float64(s.idle+s.busy)
	s.busyTime += dt * float64(s.busy)
	if s.runnable > 0 {
		s.idleRunnable += dt * float64(min(s.idle, s.runnable))
		if s.idle == 0 && s.busy > 0 {
			s.starved += dt
		}
	}
}

// procMove follows a P's state.
func (s *schedScan) procMove(id trace.ProcID, from, to trace.ProcState) {
	if _, ok := s.proc[id]; !ok && len(s.proc) >= 1<<16 {
		return // a hostile trace's Ps; a real one has GOMAXPROCS
	}
	s.proc[id] = to
	s.count(from, -1)
	s.count(to, 1)
	s.maxProcs = max(s.maxProcs, s.idle+s.busy)
}

// count moves the idle and busy P counts by d for a P in state st.
func (s *schedScan) count(st trace.ProcState, d int) {
	switch st {
	case trace.ProcIdle:
		s.idle = max(s.idle+d, 0)
	case trace.ProcRunning:
		s.busy = max(s.busy+d, 0)
	}
}

// goroutine follows a goroutine's state transition at t.
func (s *schedScan) goroutine(ev trace.Event, st trace.StateTransition, t trace.Time) {
	from, to := st.Goroutine()
	if from == trace.GoRunnable {
		s.runnable = max(s.runnable-1, 0)
	}
	if to == trace.GoRunnable {
		s.runnable++
	}
	id := st.Resource.Goroutine()
	g := s.gs[id]
	if g == nil {
		if to == trace.GoNotExist {
			return
		}
		if len(s.gs) >= s.lim.maxGoroutines() {
			s.dropped++
			return
		}
		g = &gState{}
		s.gs[id] = g
	}
	if g.role == roleUnknown && g.looks < maxLooks {
		s.look(g, ev, st, id)
	}
	switch {
	case from == trace.GoRunnable && to == trace.GoRunning && g.runnable != 0:
		d := int64(t.Sub(g.runnable))
		s.waits.RecordValue(max(d, 1))
		g.wait += d
	case from == trace.GoRunning && g.running != 0:
		g.run += int64(t.Sub(g.running))
	}
	g.runnable, g.running = 0, 0
	switch to {
	case trace.GoRunnable:
		if from != trace.GoUndetermined { // else it waited since before the trace
			g.runnable = t
		}
	case trace.GoRunning:
		g.running = t
	case trace.GoNotExist:
		s.finish(g)
		delete(s.gs, id)
	}
}

// look reads the stack of the transition for g's role: the new
// goroutine's start function at its creation, else the goroutine's own
// stack when the event is its own.
func (s *schedScan) look(g *gState, ev trace.Event, st trace.StateTransition, id trace.GoID) {
	stk := st.Stack
	if stk == trace.NoStack && ev.Goroutine() == id {
		stk = ev.Stack()
	}
	if stk == trace.NoStack {
		return
	}
	g.looks++
	g.role = role(stk)
	if g.role == roleUnknown && g.looks >= maxLooks {
		g.role = roleOther
	}
}

// role classifies a goroutine by one of its stacks (innermost first):
// profiling when runtime/trace, runtime/pprof, net/http/pprof or the
// runtime's tracer is on it (the server answering gb's own profile
// requests); serving when
// net/http or golang.org/x/net/http2 is (connection and handler
// goroutines, their background reads, the accept loop); runtime when its
// outermost function (below runtime.goexit) is the runtime's; else
// other. roleUnknown when the stack has no frames.
func role(stk trace.Stack) uint8 {
	outer, serving := "", false
	for f := range stk.Frames() {
		if profilingFunc(f.Func) {
			return roleProfiling
		}
		if strings.HasPrefix(f.Func, "net/http.") || strings.HasPrefix(f.Func, "golang.org/x/net/http2.") {
			serving = true
		}
		if f.Func != "runtime.goexit" {
			outer = f.Func
		}
	}
	switch {
	case serving:
		return roleServing
	case outer == "":
		return roleUnknown
	case strings.HasPrefix(outer, "runtime."):
		return roleRuntime
	}
	return roleOther
}

// profilingFunc reports whether fn is part of answering a profile or trace
// request: runtime/trace, runtime/pprof, net/http/pprof, or the
// runtime's tracer (its generation advancer, its CPU sample reader).
func profilingFunc(fn string) bool {
	for _, p := range []string{"runtime/trace.", "runtime/pprof.", "net/http/pprof.", "runtime.trace", "runtime.(*trace"} {
		if strings.HasPrefix(fn, p) {
			return true
		}
	}
	return false
}

// finish adds a goroutine's totals to its role's. A span still open at
// the trace's end does not count: the goroutine that stops the trace
// shows as running from its last start until the trace ends, however
// long stopping takes.
func (s *schedScan) finish(g *gState) {
	r := g.role
	if r == roleUnknown {
		r = roleOther
	}
	s.roleWait[r] += g.wait
	s.roleRun[r] += g.run
}

// result is the analysis of the events read; stop says why it stopped
// early ("" at the trace's end).
func (s *schedScan) result(stop string) *stats.DiagnosisScheduling {
	for _, g := range s.gs {
		s.finish(g)
	}
	out := &stats.DiagnosisScheduling{
		Traced: time.Duration(s.last - s.first), Procs: s.maxProcs, Events: s.events,
		Waits:   s.waits.TotalCount(),
		WaitP50: time.Duration(s.waits.ValueAtQuantile(50)), WaitP99: time.Duration(s.waits.ValueAtQuantile(99)),
		WaitMax: time.Duration(s.waits.Max()),
		STW:     s.stwN, STWTotal: time.Duration(s.stwTotal), STWMax: time.Duration(s.stwLong),
		ServingWait: time.Duration(s.roleWait[roleServing]),
		Truncated:   stop,
	}
	if s.dropped > 0 {
		out.Truncated = strings.TrimPrefix(out.Truncated+fmt.Sprintf("; %d goroutines beyond gb's cap of %d were not followed",
			s.dropped, s.lim.maxGoroutines()), "; ")
	}
	if s.pTime > 0 {
		out.Busy = s.busyTime / s.pTime
		out.IdleWhileRunnable = s.idleRunnable / s.pTime
	}
	if out.Traced > 0 {
		out.Starved = s.starved / float64(out.Traced)
	}
	if run := s.roleRun[roleServing] + s.roleRun[roleRuntime] + s.roleRun[roleOther] + s.roleRun[roleProfiling]; run > 0 {
		out.ServingShare = float64(s.roleRun[roleServing]) / float64(run)
		out.OtherShare = float64(s.roleRun[roleOther]) / float64(run)
	}
	return out
}

// countReader reads at most left bytes of r, and at most gen bytes
// between two resets of since (the reads of one ReadEvent: at most a
// generation), and notes which cap stopped it.
type countReader struct {
	r              io.Reader
	left, gen      int64
	since          int64 // bytes read since the caller last reset it
	capped, bigGen bool
}

// errCapped ends the stream at a cap (not io.EOF: the parser would take
// that for the trace's end).
var errCapped = errors.New("stopped at gb's cap")

func (c *countReader) Read(p []byte) (int, error) {
	if c.left <= 0 || c.since >= c.gen {
		c.capped, c.bigGen = true, c.since >= c.gen
		return 0, errCapped
	}
	p = p[:min(int64(len(p)), c.left, c.gen-c.since)]
	n, err := c.r.Read(p)
	c.left -= int64(n)
	c.since += int64(n)
	return n, err
}

// oneLine keeps the first line of err's text, at most 120 bytes.
func oneLine(err error) string {
	s, _, _ := strings.Cut(err.Error(), "\n")
	if len(s) > 120 {
		s = s[:120] + "..."
	}
	return s
}
