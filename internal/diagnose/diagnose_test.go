package diagnose

import (
	"slices"
	"strings"
	"testing"
	"time"

	pprof "github.com/google/pprof/profile"
)

// build makes a profile of one sample type from stacks (innermost
// first) and their values.
func build(typ, unit string, samples map[string]int64) *pprof.Profile {
	p := &pprof.Profile{SampleType: []*pprof.ValueType{{Type: typ, Unit: unit}}}
	funcs := map[string]*pprof.Function{}
	for st, v := range samples {
		var locs []*pprof.Location
		for _, name := range strings.Split(st, ";") {
			f := funcs[name]
			if f == nil {
				f = &pprof.Function{ID: uint64(len(funcs) + 1), Name: name}
				funcs[name] = f
				p.Function = append(p.Function, f)
			}
			l := &pprof.Location{ID: uint64(len(p.Location) + 1), Line: []pprof.Line{{Function: f}}}
			p.Location = append(p.Location, l)
			locs = append(locs, l)
		}
		p.Sample = append(p.Sample, &pprof.Sample{Location: locs, Value: []int64{v}})
	}
	return p
}

func TestClassify(t *testing.T) {
	for _, tc := range []struct{ stack, class, by string }{
		{"main.burn;main.handler;net/http.HandlerFunc.ServeHTTP;net/http.(*conn).serve", User, "main.burn"},
		{"runtime.memmove;bufio.(*Writer).Write;net/http.(*response).Write;net/http.(*conn).serve", HTTP, "bufio.(*Writer).Write"},
		{"runtime.memmove;runtime.concatstrings;example.com/app.pad;net/http.(*conn).serve", User, "example.com/app.pad"},
		{"strconv.Itoa;example.com/app.h;net/http.(*conn).serve", User, "example.com/app.h"},
		{"encoding/json.Marshal;net/http.(*conn).serve", HTTP, "encoding/json.Marshal"},
		{"encoding/json.Marshal;testing.tRunner", Other, "encoding/json.Marshal"},
		{"runtime.scanobject;runtime.gcDrain;runtime.gcBgMarkWorker", GC, "runtime.gcDrain"},
		{"runtime.memclrNoHeapPointers;runtime.mallocgc;runtime.newobject;main.h", Alloc, "runtime.mallocgc"},
		{"runtime.scanobject;runtime.gcAssistAlloc1;runtime.mallocgc;main.h", GC, "runtime.gcAssistAlloc1"},
		{"runtime.runqgrab;runtime.findRunnable;runtime.schedule;runtime.park_m;runtime.mcall", Scheduler, "runtime.runqgrab"},
		{"runtime.epollwait;runtime.netpoll;runtime.findRunnable", Scheduler, "runtime.findRunnable"},
		{"runtime.epollwait;runtime.netpoll;runtime.startTheWorld", Syscalls, "runtime.netpoll"},
		{"internal/runtime/syscall.Syscall6;syscall.RawSyscall6;syscall.write;internal/poll.(*FD).Write;net.(*conn).Write", Syscalls, "syscall.RawSyscall6"},
		{"syscall.write;os.(*File).Write;example.com/app.logLine;example.com/app.handler", Syscalls, "example.com/app.logLine"},
		{"runtime.futex;runtime.usleep", Runtime, "runtime.futex"},
		{"runtime.mallocgc;compress/flate.(*compressor).write;runtime/pprof.(*profileBuilder).flush;net/http/pprof.Profile;main.init.func1", Profiling, "net/http/pprof.Profile"},
		{"aeshashbody;runtime.mapaccess2_faststr;net/textproto.MIMEHeader.Get;net/http.(*conn).serve", HTTP, "net/textproto.MIMEHeader.Get"},
		{"", Runtime, ""},
	} {
		var st []string
		if tc.stack != "" {
			st = strings.Split(tc.stack, ";")
		}
		if class, by := classify(st); class != tc.class || by != tc.by {
			t.Errorf("%s: %s by %s, want %s by %s", tc.stack, class, by, tc.class, tc.by)
		}
	}
}

const ms = int64(time.Millisecond)

