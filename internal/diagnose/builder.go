package diagnose

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"github.com/gb-bench/gb/stats"
	pprof "github.com/google/pprof/profile"
)

// Builder collects the summaries of a capture's profiles. The zero value
// is not usable: call New. Its methods keep no profile.
type Builder struct {
	requests int64
	kinds    []string
	cpu      *cpuSplit
	scale    float64 // CPU profile ns → ns over the whole load (Load ÷ Covered)
	rt       *stats.ServerRuntime
	allocs   *allocSummary
	waits    map[string][]stats.DiagnosisWait // by kind
	waitSum  map[string]int64                 // user code's wait by kind, ns
	emptied  map[string]bool                  // kind captured with no samples
	gor      *stats.DiagnosisGoroutines
	sched    *stats.DiagnosisScheduling
	traceErr string // why the trace gave no analysis
}

// New starts a diagnosis of a load of requests responses for which the
// kinds were asked ("cpu", "allocs", ...).
func New(requests int64, kinds []string) *Builder {
	return &Builder{requests: requests, kinds: kinds, waits: map[string][]stats.DiagnosisWait{},
		waitSum: map[string]int64{}, emptied: map[string]bool{}}
}

// CPU takes the merged CPU profile; covered is the part of the load's
// wall time load the windows covered (stats.ServerCPU), to scale the
// sampled time to the whole load as the profile section's per request
// does. A nil p is ignored.
func (b *Builder) CPU(p *pprof.Profile, load, covered time.Duration) {
	if p == nil || covered <= 0 {
		return
	}
	s := splitCPU(p)
	b.cpu = &s
	b.scale = float64(load) / float64(covered)
}

// Runtime takes the memstats delta over the load (nil: no expvar).
func (b *Builder) Runtime(rt *stats.ServerRuntime) { b.rt = rt }

// Delta takes the delta over the load of a heap, allocs, block or mutex
// profile; other kinds and a nil p are ignored.
func (b *Builder) Delta(kind string, p *pprof.Profile) {
	if p == nil {
		return
	}
	switch kind {
	case "allocs":
		a := summariseAllocs(p)
		b.allocs = &a
	case "mutex", "block":
		b.waits[kind], b.waitSum[kind] = waits(p, kind, b.requests)
		if len(p.Sample) == 0 {
			b.emptied[kind] = true
		}
	}
}

// Goroutines takes the goroutine profiles before, during and after the
// load; any may be nil (not captured).
func (b *Builder) Goroutines(before, during, after *pprof.Profile) {
	if before == nil && during == nil && after == nil {
		return
	}
	b.gor = goroutines(before, during, after, b.requests)
}

// Trace takes the analysis of the execution trace (Scheduling) of a load
// that lasted load, and sets its per-request parts: the trace's
// responses are estimated as the load's × the share of the load the
// trace covered. A nil s with a non-empty why says why there is none.
func (b *Builder) Trace(s *stats.DiagnosisScheduling, load time.Duration, why string) {
	if s == nil {
		b.traceErr = why
		return
	}
	s.RequestWait, s.Starving = -1, -1
	if b.requests > 0 && load > 0 && s.Traced > 0 {
		n := float64(b.requests) * min(float64(s.Traced)/float64(load), 1)
		s.RequestWait = time.Duration(float64(s.ServingWait) / max(n, 1))
		s.Starving = time.Duration(float64(s.RequestWait) * s.OtherShare)
	}
	b.sched = s
}

// Done ranks the summaries into the diagnosis.
func (b *Builder) Done() *stats.Diagnosis {
	d := &stats.Diagnosis{}
	n := float64(max(b.requests, 1))
	var memCPU time.Duration
	if b.cpu != nil && b.cpu.total > 0 {
		d.CPU = b.cpuPart(n)
		for _, c := range d.CPU.Classes {
			if c.Class == GC || c.Class == Alloc {
				memCPU += c.PerRequest
			}
		}
	}
	d.GC = b.gcPart(n)
	for _, k := range []string{"mutex", "block"} {
		d.Contention = append(d.Contention, b.waits[k]...)
	}
	d.Goroutines = b.gor
	d.Scheduling = b.sched
	d.Missing = b.missingParts()
	d.Bound, d.Verdict = b.verdict(d, memCPU)
	return d
}

// cpuPart is the CPU split per request, largest first.
func (b *Builder) cpuPart(n float64) *stats.DiagnosisCPU {
	s := b.cpu
	out := &stats.DiagnosisCPU{PerRequest: time.Duration(float64(s.total) * b.scale / n)}
	for class, v := range s.by {
		out.Classes = append(out.Classes, stats.CPUClass{Class: class, PerRequest: time.Duration(float64(v) * b.scale / n),
			Share: float64(v) / float64(s.total), Top: clean(s.topOf(class))})
	}
	slices.SortFunc(out.Classes, func(a, c stats.CPUClass) int {
		return cmp.Or(cmp.Compare(c.Share, a.Share), cmp.Compare(a.Class, c.Class))
	})
	return out
}

