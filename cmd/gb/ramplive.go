package main

import (
	"bytes"
	"io"
	"sync"
	"sync/atomic"

	"github.com/gb-bench/gb"
	"github.com/gb-bench/gb/internal/ramp"
	"github.com/gb-bench/gb/internal/report"
	"github.com/gb-bench/gb/stats"
)

// rampLive is gb ramp's live panel: the running step's panel under the
// table of the steps done so far.
type rampLive struct {
	live    *live
	spec    *ramp.Spec
	table   bytes.Buffer // RampHeader and the finished steps' lines; from the ramp's goroutine
	carried atomic.Int64 // connections the running step took over from the steps before it
}

// stepStart notes the connections the step about to run takes over:
// those the plan holds (kept open by the steps before).
func (rl *rampLive) stepStart(p ramp.Runner) { rl.carried.Store(int64(p.Held())) }

// total is p with the connections open counted over the whole ramp: the
// step's own (opened minus closed) plus the ones it took over.
func (rl *rampLive) total(p gb.Progress) gb.Progress {
	p.ConnsOpen += rl.carried.Load()
	return p
}

// update shows the running step's progress p.
func (rl *rampLive) update(p gb.Progress) { rl.live.update(rl.total(p)) }

// stepColumn is the width of the step number column and its gap in
// report.RampStep's lines: the panel leaves it out (the rows are in step
// order) so that p99 fits in 80 columns.
const stepColumn = 6

// addRow appends a line of gb ramp's step table, without its step column.
func (rl *rampLive) addRow(write func(io.Writer) error) {
	var b bytes.Buffer
	_ = write(&b)
	line := b.Bytes()
	rl.table.Write(line[min(stepColumn, len(line)):])
}

// wantRampLive reports whether gb ramp draws the live panel on stderr:
// as a single run does (--live, -q), and not under -v 2 or more, whose
// lines the panel would cover.
func wantRampLive(o *options, stderr io.Writer) bool {
	return !o.quiet && o.verbosity < 2 && (o.live == "on" || o.live != "off" && isTerminal(stderr))
}

// newRampLive starts the panel on w for spec's first step.
func newRampLive(w io.Writer, spec *ramp.Spec) *rampLive {
	rl := &rampLive{spec: spec}
	rl.addRow(func(w io.Writer) error { return report.RampHeader(w, spec.By) })
	rl.live = newLive(w, rl.limits(0))
	rl.live.setAbove(liveAbove(rl.table.String()))
	return rl
}

// limits are step i's (0-based) limits.
func (rl *rampLive) limits(i int) liveLimits {
	levels := rl.spec.Levels
	l := rl.spec.Step(levels[min(i, len(levels)-1)])
	return liveLimits{Requests: l.Requests, Duration: l.Duration, Rate: float64(l.Rate), Cores: cores()}
}

// stepDone adds step i's (1-based) line to the table and sets the next
// step's limits.
func (rl *rampLive) stepDone(i int, res *stats.Result) {
	rl.addRow(func(w io.Writer) error { return report.RampStep(w, rl.spec.By, i, res) })
	rl.live.setAbove(liveAbove(rl.table.String()))
	if i < len(rl.spec.Levels) {
		rl.live.setLimits(rl.limits(i))
	}
}

// heldWriter keeps what the ramp writes while the panel is drawn (the
// alternate screen would swallow it) until flush; safe for concurrent use.
type heldWriter struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (h *heldWriter) Write(p []byte) (int, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.buf.Write(p)
}

// flush writes what was held to w.
func (h *heldWriter) flush(w io.Writer) {
	h.mu.Lock()
	defer h.mu.Unlock()
	_, _ = h.buf.WriteTo(w)
}

// String is what is held so far.
func (h *heldWriter) String() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.buf.String()
}
