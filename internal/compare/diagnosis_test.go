package compare

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gb-bench/gb/stats"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// diagnosed gives run i of in a server profile with a diagnosis: the
// CPU split (your code cpu[i] µs and the HTTP stack 40 µs per request),
// the mutex wait wait[i] µs per request in one site and 10 µs in another,
// a block profile saved without samples, GC at 5 cycles per 1000
// requests, and goroutines before/during/after.
func diagnosed(in Input, cpu, wait []float64) Input {
	for i, r := range in.Runs {
		us := func(v float64) time.Duration { return time.Duration(v * 1e3) }
		d := &stats.Diagnosis{Bound: "contention", Verdict: "lock and channel waits",
			CPU: &stats.DiagnosisCPU{PerRequest: us(cpu[i] + 40), Classes: []stats.CPUClass{
				{Class: "user_cpu", PerRequest: us(cpu[i]), Share: cpu[i] / (cpu[i] + 40), Top: "main.work"},
				{Class: "http_stack", PerRequest: us(40), Share: 40 / (cpu[i] + 40)},
				{Class: "profiling", PerRequest: us(3), Share: 0.01},
			}},
			GC: &stats.DiagnosisGC{BytesPerRequest: 2048, ObjectsPerRequest: 20, CyclesPer1000: 5, MaxPause: 100 * time.Microsecond,
				Source: "memstats", CPUShare: 0.1},
			Contention: []stats.DiagnosisWait{
				{Kind: "mutex", Site: "main.(*cache).get", PerRequest: us(wait[i]), Events: 900},
				{Kind: "mutex", Site: "main.flush", PerRequest: us(10), Events: 50},
			},
			Goroutines: &stats.DiagnosisGoroutines{Before: 4, During: 12, After: 4},
		}
		r.Profile = &stats.ServerProfile{Requests: 1000, Kinds: []string{"cpu", "mutex", "block", "goroutine"}, Diagnosis: d,
			Files: []stats.ProfileFile{{Kind: "cpu"}, {Kind: "mutex"}, {Kind: "block"}, {Kind: "goroutine"}}}
	}
	return in
}

// TestCompareDiagnosis: the diagnosis's rows (CPU split by cause, lock
// wait per request, GC, goroutines) are compared like every row: the
// lock wait that went from 1.2 ms to 0.1 ms per request is a significant
// fall over five runs each, the CPU in the user's code that did not move
// is "~", rows whose values are all 0 (the empty block profile, causes
// without samples) and gb's own profiling CPU are left out, and the
// table is the golden one.
func TestCompareDiagnosis(t *testing.T) {
	cpu := []float64{100, 101, 102, 103, 104}
	old := diagnosed(input("old.json", 1000, 100, 101, 102, 103, 104), cpu, []float64{1190, 1195, 1200, 1205, 1210})
	fixed := diagnosed(input("new.json", 1000, 100, 101, 102, 103, 104), cpu, []float64{90, 95, 100, 105, 110})
	tb := Compare(old, fixed)
	wait, ok := tb.Row("diag.wait.mutex")
	if !ok {
		t.Fatal("no mutex wait row")
	}
	if c := wait.Cells[1]; !c.Significant() || wait.Cells[0].Summary.Center != 1.21e-3 || c.Summary.Center != 0.11e-3 || c.Delta(wait.Cells[0]) >= 0 {
		t.Errorf("mutex wait: %v → %v, significant %v", wait.Cells[0].Summary.Center, c.Summary.Center, c.Significant())
	}
	if user, ok := tb.Row("diag.cpu.user_cpu"); !ok || user.Cells[1].Significant() || user.Cells[0].Summary.Center != 102e-6 {
		t.Errorf("your code's CPU row %+v (present %v)", user, ok)
	}
	for _, key := range []string{"diag.cpu.profiling", "diag.gc.bytes_per_request", "diag.goroutines.before"} {
		if _, ok := tb.Row(key); ok {
			t.Errorf("a %s row", key)
		}
	}
	var b bytes.Buffer
	if err := tb.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	golden(t, "diagnosis.golden", b.String())
	// The empty block profile's row is 0 everywhere: not shown, but
	// measured, so that a gate on it passes.
	if r, ok := tb.Row("diag.wait.block"); !ok || !r.Zero || strings.Contains(b.String(), "block wait") {
		t.Errorf("block wait row %+v (present %v)", r, ok)
	}
	limit, err := ParseLimit("diag.wait.block=+10%")
	if err != nil {
		t.Fatal(err)
	}
	if vs, err := tb.Check([]Limit{limit}); err != nil || len(vs) != 1 || vs[0].String() != "diag.wait.block=+10%: new.json ~ (p=1.000): ok" {
		t.Errorf("gate on the empty block profile: %v %v", vs, err)
	}

	one := Compare(input("a", 1000, 100), diagnosed(input("b", 1000, 100), cpu, []float64{100}))
	if _, ok := one.Row("diag.wait.mutex"); ok {
		t.Error("a diagnosis row when one input has no diagnosis")
	}
}