// gcLarge is the share of the CPU in GC and allocation from which the
// diagnosis lists the allocation sites.
const gcLarge = 0.2

// gcPart is what the server allocated per request and GC's CPU share;
// nil with neither memstats nor an allocs profile.
func (b *Builder) gcPart(n float64) *stats.DiagnosisGC {
	g := &stats.DiagnosisGC{CyclesPer1000: -1, CPUShare: -1}
	switch {
	case b.rt != nil:
		g.Source = "memstats"
		g.BytesPerRequest = float64(b.rt.AllocBytes) / n
		g.ObjectsPerRequest = float64(b.rt.AllocObjects) / n
		g.CyclesPer1000 = float64(b.rt.GCCycles) * 1000 / n
		g.MaxPause = b.rt.GCMaxPause
	case b.allocs != nil:
		g.Source = "allocs_profile"
		g.BytesPerRequest = float64(b.allocs.bytes) / n
		g.ObjectsPerRequest = float64(b.allocs.objects) / n
	default:
		return nil
	}
	if b.cpu != nil && b.cpu.total > 0 {
		g.CPUShare = float64(b.cpu.by[GC]+b.cpu.by[Alloc]) / float64(b.cpu.total)
	}
	if b.allocs != nil && (g.CPUShare >= gcLarge || g.CPUShare < 0) {
		g.Sites = b.allocs.sites(n)
	}
	return g
}

// missingParts says what the diagnosis lacks and how to add it.
func (b *Builder) missingParts() []string {
	var out []string
	asked := func(k string) bool { return slices.Contains(b.kinds, k) }
	if !asked("cpu") {
		out = append(out, "cpu: not captured: add --profile=cpu for the CPU split")
	} else if b.cpu == nil || b.cpu.total == 0 {
		out = append(out, "cpu: no CPU samples during the load (see the profile notes)")
	}
	if b.rt == nil {
		out = append(out, `memstats: no expvar: add import _ "expvar" to the server for exact allocation and GC counts`)
	}
	if b.emptied["mutex"] {
		out = append(out, "mutex: no contention recorded: the server must call runtime.SetMutexProfileFraction(5) (or accept that it has none)")
	}
	if b.emptied["block"] {
		out = append(out, "block: no blocking recorded: the server must call runtime.SetBlockProfileRate(10000) (or accept that it has none)")
	}
	if !asked("mutex") && !asked("block") {
		out = append(out, "contention: not captured: add mutex,block to --profile (the server must set their rates)")
	}
	if !asked("goroutine") {
		out = append(out, "goroutines: not captured: add goroutine to --profile to check for leaks")
	}
	switch {
	case !asked("trace"):
		out = append(out, "scheduling: not captured: add trace to --profile for the scheduler's waits and stop-the-world pauses")
	case b.sched == nil:
		out = append(out, "scheduling: "+cmp.Or(b.traceErr, "no execution trace was captured (see the profile notes)"))
	case b.sched.Truncated != "":
		out = append(out, "scheduling: "+b.sched.Truncated)
	}
	return out
}

// verdict names the bound: a goroutine leak first (a defect, whatever it
// costs now), else the largest cost per request among the CPU classes
// (GC and allocation together), the user code's waits, and the time
// requests waited for a P because the server's other goroutines held
// them (Scheduling.Starving: a request's wait for a CPU, in the share of
// the running time that went to goroutines that neither serve requests
// nor are the runtime's; a server busy with its requests alone queues
// for CPU, and then its CPU per request is what to cut).
func (b *Builder) verdict(d *stats.Diagnosis, memCPU time.Duration) (string, string) {
	if g := d.Goroutines; g != nil && g.Leak {
		where := ""
		if len(g.Grew) > 0 {
			where = ", most of them in " + g.Grew[0].Stack
		}
		return "goroutine_leak", fmt.Sprintf("possible goroutine leak: %d goroutines before the load, %d after%s; find what they wait for and make it end",
			g.Before, g.After, where)
	}
	type cand struct {
		bound string
		per   time.Duration
		say   string
	}
	var cs []cand
	if d.CPU != nil {
		for _, c := range d.CPU.Classes {
			if c.Class == GC || c.Class == Alloc || c.Class == Profiling {
				continue
			}
			cs = append(cs, cand{c.Class, c.PerRequest, cpuAdvice(c)})
		}
		if memCPU > 0 {
			cs = append(cs, cand{GC, memCPU, gcAdvice(d, memCPU)})
		}
	}
	if w := b.topWait(); w != nil {
		cs = append(cs, cand{"contention", w.PerRequest, fmt.Sprintf(
			"lock and channel waits: the server's code waits %s per request in %s (%s profile); hold the lock for less time or shard it",
			us(w.PerRequest), w.Site, w.Kind)})
	}
	if s := d.Scheduling; s != nil && s.Starving > 0 {
		cs = append(cs, cand{"scheduling", s.Starving, schedAdvice(d)})
	}
	if len(cs) == 0 {
		if d.Scheduling != nil {
			return "", "nothing to rank: no CPU, contention or goroutine profile was captured, and the trace shows no request waiting for a P behind other goroutines"
		}
		return "", "nothing to rank: no CPU, contention or goroutine profile was captured"
	}
	slices.SortStableFunc(cs, func(a, c cand) int { return cmp.Compare(c.per, a.per) })
	return cs[0].bound, cs[0].say
}

