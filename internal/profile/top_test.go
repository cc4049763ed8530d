package profile

import (
	"bytes"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gb-bench/gb/internal/testserver"
	"github.com/gb-bench/gb/internal/testsupport"
	"github.com/gb-bench/gb/stats"
	pprof "github.com/google/pprof/profile"
)

// pprofRow is one row of `go tool pprof -top`, values in the profile's
// unit, percentages without the sign, with the tolerance of their
// printed precision.
type pprofRow struct {
	name                       string
	flat, cum, flatTol, cumTol float64
	flatPct, cumPct            float64
}

// pprofUnits are the factors of the units pprof prints.
var pprofUnits = map[string]float64{
	"ns": 1, "us": 1e3, "µs": 1e3, "ms": 1e6, "s": 1e9, "mins": 60e9, "hrs": 3600e9,
	"B": 1, "kB": 1 << 10, "MB": 1 << 20, "GB": 1 << 30, "TB": 1 << 40,
}

var pprofValue = regexp.MustCompile(`^(-?[0-9.]+)([a-zµA-Z]*)$`)

// parseValue parses a pprof value ("0.80s", "34.60MB", "0") and returns it
// with half a unit of its last printed digit as tolerance.
func parseValue(t *testing.T, s string) (v, tol float64) {
	t.Helper()
	m := pprofValue.FindStringSubmatch(s)
	if m == nil {
		t.Fatalf("pprof value %q", s)
	}
	f, err := strconv.ParseFloat(m[1], 64)
	factor, ok := pprofUnits[m[2]]
	if err != nil || (!ok && m[2] != "") {
		t.Fatalf("pprof value %q", s)
	}
	if m[2] == "" {
		factor = 1
	}
	decimals := 0
	if _, frac, ok := strings.Cut(m[1], "."); ok {
		decimals = len(frac)
	}
	return f * factor, 0.5 * math.Pow(10, -float64(decimals)) * factor
}

// pprofTop runs `go tool pprof -top [-cum] file` and parses its rows.
func pprofTop(t *testing.T, file string, cum bool) []pprofRow {
	t.Helper()
	args := []string{"tool", "pprof", "-top"}
	if cum {
		args = append(args, "-cum")
	}
	out, err := exec.Command("go", append(args, file)...).Output()
	if err != nil {
		t.Fatalf("go %s: %v", strings.Join(args, " "), err)
	}
	_, table, ok := strings.Cut(string(out), "flat%   sum%        cum   cum%\n")
	if !ok {
		t.Fatalf("no table in pprof output:\n%s", out)
	}
	var rows []pprofRow
	for _, line := range strings.Split(strings.TrimSpace(table), "\n") {
		f := strings.Fields(line)
		if len(f) < 6 {
			t.Fatalf("pprof row %q", line)
		}
		var r pprofRow
		r.flat, r.flatTol = parseValue(t, f[0])
		r.cum, r.cumTol = parseValue(t, f[3])
		r.flatPct, _ = strconv.ParseFloat(strings.TrimSuffix(f[1], "%"), 64)
		r.cumPct, _ = strconv.ParseFloat(strings.TrimSuffix(f[4], "%"), 64)
		r.name = strings.Join(f[5:], " ")
		r.name = strings.TrimSuffix(strings.TrimSuffix(r.name, " (inline)"), " (partial-inline)")
		rows = append(rows, r)
	}
	return rows
}

// pctTol is the precision of a pprof percentage: two decimals from 1 on,
// two significant digits below.
func pctTol(p float64) float64 {
	if p < 1 {
		return 0.05
	}
	return 0.0051
}

// comparePprof checks that top's rows are the first rows pprof prints for
// file, with the same values and percentages.
func comparePprof(t *testing.T, top *stats.ProfileTop, file string, cum bool) {
	t.Helper()
	want := pprofTop(t, file, cum)
	if len(top.Functions) == 0 || len(top.Functions) > len(want) {
		t.Fatalf("%s: %d rows, pprof prints %d", file, len(top.Functions), len(want))
	}
	for i, f := range top.Functions {
		w := want[i]
		flatPct := math.Abs(float64(f.Flat)) * 100 / float64(top.Total)
		cumPct := math.Abs(float64(f.Cum)) * 100 / float64(top.Total)
		if f.Name != w.name || math.Abs(float64(f.Flat)-w.flat) > w.flatTol || math.Abs(float64(f.Cum)-w.cum) > w.cumTol ||
			math.Abs(flatPct-w.flatPct) > pctTol(w.flatPct) || math.Abs(cumPct-w.cumPct) > pctTol(w.cumPct) {
			t.Errorf("%s (cum=%v) row %d: gb %s flat=%d cum=%d (%.2f, %.2f pct); pprof %s flat=%g cum=%g (%.2f, %.2f pct)",
				filepath.Base(file), cum, i, f.Name, f.Flat, f.Cum, flatPct, cumPct, w.name, w.flat, w.cum, w.flatPct, w.cumPct)
		}
	}
}

// raceEnabled is set when the tests run with the race detector.
var raceEnabled bool