// TestCompareDiagnosisSingleRuns: one run each gives the rows with "~"
// and the footnote, as for every other row.
func TestCompareDiagnosisSingleRuns(t *testing.T) {
	tb := Compare(diagnosed(input("a", 1000, 100), []float64{100}, []float64{1200}),
		diagnosed(input("b", 1000, 100), []float64{100}, []float64{100}))
	var b bytes.Buffer
	if err := tb.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	want := "server mutex wait/req       1.21ms ± ∞ ¹   110µs ± ∞ ¹   ~ (p=1.000 n=1) ³"
	if !strings.Contains(b.String(), want+"\n") || !strings.Contains(b.String(), "³ need >= 4 samples to detect a difference at alpha level 0.05") {
		t.Errorf("table lacks %q:\n%s", want, b.String())
	}
}

// TestDiagnosisMetrics: every number of the diagnosis's parts is a row
// (or deliberately none), keys are unique and usable in --max-regression,
// and the reflection gives each its unit; -1 (and a GC pause without
// memstats) is not measured.
func TestDiagnosisMetrics(t *testing.T) {
	seen := map[string]bool{}
	for _, m := range Metrics() {
		if seen[m.Key] || seen[m.Label] || strings.ContainsAny(m.Bench, " \t") {
			t.Errorf("metric %q: key or label repeated, or bench unit %q has a space", m.Key, m.Bench)
		}
		seen[m.Key], seen[m.Label] = true, true
	}
	for key, unit := range map[string]Unit{"diag.gc.cycles_per_1000": UnitCount, "diag.gc.max_pause": UnitTime,
		"diag.gc.cpu_share": UnitRatio, "diag.goroutines.after": UnitCount, "diag.wait.mutex": UnitTime, "diag.cpu.scheduler": UnitTime} {
		m, ok := MetricByKey(key)
		if !ok || m.Unit != unit || !m.Diagnosis || m.HigherIsBetter {
			t.Errorf("%s: %+v (present %v), want unit %v", key, m, ok, unit)
		}
	}
	if l, err := ParseLimit("diag.wait.mutex=+10%"); err != nil || l.Pct != 10 {
		t.Errorf("diag.wait.mutex=+10%%: %+v %v", l, err)
	}
	r := run(time.Second, 100)
	r.Profile = &stats.ServerProfile{Requests: 10, Diagnosis: &stats.Diagnosis{GC: &stats.DiagnosisGC{CyclesPer1000: -1, CPUShare: 0.5},
		Goroutines: &stats.DiagnosisGoroutines{Before: -1, During: -1, After: 7}}}
	for key, want := range map[string]float64{"diag.gc.cycles_per_1000": -1, "diag.gc.max_pause": -1, "diag.gc.cpu_share": 0.5,
		"diag.goroutines.after": 7, "diag.goroutines.during": -1} {
		m, _ := MetricByKey(key)
		if v, ok := m.Value(r); ok != (want >= 0) || ok && v != want {
			t.Errorf("%s = %v %v, want %v (-1: not measured)", key, v, ok, want)
		}
	}
}

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("output differs from %s (-update rewrites it):\n%s", path, got)
	}
}
