package profile

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gb-bench/gb/internal/testserver"
	"github.com/gb-bench/gb/internal/testsupport"
	"github.com/gb-bench/gb/stats"
	pprof "github.com/google/pprof/profile"
)

// tutorial is a CPU profile shaped like the v1 server of a public Go
// profiling tutorial: a handler that left-pads a string, logs with
// log.Printf and counts with a StatsD client, under net/http, with the
// runtime's garbage collector and scheduler taking most of the CPU. The
// logging's cost lies in write syscalls, so log.(*Logger).output ranks
// below the first 20 rows by cum.
func tutorial() *pprof.Profile {
	p := &pprof.Profile{
		SampleType: []*pprof.ValueType{{Type: "samples", Unit: "count"}, {Type: "cpu", Unit: "nanoseconds"}},
		PeriodType: &pprof.ValueType{Type: "cpu", Unit: "nanoseconds"},
		Period:     10_000_000, DurationNanos: 10e9,
	}
	fns := map[string]*pprof.Function{}
	fn := func(name string) *pprof.Function {
		if f := fns[name]; f != nil {
			return f
		}
		f := &pprof.Function{ID: uint64(len(p.Function) + 1), Name: name, SystemName: name, Filename: "x.go"}
		fns[name] = f
		p.Function = append(p.Function, f)
		return f
	}
	locs := map[string]*pprof.Location{}
	loc := func(names ...string) *pprof.Location { // one location, inlined frames innermost first
		key := strings.Join(names, "|")
		if l := locs[key]; l != nil {
			return l
		}
		l := &pprof.Location{ID: uint64(len(p.Location) + 1), Address: uint64(0x1000 + 16*len(p.Location))}
		for _, n := range names {
			l.Line = append(l.Line, pprof.Line{Function: fn(n), Line: 1})
		}
		locs[key] = l
		p.Location = append(p.Location, l)
		return l
	}
	serve := []*pprof.Location{loc("main.handler"), loc("net/http.HandlerFunc.ServeHTTP"),
		loc("net/http.serverHandler.ServeHTTP"), loc("net/http.(*conn).serve"), loc("runtime.goexit")}
	sample := func(ms int64, stack ...*pprof.Location) {
		p.Sample = append(p.Sample, &pprof.Sample{Location: stack, Value: []int64{ms / 10, ms * 1e6}})
	}
	handler := func(ms int64, inner ...string) { // inner: callees of main.handler, innermost first
		var stack []*pprof.Location
		for _, n := range inner {
			stack = append(stack, loc(n))
		}
		sample(ms, append(stack, serve...)...)
	}
	handler(900, "github.com/tutorial/leftpad.LeftPad")
	handler(300, "runtime.concatstrings", "github.com/tutorial/leftpad.LeftPad")
	handler(30, "log.(*Logger).output") // log.Printf inlined into the handler below
	p.Sample[len(p.Sample)-1].Location[1] = loc("log.Printf", "main.handler")
	handler(200, "syscall.Syscall6", "syscall.write", "os.(*File).Write", "log.(*Logger).output")
	p.Sample[len(p.Sample)-1].Location[4] = loc("log.Printf", "main.handler")
	handler(250, "syscall.Syscall6", "syscall.write", "net.(*conn).Write",
		"github.com/cactus/go-statsd-client/statsd.(*Client).Inc")
	sample(700, loc("syscall.Syscall6"), loc("syscall.read"), loc("net.(*conn).Read"), loc("net/http.(*conn).serve"), loc("runtime.goexit"))
	for i, name := range []string{"runtime.scanobject", "runtime.mallocgc", "runtime.memmove", "runtime.findRunnable",
		"runtime.futex", "runtime.usleep", "runtime.epollwait", "runtime.greyobject", "runtime.markBits", "runtime.heapBitsSetType",
		"runtime.gcDrain", "runtime.schedule", "runtime.park_m", "runtime.mcall", "runtime.bgsweep", "runtime.sweepone"} {
		sample(int64(400+10*i), loc(name), loc("runtime.gcBgMarkWorker"), loc("runtime.goexit"))
	}
	return p
}