// serveStack is the HTTP server's stack below a handler.
const serveStack = ";example.com/app.handler;net/http.HandlerFunc.ServeHTTP;net/http.(*conn).serve"

func TestVerdictUserCPU(t *testing.T) {
	b := New(1000, []string{"cpu"})
	b.CPU(build("cpu", "nanoseconds", map[string]int64{
		"example.com/app.burn" + serveStack:                         900 * ms,
		"syscall.write;internal/poll.(*FD).Write;net.(*conn).Write": 60 * ms,
		"runtime.scanobject;runtime.gcDrain;runtime.gcBgMarkWorker": 40 * ms,
	}), 2*time.Second, time.Second)
	d := b.Done()
	if d.Bound != User || !strings.Contains(d.Verdict, "example.com/app.burn") {
		t.Errorf("bound %q: %s", d.Bound, d.Verdict)
	}
	// 1s of samples over half the load, 1000 requests: 2ms per request.
	if d.CPU.PerRequest != 2*time.Millisecond || d.CPU.Classes[0].Class != User || d.CPU.Classes[0].PerRequest != 1800*time.Microsecond {
		t.Errorf("cpu %+v", d.CPU)
	}
	if d.GC != nil {
		t.Errorf("gc without memstats or allocs: %+v", d.GC)
	}
	for _, want := range []string{"memstats: no expvar", "contention: not captured", "goroutines: not captured"} {
		if !slices.ContainsFunc(d.Missing, func(m string) bool { return strings.HasPrefix(m, want) }) {
			t.Errorf("missing lacks %q: %q", want, d.Missing)
		}
	}
}

// TestVerdictContention: a wait of the user's code larger than any CPU
// class per request bounds the server; waits without user code do not
// count, and the mutex and block profiles' views of one wait are not
// added.
func TestVerdictContention(t *testing.T) {
	b := New(100, []string{"cpu", "mutex", "block"})
	b.CPU(build("cpu", "nanoseconds", map[string]int64{"example.com/app.burn" + serveStack: 10 * ms}), time.Second, time.Second)
	mutex := build("delay", "nanoseconds", map[string]int64{
		"sync.(*Mutex).Unlock;example.com/app.hold" + serveStack: 700 * ms,
		"sync.(*Mutex).Unlock;net/http.(*conn).serve":            900 * ms,
	})
	mutex.SampleType = append([]*pprof.ValueType{{Type: "contentions", Unit: "count"}}, mutex.SampleType...)
	for _, s := range mutex.Sample {
		s.Value = []int64{7, s.Value[0]}
	}
	b.Delta("mutex", mutex)
	b.Delta("block", build("delay", "nanoseconds", map[string]int64{"sync.(*Mutex).Lock;example.com/app.hold" + serveStack: 600 * ms}))
	d := b.Done()
	if d.Bound != "contention" || !strings.Contains(d.Verdict, "example.com/app.hold") || !strings.Contains(d.Verdict, "7000us per request") {
		t.Errorf("bound %q: %s", d.Bound, d.Verdict)
	}
	if len(d.Contention) != 2 || d.Contention[0].Kind != "mutex" || d.Contention[0].Events != 7 {
		t.Errorf("contention %+v", d.Contention)
	}
}

func TestVerdictGC(t *testing.T) {
	b := New(10, []string{"cpu", "allocs"})
	b.CPU(build("cpu", "nanoseconds", map[string]int64{
		"runtime.memclrNoHeapPointers;runtime.mallocgc;runtime.newobject;example.com/app.garbage" + serveStack: 50 * ms,
		"runtime.scanobject;runtime.gcDrain;runtime.gcBgMarkWorker":                                            30 * ms,
		"example.com/app.garbage" + serveStack:                                                                 40 * ms,
	}), time.Second, time.Second)
	allocs := build("alloc_space", "bytes", map[string]int64{
		"runtime.mallocgc;runtime.newobject;example.com/app.garbage" + serveStack: 9000,
		"runtime.mallocgc;net/http.(*conn).serve":                                 1000,
	})
	b.Delta("allocs", allocs)
	d := b.Done()
	if d.Bound != GC || !strings.Contains(d.Verdict, "most by example.com/app.garbage") {
		t.Errorf("bound %q: %s", d.Bound, d.Verdict)
	}
	g := d.GC
	if g == nil || g.Source != "allocs_profile" || g.BytesPerRequest != 1000 || g.CyclesPer1000 != -1 ||
		len(g.Sites) != 1 || g.Sites[0].Share != 0.9 {
		t.Errorf("gc %+v", g)
	}
}