// topWait is the user code's largest wait site of the kind whose total
// is largest (a goroutine waiting on a sync.Mutex shows in both the block
// and the mutex profile: the larger one counts, never their sum).
func (b *Builder) topWait() *stats.DiagnosisWait {
	kind := "mutex"
	if b.waitSum["block"] > b.waitSum["mutex"] {
		kind = "block"
	}
	ws := b.waits[kind]
	if len(ws) == 0 {
		return nil
	}
	w := ws[0]
	w.PerRequest = time.Duration(float64(b.waitSum[kind]) / float64(max(b.requests, 1)))
	return &w
}

// schedAdvice is the sentence for requests starved of a P by the
// server's other goroutines; the busiest code is the largest CPU class's
// top function.
func schedAdvice(d *stats.Diagnosis) string {
	s := d.Scheduling
	say := fmt.Sprintf("scheduling: requests wait %s per request for a P behind the server's other goroutines "+
		"(which ran %.0f pct of the time; every P was busy while goroutines waited %.0f pct of the time; p99 wait for a P %s)",
		us(s.Starving), s.OtherShare*100, s.Starved*100, us(s.WaitP99))
	if d.CPU != nil {
		for _, c := range d.CPU.Classes {
			if c.Class == User && c.Top != "" {
				say += ", most CPU in " + c.Top
				break
			}
		}
	}
	return say + "; run fewer busy goroutines than GOMAXPROCS (a bounded worker pool) or make them yield"
}

// cpuAdvice is the sentence for a CPU class that bounds the server.
func cpuAdvice(c stats.CPUClass) string {
	head := fmt.Sprintf("%s of CPU per request (%.0f pct of the server's CPU)", us(c.PerRequest), c.Share*100)
	switch c.Class {
	case User:
		return fmt.Sprintf("your code's CPU: %s, most in %s; make that code do less per request", head, c.Top)
	case HTTP:
		return fmt.Sprintf("the HTTP stack's CPU: %s, most in %s; reuse connections (keep-alive), write fewer, larger responses", head, c.Top)
	case Scheduler:
		return fmt.Sprintf("the scheduler: %s; fewer goroutine hand-offs per request (channels, goroutines per request)", head)
	case Syscalls:
		return fmt.Sprintf("syscalls and network: %s, most in %s; batch writes, buffer output, keep connections alive", head, c.Top)
	case Runtime:
		return fmt.Sprintf("the Go runtime: %s, most in %s; open the CPU profile", head, c.Top)
	}
	return fmt.Sprintf("standard-library code: %s, most in %s; open the CPU profile", head, c.Top)
}

// gcAdvice is the sentence for GC and allocation bounding the server.
func gcAdvice(d *stats.Diagnosis, per time.Duration) string {
	s := fmt.Sprintf("GC and allocation: %s of CPU per request", us(per))
	if g := d.GC; g != nil {
		if g.CPUShare >= 0 {
			s += fmt.Sprintf(" (%.0f pct of the server's CPU)", g.CPUShare*100)
		}
		s += fmt.Sprintf(", %.0f B in %.1f objects allocated per request", g.BytesPerRequest, g.ObjectsPerRequest)
		if len(g.Sites) > 0 {
			s += ", most by " + g.Sites[0].Function
		}
	}
	return s + "; allocate less per request (reuse buffers, sync.Pool, fewer pointers)"
}

// us formats d in microseconds, as the diagnosis speaks.
func us(d time.Duration) string {
	v := float64(d) / 1e3
	switch {
	case v >= 100:
		return fmt.Sprintf("%.0fus", v)
	case v >= 10:
		return fmt.Sprintf("%.1fus", v)
	}
	return fmt.Sprintf("%.2fus", v)
}
