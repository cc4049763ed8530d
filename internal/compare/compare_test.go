package compare

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/gb-bench/gb/stats"
)

// run is a result of 1000 responses in elapsed whose latencies are all
// lat µs.
func run(elapsed time.Duration, lat int64) *stats.Result {
	h := hdrhistogram.New(1, 3600e6, 3)
	d := &stats.Dist{Hist: h}
	for range 1000 {
		h.RecordValue(lat)
		d.Add(lat)
	}
	r := &stats.Result{Version: stats.FormatVersion, Elapsed: elapsed}
	r.Load.URL, r.Load.Method, r.Load.Concurrency = "http://127.0.0.1:1/x", "GET", 4
	r.Counts.Dispatched, r.Counts.Outcomes[stats.OK] = 1000, 1000
	r.Latency[stats.Total] = d
	return r
}

// input is an input of one run per elapsed time in ms, latency lat.
func input(name string, lat int64, ms ...int) Input {
	in := Input{Name: name}
	for _, m := range ms {
		in.Runs = append(in.Runs, run(time.Duration(m)*time.Millisecond, lat))
	}
	return in
}

func TestCompareSignificance(t *testing.T) {
	old := input("old.json", 1000, 100, 101, 102, 103, 104)
	slower := input("new.json", 1500, 120, 121, 122, 123, 124)
	tb := Compare(old, slower, old)
	if len(tb.Warnings) != 0 {
		t.Errorf("warnings %q", tb.Warnings)
	}
	rps, ok := tb.Row("rps")
	if !ok || len(rps.Cells) != 3 {
		t.Fatalf("rps row %+v", rps)
	}
	if c := rps.Cells[1]; !c.Significant() || c.Delta(rps.Cells[0]) > -15 || c.Delta(rps.Cells[0]) < -17 {
		t.Errorf("1000 req in 102 ms vs 122 ms: significant %v delta %.2f%%", c.Significant(), c.Delta(rps.Cells[0]))
	}
	if c := rps.Cells[2]; c.Significant() || c.Vs.P != 1 {
		t.Errorf("identical inputs: significant %v p %v", c.Significant(), c.Vs.P)
	}
	var b bytes.Buffer
	if err := tb.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"old.json (5 runs)", "vs old.json", "req/s", "9.804k ± ∞ ¹", "-16.39% (p=0.008 n=5)",
		"latency p99", "1ms", "1.5ms", "+50.00% (p=0.008 n=5)", "~ (p=1.000 n=5)", "¹ need >= 6 samples"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	if _, ok := tb.Row("server.cpu"); ok {
		t.Error("a server CPU row without profiles")
	}
}

func TestCompareFewRuns(t *testing.T) {
	tb := Compare(input("a", 1000, 100), input("b", 1000, 200))
	rps, _ := tb.Row("rps")
	c := rps.Cells[1]
	if c.Significant() || len(c.Vs.Warnings) == 0 || !strings.Contains(c.Vs.Warnings[0].Error(), "need >= 4 samples") {
		t.Errorf("one run each: significant %v, warnings %v", c.Significant(), c.Vs.Warnings)
	}
}

func TestCompareWarnsOfDifferentRuns(t *testing.T) {
	a, b := input("a.json", 1000, 100), input("b.json", 1000, 100, 100)
	b.Runs[1].Load.Concurrency, b.Runs[1].Load.Rate = 8, 500
	tb := Compare(a, b)
	want := "b.json (run 2) differs from a.json in concurrency (4 vs 8), mode (closed loop vs rate 500/s)"
	if len(tb.Warnings) != 1 || tb.Warnings[0] != want {
		t.Errorf("warnings %q, want %q", tb.Warnings, want)
	}
}