// goroutineProfile has n goroutines in each stack.
func goroutineProfile(stacks map[string]int64) *pprof.Profile {
	return build("goroutine", "count", stacks)
}

func TestGoroutineLeak(t *testing.T) {
	idle := map[string]int64{"runtime.gopark;net/http.(*Server).Serve": 1, "runtime.gopark;net/http.(*conn).serve": 8}
	leaked := map[string]int64{"runtime.gopark;runtime.chanrecv1;example.com/app.wait;example.com/app.handler.gowrap1": 300}
	grown := map[string]int64{}
	for k, v := range idle {
		grown[k] = v
	}
	for k, v := range leaked {
		grown[k] = v
	}
	for _, tc := range []struct {
		name     string
		after    map[string]int64
		requests int64
		leak     bool
	}{
		{"leak", grown, 1000, true},
		{"few per request", grown, 10000, false}, // 300 of 10000 requests: under one per 10
		{"back down", idle, 1000, false},         // the count came back
		{"connections", map[string]int64{"runtime.gopark;net/http.(*conn).serve": 40}, 100, false}, // under 50
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := New(tc.requests, []string{"goroutine"})
			b.Goroutines(goroutineProfile(idle), goroutineProfile(tc.after), goroutineProfile(tc.after))
			d := b.Done()
			if d.Goroutines.Leak != tc.leak || (d.Bound == "goroutine_leak") != tc.leak {
				t.Fatalf("leak %v, bound %q, want %v: %+v", d.Goroutines.Leak, d.Bound, tc.leak, d.Goroutines)
			}
			if tc.leak && (d.Goroutines.Grew[0].Added != 300 || !strings.HasPrefix(d.Goroutines.Grew[0].Stack, "example.com/app.wait < ")) {
				t.Errorf("grew %+v", d.Goroutines.Grew)
			}
		})
	}
}

// TestNothingCaptured: no profile gives no guess, only what to add.
func TestNothingCaptured(t *testing.T) {
	d := New(100, []string{"cpu", "allocs"}).Done()
	if d.Bound != "" || !strings.HasPrefix(d.Verdict, "nothing to rank") || d.CPU != nil || d.GC != nil {
		t.Errorf("%+v", d)
	}
	if !slices.ContainsFunc(d.Missing, func(m string) bool { return strings.HasPrefix(m, "cpu: no CPU samples") }) {
		t.Errorf("missing %q", d.Missing)
	}
}

// TestHostileNames: names from the server keep no control bytes and are
// capped.
func TestHostileNames(t *testing.T) {
	b := New(1, []string{"cpu"})
	long := "example.com/app.F" + strings.Repeat("x", 1000)
	b.CPU(build("cpu", "nanoseconds", map[string]int64{"example.com/app.\x1b[2J\r\nX" + serveStack: 10, long: 20}), time.Second, time.Second)
	for _, c := range b.Done().CPU.Classes {
		if strings.ContainsAny(c.Top, "\x1b\r\n") || len(c.Top) > maxName+3 {
			t.Errorf("top %q", c.Top)
		}
	}
}

// TestKindNotServed: a mutex profile with no samples (the server never
// set the rate) says how to turn it on, and ranks no wait.
func TestKindNotServed(t *testing.T) {
	b := New(100, []string{"cpu", "mutex"})
	b.CPU(build("cpu", "nanoseconds", map[string]int64{"example.com/app.burn" + serveStack: 10 * ms}), time.Second, time.Second)
	b.Delta("mutex", build("delay", "nanoseconds", nil))
	d := b.Done()
	if d.Bound != User || len(d.Contention) != 0 ||
		!slices.ContainsFunc(d.Missing, func(m string) bool { return strings.Contains(m, "runtime.SetMutexProfileFraction") }) {
		t.Errorf("%+v", d)
	}
}
