package main

import (
	"io"
	"strings"
	"testing"

	"github.com/gb-bench/gb"
	"github.com/gb-bench/gb/internal/ramp"
	"github.com/gb-bench/gb/internal/report"
	"github.com/gb-bench/gb/internal/testserver"
	"github.com/gb-bench/gb/internal/testsupport"
)

// TestRampLiveView: gb ramp's panel is the steps done so far as a table
// (the step lines gb ramp prints) above the running step's panel, whose
// limits are that step's; nothing outgrows 80 columns.
func TestRampLiveView(t *testing.T) {
	srv := testsupport.Server(t, testserver.Options{})
	spec := ramp.Spec{By: ramp.ByConcurrency, Levels: []int64{1, 2, 4}, PerUser: 50}
	base := gb.Config{URL: srv.URL() + "/hello", KeepAlive: true}
	p, err := gb.NewPlan(stepConfig(base, spec.Largest()))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	rl := &rampLive{spec: &spec}
	rl.addRow(func(w io.Writer) error { return report.RampHeader(w, spec.By) })
	for i, l := range spec.Levels[:2] {
		res, err := p.Step(t.Context(), stepOf(spec.Step(l)))
		if err != nil {
			t.Fatal(err)
		}
		rl.addRow(func(w io.Writer) error { return report.RampStep(w, spec.By, i+1, res) })
	}
	step3 := panel{limits: rl.limits(2), snap: fixedSnap().snap}
	m := liveModel{panel: step3, above: liveAbove(rl.table.String())}
	lines := strings.Split(m.View(), "\n")
	if len(lines) != 9 {
		t.Fatalf("%d lines, want the header, 2 steps and the panel's 6:\n%s", len(lines), m.View())
	}
	for i, want := range []string{"concurrency   complete   failed", "          1         50        0", "          2        100        0"} {
		if !strings.HasPrefix(lines[i], want) {
			t.Errorf("line %d %q, want it to begin %q", i+1, lines[i], want)
		}
	}
	if want := "elapsed 2.5s  2500/200 req"; !strings.HasPrefix(lines[3], want) {
		t.Errorf("the panel's first line %q, want step 3's limit: %q", lines[3], want)
	}
	if got, want := strings.Join(lines[4:], "\n"), strings.Join(strings.Split(step3.View(), "\n")[1:], "\n"); got != want {
		t.Errorf("panel under the table:\n%s\nwant:\n%s", got, want)
	}
	for _, l := range strings.Split(strings.TrimSuffix(rl.table.String(), "\n"), "\n") {
		if cellWidth(l) > 80 {
			t.Errorf("table line %q would be cut at 80 columns: p99 lost", l)
		}
	}
	for _, l := range lines {
		if cellWidth(l) > 80 {
			t.Errorf("line %q is %d wide", l, cellWidth(l))
		}
	}
}

// TestRampLiveCountsCarriedConnections: the panel's "connections open" in
// a step counts the connections carried over from the steps before, not
// only the ones the step opened.
func TestRampLiveCountsCarriedConnections(t *testing.T) {
	srv := testsupport.Server(t, testserver.Options{})
	spec := ramp.Spec{By: ramp.ByConcurrency, Levels: []int64{2, 4}, PerUser: 20}
	base := gb.Config{URL: srv.URL() + "/hello", KeepAlive: true, Engine: gb.EngineGoroutine}
	plan, err := gb.NewPlan(stepConfig(base, spec.Largest()))
	if err != nil {
		t.Fatal(err)
	}
	defer plan.Close()
	rl := &rampLive{spec: &spec}
	var last gb.Progress // the last progress of the last step
	p := &rampPlan{Plan: plan, base: plan.Config(),
		opts: []gb.Option{gb.WithProgress(0, func(pr gb.Progress) { last = rl.total(pr) })}}
	out, err := ramp.Run(t.Context(), p, spec, ramp.Hooks{Start: func(int) { rl.stepStart(p) }})
	if err != nil || len(out.Ramp.Steps) != 2 {
		t.Fatalf("%v, %d steps", err, len(out.Ramp.Steps))
	}
	// A worker that got no request (on a busy machine the other may take
	// them all) opens no connection: count what each step opened.
	carried, opened := out.Ramp.Steps[0].Counts.ConnsOpened, out.Ramp.Steps[1].Counts.ConnsOpened
	if carried < 1 || carried > 2 || opened > 4-carried || last.ConnsOpen != carried+opened {
		t.Errorf("step 1 opened %d, step 2 %d; the panel shows %d open, want %d (carried and opened)", carried, opened, last.ConnsOpen, carried+opened)
	}
}