func TestParseLimit(t *testing.T) {
	for expr, want := range map[string]float64{"p99=+10%": 10, "p99=10%": 10, "rps=-5%": -5, "rps=5%": -5,
		"corrected.p99.9=+1.5%": 1.5, "errors=0%": 0, " gb.cpu = +20% ": 20} {
		l, err := ParseLimit(expr)
		if err != nil || l.Pct != want {
			t.Errorf("%q: %+v %v, want %v", expr, l.Pct, err, want)
		}
	}
	for expr, want := range map[string]string{"p99": "want METRIC=", "p98=+1%": "unknown metric", "p99=+10": "must be a percentage",
		"p99=x%": "bad percentage", "p99=-10%": "regresses the other way, write p99=+10%", "rps=+5%": "write rps=-5%",
		"rps=-101%": "bad percentage", "p99=NaN%": "bad percentage"} {
		_, err := ParseLimit(expr)
		if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: error %v, want %q", expr, err, want)
		}
	}
}

func TestCheck(t *testing.T) {
	old := input("old", 1000, 100, 101, 102, 103, 104)
	tb := Compare(old, input("new", 1500, 120, 121, 122, 123, 124), old)
	limits := func(exprs ...string) []Limit {
		var ls []Limit
		for _, e := range exprs {
			l, err := ParseLimit(e)
			if err != nil {
				t.Fatal(err)
			}
			ls = append(ls, l)
		}
		return ls
	}
	vs, err := tb.Check(limits("rps=-20%", "p99=+60%"))
	if err != nil || len(vs) != 4 {
		t.Errorf("within the limits: %v %v", vs, err)
	}
	vs, err = tb.Check(limits("rps=-10%", "p99=+60%", "server.cpu=+1%"))
	if !errors.Is(err, ErrRegression) {
		t.Fatalf("rps fell 16%%: %v", err)
	}
	var got []string
	for _, v := range vs {
		got = append(got, v.String())
	}
	want := []string{"rps=-10%: new -16.39% (p=0.008): FAIL", "rps=-10%: old ~ (p=1.000): ok",
		"p99=+60%: new +50.00% (p=0.008): ok", "p99=+60%: old ~ (p=1.000): ok",
		"server.cpu=+1%: new not measured in every run: FAIL", "server.cpu=+1%: old not measured in every run: FAIL"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("verdicts:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestClosureKey(t *testing.T) {
	for name, want := range map[string]string{
		"main.main.timedHandler.func1":                   "main.timedHandler.func1",
		"main.timedHandler.func1":                        "main.timedHandler.func1",
		"main.timedHandler.func1.2":                      "main.timedHandler.func1.2",
		"example.com/a/b.Outer.inner.gowrap1":            "example.com/a/b.inner.gowrap1",
		"net/http.(*conn).serve.func1":                   "net/http.(*conn).serve.func1",
		"net/http.(*Server).ListenAndServe.(*T).M.func3": "net/http.(*T).M.func3",
		"main.main":                  "main.main",
		"main.F[go.shape.int].func1": "main.F[go.shape.int].func1",
		"runtime.goexit":             "runtime.goexit",
	} {
		if got := closureKey(name); got != want {
			t.Errorf("closureKey(%q) = %q, want %q", name, got, want)
		}
	}
}

func TestUnify(t *testing.T) {
	set := func(names ...string) map[string]bool {
		m := map[string]bool{}
		for _, n := range names {
			m[n] = true
		}
		return m
	}
	got := unify(set("main.main.timedHandler.func1", "main.a.x.func1", "main.b.x.func1", "main.leftpad"),
		set("main.timedHandler.func1", "main.x.func1", "main.leftpad"))
	if len(got) != 1 || got["main.main.timedHandler.func1"] != "main.timedHandler.func1" {
		t.Errorf("rename %v: want only main.main.timedHandler.func1 → main.timedHandler.func1", got)
	}
}

func TestFormatValue(t *testing.T) {
	for _, c := range []struct {
		u    Unit
		v    float64
		want string
	}{
		{UnitTime, 0.0012345, "1.234ms"}, {UnitTime, 42e-9, "42ns"}, {UnitTime, 2.5, "2.5s"}, {UnitTime, -1.5e-6, "-1.5µs"},
		{UnitRate, 25812, "25.81k"}, {UnitRate, 454.8, "454.8"}, {UnitBytes, 2048, "2KiB"}, {UnitBytes, 100, "100B"},
		{UnitRatio, 0.0123, "1.23%"}, {UnitCount, 0, "0"},
	} {
		if got := formatValue(c.u, c.v); got != c.want {
			t.Errorf("formatValue(%v, %v) = %q, want %q", c.u, c.v, got, c.want)
		}
	}
}

func TestPrintable(t *testing.T) {
	if got := printable("main.f\x1b[31m\n"); got != "main.f?[31m?" {
		t.Errorf("printable = %q", got)
	}
	if got := []rune(printable(strings.Repeat("x", 500))); len(got) != maxNameLen {
		t.Errorf("long name kept %d runes", len(got))
	}
}

func TestCompareRateRows(t *testing.T) {
	rate := func(lat int64) Input {
		in := input("rate", lat, 100)
		in.Runs[0].Load.Rate = 1000
		in.Runs[0].Latency[stats.Corrected] = in.Runs[0].Latency[stats.Total]
		return in
	}
	if row, ok := Compare(rate(1000), rate(2000)).Row("corrected.p99.9"); !ok || row.Cells[0].Summary.Center != 1e-3 {
		t.Errorf("rate mode: corrected p99.9 row %+v", row)
	}
	if _, ok := Compare(rate(1000), input("closed", 1000, 100)).Row("corrected.p50"); ok {
		t.Error("a corrected row when one input is closed-loop")
	}
}

// withAllocs gives every run of in a server profile over its 1000
// responses: objects and bytes per response from the allocs profile, or
// (memstats) from expvar's runtime statistics.
func withAllocs(in Input, objects, bytes int64, memstats bool) Input {
	for _, r := range in.Runs {
		p := &stats.ServerProfile{Requests: 1000}
		if memstats {
			p.Runtime = &stats.ServerRuntime{AllocObjects: objects * 1000, AllocBytes: bytes * 1000}
		} else {
			p.Allocs = &stats.ProfileTop{SampleType: "alloc_space", Unit: "bytes", Total: bytes * 1000}
			p.AllocObjects = objects * 1000
		}
		r.Profile = p
	}
	return in
}

// TestCompareAllocsWithoutExpvar: without expvar's memstats, the
// allocation rows come from the allocs profile, as gb's report estimates
// them, and say they are estimated; with memstats they are exact.
func TestCompareAllocsWithoutExpvar(t *testing.T) {
	old := withAllocs(input("old.json", 1000, 100, 101, 102), 126, 9000, false)
	fixed := withAllocs(input("new.json", 1000, 100, 101, 102), 36, 2000, false)
	var b bytes.Buffer
	tb := Compare(old, fixed)
	if err := tb.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	objs, ok := tb.Row("server.allocs")
	if !ok || !objs.Estimated || objs.Cells[0].Summary.Center != 126 || objs.Cells[1].Summary.Center != 36 {
		t.Fatalf("server.allocs row %+v (present %v)", objs, ok)
	}
	for _, want := range []string{"server allocs/req (estimated)   126 ± ∞ ¹           36 ± ∞ ¹", "server alloc/req (estimated)    8.789KiB",
		"estimated: the server's allocations from its sampled allocs profile"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, b.String())
		}
	}
	exact := Compare(withAllocs(input("a", 1000, 100), 126, 9000, true), withAllocs(input("b", 1000, 100), 36, 2000, true))
	if r, ok := exact.Row("server.allocs"); !ok || r.Estimated || r.Cells[1].Summary.Center != 36 {
		t.Errorf("memstats row %+v (present %v)", r, ok)
	}
}
