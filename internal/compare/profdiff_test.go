package compare

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/gb-bench/gb/stats"
	pprof "github.com/google/pprof/profile"
)

// cpuProfile is a CPU profile whose samples are stacks (leaf first) with
// values in ns.
func cpuProfile(samples map[[3]string]int64) *pprof.Profile {
	p := &pprof.Profile{
		SampleType: []*pprof.ValueType{{Type: "samples", Unit: "count"}, {Type: "cpu", Unit: "nanoseconds"}},
		PeriodType: &pprof.ValueType{Type: "cpu", Unit: "nanoseconds"}, Period: 10e6,
	}
	funcs := map[string]*pprof.Function{}
	for stack, v := range samples {
		s := &pprof.Sample{Value: []int64{v / 10e6, v}}
		for _, name := range stack {
			if name == "" {
				continue
			}
			fn := funcs[name]
			if fn == nil {
				fn = &pprof.Function{ID: uint64(len(funcs) + 1), Name: name}
				funcs[name] = fn
				p.Function = append(p.Function, fn)
			}
			loc := &pprof.Location{ID: uint64(len(p.Location) + 1), Line: []pprof.Line{{Function: fn}}}
			p.Location = append(p.Location, loc)
			s.Location = append(s.Location, loc)
		}
		p.Sample = append(p.Sample, s)
	}
	return p
}

// profiledInput saves p under dir as name's CPU profile, listed by a
// relative path, and returns an input of one run of requests responses.
func profiledInput(t *testing.T, dir, name string, p *pprof.Profile, requests int64) Input {
	f, err := os.Create(filepath.Join(dir, name+".pb.gz"))
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Write(f); err != nil {
		t.Fatal(err)
	}
	f.Close()
	r := run(time.Second, 100)
	r.Profile = &stats.ServerProfile{Requests: requests, Files: []stats.ProfileFile{{Kind: "cpu", Path: name + ".pb.gz"}},
		CPU: &stats.ServerCPU{Load: time.Second, Covered: time.Second / 2}}
	return Input{Name: name + ".json", Path: filepath.Join(dir, name+".json"), Runs: []*stats.Result{r}}
}

func TestDiffProfiles(t *testing.T) {
	dir := t.TempDir()
	old := profiledInput(t, dir, "old", cpuProfile(map[[3]string]int64{
		{"runtime.memmove", "runtime.concatstrings", "main.leftpad"}:   900e6,
		{"main.main.timedHandler.func1", "net/http.(*conn).serve", ""}: 100e6,
		{"runtime.scanblock", "runtime.gcBgMarkWorker", ""}:            50e6,
	}), 1000)
	new := profiledInput(t, dir, "new", cpuProfile(map[[3]string]int64{
		{"main.timedHandler.func1", "net/http.(*conn).serve", ""}: 300e6,
		{"runtime.scanblock", "runtime.gcBgMarkWorker", ""}:       50e6,
	}), 2000)
	diffs, err := DiffProfiles(old, new)
	if err != nil || len(diffs) != 1 {
		t.Fatalf("%d diffs, %v", len(diffs), err)
	}
	d := diffs[0]
	// The CPU windows covered half the load: 500 and 1000 requests.
	got := map[string][2]float64{}
	for _, f := range d.Funcs {
		got[f.Name] = [2]float64{f.Old * 1e9, f.New * 1e9}
	}
	want := map[string][2]float64{
		"main.leftpad":            {1.8e6, 0},
		"main.timedHandler.func1": {0.2e6, 0.3e6},
		"runtime.scanblock":       {0.1e6, 0.05e6},
	}
	if len(got) != len(want) {
		t.Errorf("functions %v, want %v", got, want)
	}
	for name, w := range want {
		if g := got[name]; g != w {
			t.Errorf("%s: ns per request %v, want %v", name, g, w)
		}
	}
	if d.Funcs[0].Name != "main.timedHandler.func1" || d.Funcs[len(d.Funcs)-1].Name != "main.leftpad" {
		t.Errorf("order %+v", d.Funcs)
	}
	cmd, err := d.WriteFiles(filepath.Join(dir, "pair"))
	if err != nil || cmd != "go tool pprof -diff_base "+filepath.Join(dir, "pair", "cpu.old.pb.gz")+" "+filepath.Join(dir, "pair", "cpu.new.pb.gz") {
		t.Fatalf("WriteFiles: %q %v", cmd, err)
	}
	f, err := os.Open(filepath.Join(dir, "pair", "cpu.old.pb.gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	base, err := pprof.Parse(f)
	if err != nil {
		t.Fatal(err)
	}
	var total int64
	for _, s := range base.Sample {
		total += s.Value[1]
	}
	if total != 2*1050e6 { // scaled to the new runs' 1000 covered requests
		t.Errorf("old profile total %d ns, want %d", total, int64(2*1050e6))
	}
}

func TestDiffProfilesMissingFile(t *testing.T) {
	dir := t.TempDir()
	in := profiledInput(t, dir, "old", cpuProfile(map[[3]string]int64{{"main.f", "", ""}: 10e6}), 10)
	if err := os.Remove(filepath.Join(dir, "old.pb.gz")); err != nil {
		t.Fatal(err)
	}
	if _, err := DiffProfiles(in, in); err == nil {
		t.Error("no error for a missing profile")
	}
	if diffs, err := DiffProfiles(input("a", 1, 100), input("b", 1, 100)); len(diffs) != 0 || err != nil {
		t.Errorf("without profiles: %v %v", diffs, err)
	}
}