func TestTopMatchesPprof(t *testing.T) {
	if raceEnabled {
		// The race runtime adds C frames without symbols, which pprof
		// symbolises again from the binary, renaming frames gb takes
		// from the profile as it is.
		t.Skip("the race detector's C frames make pprof re-symbolise the profile")
	}
	srv := testsupport.Server(t, testserver.Options{})
	sp, dir := capture(t, srv, "/leftpad?str=x&len=2000&chr=0", 1200*time.Millisecond, CPU, Allocs)
	if sp.CPU == nil || sp.Allocs == nil {
		t.Fatalf("no CPU or allocs summary: %+v", sp)
	}
	comparePprof(t, &sp.CPU.Top, filepath.Join(dir, "cpu.pb.gz"), false)
	comparePprof(t, &sp.CPU.TopCum, filepath.Join(dir, "cpu.pb.gz"), true)
	comparePprof(t, sp.Allocs, filepath.Join(dir, "allocs.pb.gz"), false)
}

// synthetic is a small CPU profile with the cases Top must get right:
// inlined frames, recursion, equal flat values, a function below the
// cutoff, a zero sample, and a sample with an empty stack (merged CPU
// profiles have them; pprof counts them in the total).
func synthetic() *pprof.Profile {
	p := &pprof.Profile{
		SampleType:    []*pprof.ValueType{{Type: "samples", Unit: "count"}, {Type: "cpu", Unit: "nanoseconds"}},
		PeriodType:    &pprof.ValueType{Type: "cpu", Unit: "nanoseconds"},
		Period:        10_000_000,
		DurationNanos: 2e9,
	}
	fns := map[string]*pprof.Function{}
	for i, name := range []string{"main.main", "main.work", "main.inlined", "main.rec", "main.b", "main.a", "main.tiny", "runtime.goexit"} {
		f := &pprof.Function{ID: uint64(i + 1), Name: name, SystemName: name, Filename: "main.go"}
		fns[name] = f
		p.Function = append(p.Function, f)
	}
	loc := func(names ...string) *pprof.Location { // innermost first
		l := &pprof.Location{ID: uint64(len(p.Location) + 1), Address: uint64(0x1000 + len(p.Location))}
		for _, n := range names {
			l.Line = append(l.Line, pprof.Line{Function: fns[n], Line: 1})
		}
		p.Location = append(p.Location, l)
		return l
	}
	main, work := loc("main.main"), loc("main.work")
	inl := loc("main.inlined", "main.work") // main.inlined inlined into main.work
	rec1, rec2 := loc("main.rec"), loc("main.rec")
	a, b, tiny := loc("main.a"), loc("main.b"), loc("main.tiny")
	sample := func(ms int64, locs ...*pprof.Location) {
		p.Sample = append(p.Sample, &pprof.Sample{Location: locs, Value: []int64{ms / 10, ms * 1e6}})
	}
	sample(500, inl, main)
	sample(300, work, main)
	sample(200, rec1, rec2, main) // recursion: cum counted once
	sample(200, a, main)          // a and b tie on flat: name order
	sample(200, b, main)
	sample(1, tiny, main) // below half a percent: dropped
	sample(0, tiny, main)
	sample(99) // no stack: in the total, in no row
	return p
}

func TestTopSynthetic(t *testing.T) {
	p := synthetic()
	top := Top(p, 10, ByFlat)
	want := []stats.ProfileFunction{
		{Name: "main.inlined", Flat: 500e6, Cum: 500e6},
		{Name: "main.work", Flat: 300e6, Cum: 800e6},
		{Name: "main.a", Flat: 200e6, Cum: 200e6},
		{Name: "main.b", Flat: 200e6, Cum: 200e6},
		{Name: "main.rec", Flat: 200e6, Cum: 200e6},
		{Name: "main.main", Flat: 0, Cum: 1401e6},
	}
	if top.Total != 1500e6 || top.SampleType != "cpu" || top.Unit != "nanoseconds" {
		t.Errorf("total %d %s/%s", top.Total, top.SampleType, top.Unit)
	}
	if len(top.Functions) != len(want) {
		t.Fatalf("got %+v\nwant %+v", top.Functions, want)
	}
	for i := range want {
		if top.Functions[i] != want[i] {
			t.Errorf("row %d: %+v, want %+v", i, top.Functions[i], want[i])
		}
	}
	cum := Top(p, 2, ByCum)
	if len(cum.Functions) != 2 || cum.Functions[0].Name != "main.main" || cum.Functions[1].Name != "main.work" {
		t.Errorf("by cum: %+v", cum.Functions)
	}
	file := writeTemp(t, p)
	comparePprof(t, &top, file, false)
	all := Top(p, 10, ByCum)
	comparePprof(t, &all, file, true)
}

// writeTemp writes p to a new file for the test and returns its path.
func writeTemp(t *testing.T, p *pprof.Profile) string {
	t.Helper()
	var b bytes.Buffer
	if err := p.Write(&b); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "cpu.pb.gz")
	if err := os.WriteFile(file, b.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	return file
}

func TestTopOfEmptyProfile(t *testing.T) {
	top := Top(&pprof.Profile{}, 10, ByFlat)
	if top.Total != 0 || len(top.Functions) != 0 {
		t.Errorf("%+v", top)
	}
}
