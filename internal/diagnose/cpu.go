package diagnose

import (
	"strings"

	pprof "github.com/google/pprof/profile"
)

// The classes of CPU time (stats.CPUClass.Class).
const (
	User      = "user_cpu"
	HTTP      = "http_stack"
	GC        = "gc"
	Alloc     = "alloc"
	Scheduler = "scheduler"
	Syscalls  = "syscalls"
	Runtime   = "runtime"
	Other     = "other"
	// Profiling is the server answering gb's own profile requests
	// (net/http/pprof, runtime/pprof on the stack): shown, never ranked.
	Profiling = "profiling"
)

// gcRoots mark a GC sample anywhere on the stack.
var gcRoots = []string{"runtime.gcBgMarkWorker", "runtime.gcAssistAlloc", "runtime.gcAssistAlloc1",
	"runtime.bgsweep", "runtime.bgscavenge", "runtime.gcMarkTermination", "runtime.gcMarkDone",
	"runtime.gcStart", "runtime.markroot", "runtime.gcDrain", "runtime.gcDrainN"}

// schedFuncs mark a scheduler sample among the runtime frames.
var schedFuncs = []string{"runtime.schedule", "runtime.findRunnable", "runtime.park_m", "runtime.gopark",
	"runtime.goschedImpl", "runtime.gosched_m", "runtime.mcall", "runtime.stealWork", "runtime.runqgrab",
	"runtime.wakep", "runtime.startm", "runtime.stopm", "runtime.goexit0", "runtime.newproc",
	"runtime.ready", "runtime.goready", "runtime.notewakeup", "runtime.notesleep", "runtime.sysmon",
	"runtime.exitsyscall", "runtime.entersyscall", "runtime.reentersyscall", "runtime.handoffp"}

// syscallPkgs are the packages whose leaf-most frame makes a syscall sample.
var syscallPkgs = []string{"syscall", "internal/poll", "internal/syscall/unix", "internal/runtime/syscall",
	"golang.org/x/sys/unix", "os"}

// httpPkgs are the standard library's HTTP path.
var httpPkgs = []string{"net/http", "net/textproto", "net", "bufio", "mime", "net/url", "crypto/tls",
	"vendor/golang.org/x/net/http2", "net/http/internal", "vendor/golang.org/x/net/http/httpguts",
	"vendor/golang.org/x/net/http2/hpack", "crypto", "vendor/golang.org/x/crypto", "compress/gzip"}

// classify returns the class of a CPU sample with stack st (innermost
// first) and the function that decided it; see the package comment.
func classify(st []string) (class, by string) {
	if len(st) == 0 {
		return Runtime, ""
	}
	if f := profiling(st); f != "" {
		return Profiling, f
	}
	for _, f := range st {
		if hasAny(f, gcRoots) {
			return GC, f
		}
	}
	i := 0
	for i < len(st) && isRuntime(st[i]) {
		i++
	}
	rt := st[:i]
	for _, is := range []struct {
		class string
		match func(f string) bool
	}{
		{Alloc, func(f string) bool { return strings.HasPrefix(f, "runtime.mallocgc") }},
		{Scheduler, func(f string) bool { return hasAny(f, schedFuncs) }},
		{Syscalls, func(f string) bool { return strings.HasPrefix(f, "runtime.netpoll") }},
	} {
		for _, f := range rt {
			if is.match(f) {
				return is.class, f
			}
		}
	}
	if i == len(st) {
		return Runtime, st[0]
	}
	leaf := st[i]
	pkg := pkgPath(leaf)
	switch {
	case inPkgs(pkg, syscallPkgs):
		if own := innermostOwn(st[i:]); own != "" {
			return Syscalls, own // the call site to change
		}
		return Syscalls, leaf
	case IsOwn(leaf):
		return User, leaf
	case inPkgs(pkg, httpPkgs) && !ownAbove(st[i:]):
		return HTTP, leaf
	case ownAbove(st[i:]):
		return User, innermostOwn(st[i:])
	case hasPkg(st[i:], "net/http"):
		return HTTP, leaf
	}
	return Other, leaf
}

// ownAbove reports whether the server's own code is on the stack.
func ownAbove(st []string) bool { return innermostOwn(st) != "" }

// hasAny reports whether f is one of names.
func hasAny(f string, names []string) bool {
	for _, n := range names {
		if f == n {
			return true
		}
	}
	return false
}

// inPkgs reports whether pkg is one of pkgs or below one of them.
func inPkgs(pkg string, pkgs []string) bool {
	for _, p := range pkgs {
		if pkg == p || strings.HasPrefix(pkg, p+"/") {
			return true
		}
	}
	return false
}

// hasPkg reports whether a function of package pkg is on the stack.
func hasPkg(st []string, pkg string) bool {
	for _, f := range st {
		if pkgPath(f) == pkg {
			return true
		}
	}
	return false
}

// cpuSplit is the CPU profile summed by class.
type cpuSplit struct {
	total int64
	by    map[string]int64
	top   map[string]map[string]int64 // class → deciding function → value
}

// splitCPU sums p's CPU samples (the nanoseconds type) by class.
func splitCPU(p *pprof.Profile) cpuSplit {
	s := cpuSplit{by: map[string]int64{}, top: map[string]map[string]int64{}}
	idx := sampleIndex(p, "cpu")
	if idx < 0 {
		return s
	}
	for _, smp := range p.Sample {
		if idx >= len(smp.Value) || smp.Value[idx] <= 0 {
			continue
		}
		v := smp.Value[idx]
		class, by := classify(stack(smp))
		s.total += v
		s.by[class] += v
		if s.top[class] == nil {
			s.top[class] = map[string]int64{}
		}
		s.top[class][by] += v
	}
	return s
}

// topOf returns the function that decided most of class.
func (s cpuSplit) topOf(class string) string {
	best, bv := "", int64(0)
	for f, v := range s.top[class] {
		if v > bv || v == bv && f < best {
			best, bv = f, v
		}
	}
	return best
}

// profiling returns the outermost frame of net/http/pprof or runtime/pprof
// on st (the server answering gb's profile requests), or "".
func profiling(st []string) string {
	for i := len(st) - 1; i >= 0; i-- {
		if pkg := pkgPath(st[i]); pkg == "net/http/pprof" || pkg == "runtime/pprof" {
			return st[i]
		}
	}
	return ""
}