// TestOwnShowsTheTutorialsCulprits checks the "your code" view on the
// tutorial's profile: the top by cum (20 rows) misses the logging, the
// own view lists leftpad, the StatsD client and the logging call, with
// pprof's values for the target's functions.
func TestOwnShowsTheTutorialsCulprits(t *testing.T) {
	p := tutorial()
	cum := Top(p, 20, ByCum)
	if slices.ContainsFunc(names(&cum), func(n string) bool { return strings.HasPrefix(n, "log.") }) {
		t.Fatalf("fixture: the logging is already in the top 20 by cum: %q", names(&cum))
	}
	own := Own(p, 20)
	got := map[string]stats.ProfileFunction{}
	for _, f := range own.Functions {
		got[f.Name] = f
	}
	for _, tc := range []struct {
		name      string
		flat, cum int64 // ms
		callee    bool
	}{
		{"main.handler", 0, 1680, false},
		{"github.com/tutorial/leftpad.LeftPad", 900, 1200, false},
		{"github.com/cactus/go-statsd-client/statsd.(*Client).Inc", 0, 250, false},
		{"log.Printf", 0, 230, true}, // inlined: the callee of main.handler at the same address
		{"runtime.concatstrings", 300, 300, true},
		{"net.(*conn).Write", 0, 250, true},
	} {
		f, ok := got[tc.name]
		if !ok || f.Flat != tc.flat*1e6 || f.Cum != tc.cum*1e6 || f.Callee != tc.callee {
			t.Errorf("%s: got %+v (present %v), want flat %dms cum %dms callee %v", tc.name, f, ok, tc.flat, tc.cum, tc.callee)
		}
	}
	for _, f := range own.Functions {
		if f.Callee == isOwn(f.Name) {
			t.Errorf("row %+v: callee %v, but isOwn %v", f.Name, f.Callee, isOwn(f.Name))
		}
		if strings.HasPrefix(f.Name, "net/http.") || strings.HasPrefix(f.Name, "runtime.gc") {
			t.Errorf("the view lists %s, which neither is nor is called by the target's code", f.Name)
		}
	}
	if own.Total != cum.Total {
		t.Errorf("total %d, the top's %d", own.Total, cum.Total)
	}
	ownMatchesPprof(t, &own, writeTemp(t, p))
}

// ownMatchesPprof checks that the target's own rows of an own view carry
// the values `go tool pprof -top -cum` prints for file.
func ownMatchesPprof(t *testing.T, own *stats.ProfileTop, file string) {
	t.Helper()
	rows := pprofTop(t, file, true)
	for _, o := range own.Functions {
		if o.Callee {
			continue
		}
		i := slices.IndexFunc(rows, func(r pprofRow) bool { return r.name == o.Name })
		if i < 0 || abs64f(float64(o.Cum)-rows[i].cum) > rows[i].cumTol || abs64f(float64(o.Flat)-rows[i].flat) > rows[i].flatTol {
			t.Errorf("%s: gb flat %d cum %d; pprof %+v", o.Name, o.Flat, o.Cum, rows[max(i, 0)])
		}
	}
}

func abs64f(v float64) float64 { return max(v, -v) }

func TestIsOwn(t *testing.T) {
	for name, want := range map[string]bool{
		"main.main":                                            true,
		"main.(*server).handle.func1":                          true,
		"github.com/a/b.(*T).M":                                true,
		"example/handlers.Serve":                               true, // a module path without a dot
		"golang.org/x/net/http2.(*Framer).Read":                true, // a dependency, not the standard library
		"runtime.mallocgc":                                     false,
		"net/http.(*conn).serve":                               false,
		"log.(*Logger).output":                                 false,
		"vendor/golang.org/x/net/http2/hpack.(*Decoder).Write": false,
		"internal/poll.(*FD).Write":                            false,
		"slices.SortFunc[go.shape.[]github.com/a/b.T,go.shape.github.com/a/b.T]": false,
		"github.com/a/b.Map[go.shape.int]":                                       true,
		"type:.eq.main.T":                                                        false,
		"0x45ab10":                                                               false,
		"?":                                                                      false,
	} {
		if got := isOwn(name); got != want {
			t.Errorf("isOwn(%q) = %v, want %v", name, got, want)
		}
	}
}

// TestOwnOnLeftpad captures gb's test server under /leftpad: the view
// names leftpad and its handler, and the library calls they make, and
// nothing else from the runtime or the standard library.
func TestOwnOnLeftpad(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's C frames make pprof re-symbolise the profile")
	}
	srv := testsupport.Server(t, testserver.Options{})
	sp, dir := capture(t, srv, "/leftpad?str=x&len=2000&chr=0", 1200*time.Millisecond, CPU, Allocs)
	if sp.CPU == nil {
		t.Fatalf("no CPU profile: %q", sp.Notes)
	}
	own := &sp.CPU.Own
	ownMatchesPprof(t, own, filepath.Join(dir, "cpu.pb.gz"))
	if !hasLeftpad(own) || !slices.ContainsFunc(names(own), func(n string) bool { return strings.HasSuffix(n, "testserver.(*Server).serveLeftpad") }) {
		t.Errorf("leftpad or its handler missing from the own view: %q", names(own))
	}
	callee := false
	for _, f := range own.Functions {
		callee = callee || f.Callee
		if f.Callee == isOwn(f.Name) {
			t.Errorf("row %s: callee %v", f.Name, f.Callee)
		}
	}
	if !callee || len(own.Functions) > 2*10 {
		t.Errorf("%d rows, a callee among them %v: %q", len(own.Functions), callee, names(own))
	}
	if sp.AllocObjects <= 0 || sp.Runtime == nil || sp.Runtime.AllocObjects <= 0 {
		t.Errorf("objects: profile %d, memstats %+v", sp.AllocObjects, sp.Runtime)
	}
}
