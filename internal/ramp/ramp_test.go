package ramp

import (
	"context"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gb-bench/gb/stats"
)

// scripted is a Runner whose steps answer as told: each step's requests
// all ok, or all refused from step dead on (1-based; 0 = never).
type scripted struct {
	loads []Load
	dead  int
}

func (s *scripted) Step(_ context.Context, l Load, progress func(int64, time.Duration)) (*stats.Result, error) {
	s.loads = append(s.loads, l)
	r := &stats.Result{Load: stats.Load{Concurrency: l.Concurrency, Rate: float64(l.Rate), Requests: l.Requests},
		Elapsed: time.Second, StoppedBy: stats.StopCount}
	r.Counts.Dispatched = l.Requests
	if s.dead > 0 && len(s.loads) >= s.dead {
		r.Counts.Outcomes[stats.FailConnect] = l.Requests
		r.StoppedBy = stats.StopError
	} else {
		r.Counts.Outcomes[stats.OK] = l.Requests
	}
	progress(l.Requests/2, 500*time.Millisecond)
	progress(l.Requests, time.Second)
	return r, nil
}

func (s *scripted) Addr() string { return "127.0.0.1:1" }
func (s *scripted) Held() int    { return 0 }

// TestRunScripted runs a ramp on a scripted Runner: the loads asked for,
// the Start hook before each step, the last step marked Last, and a
// server that stops answering in step 3 is Stopped there (the ramp ends
// with it), not saturated.
func TestRunScripted(t *testing.T) {
	r := &scripted{dead: 3}
	var started []int
	s := Spec{By: ByConcurrency, Levels: []int64{1, 2, 3, 4}, PerUser: 10, MaxErrors: 0.01}
	out, err := Run(context.Background(), r, s, Hooks{Start: func(i int) { started = append(started, i) }})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.loads) != 3 || r.loads[1] != (Load{Requests: 20, Concurrency: 2}) || r.loads[2].Last {
		t.Errorf("loads %+v", r.loads)
	}
	if len(started) != 3 || started[2] != 3 || out.Aborted != 3 || len(out.Ramp.Steps) != 3 {
		t.Errorf("started %v, aborted %d, %d steps", started, out.Aborted, len(out.Ramp.Steps))
	}
	if out.Ramp.Stopped != 3 || out.Ramp.Saturation != 0 || out.Ramp.MaxErrors != 0.01 {
		t.Errorf("stopped %d, saturation %d, max errors %v", out.Ramp.Stopped, out.Ramp.Saturation, out.Ramp.MaxErrors)
	}
	if rates := out.Ramp.ReplyRates[0]; len(rates) != 1 || rates[0] != 10 {
		t.Errorf("reply rates %v: want the first half-second's 10/s, the last call dropped", rates)
	}
	r = &scripted{}
	s = Spec{By: ByRate, Levels: []int64{100, 200}, StepTime: time.Second}
	if _, err := Run(context.Background(), r, s, Hooks{}); err != nil {
		t.Fatal(err)
	}
	if want := (Load{Requests: 200, Duration: 2 * time.Second, Rate: 200, Last: true}); r.loads[1] != want {
		t.Errorf("last rate step %+v, want %+v", r.loads[1], want)
	}
}

// TestNoRootImport: the ramp takes its steps from a Runner and owns its
// model; it imports neither the root package gb (internal packages never
// do) nor a renderer (package report renders a Ramp, not the other way).
func TestNoRootImport(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil || len(files) == 0 {
		t.Fatalf("%v, %d files", err, len(files))
	}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		af, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range af.Imports {
			if p := imp.Path.Value; p == `"github.com/gb-bench/gb"` || p == `"github.com/gb-bench/gb/internal/report"` {
				t.Errorf("%s imports %s", f, p)
			}
		}
	}
}
