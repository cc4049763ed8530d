package diagnose

import (
	"cmp"
	"slices"
	"strings"

	"github.com/gb-bench/gb/stats"
	pprof "github.com/google/pprof/profile"
)

// Leak thresholds: the goroutines after the load exceed those before by
// at least leakMin and at least one per leakPer responses. A server's
// goroutines per connection may still be exiting when the load ends; a
// leak grows with the requests.
const (
	leakMin = 50
	leakPer = 10
)

// maxFrames is how many frames a grown stack shows.
const maxFrames = 3

// goroutines compares the counts and stacks of the goroutine profiles.
func goroutines(before, during, after *pprof.Profile, requests int64) *stats.DiagnosisGoroutines {
	g := &stats.DiagnosisGoroutines{Before: count(before), During: count(during), After: count(after)}
	if before == nil || after == nil {
		return g
	}
	grew := g.After - g.Before
	g.Leak = grew >= leakMin && grew*leakPer >= requests
	if !g.Leak {
		return g
	}
	b, a := byStack(before), byStack(after)
	for st, n := range a {
		if d := n - b[st]; d > 0 {
			g.Grew = append(g.Grew, stats.GoroutineGrowth{Stack: clean(st), Added: d})
		}
	}
	slices.SortFunc(g.Grew, func(x, y stats.GoroutineGrowth) int {
		return cmp.Or(cmp.Compare(y.Added, x.Added), cmp.Compare(x.Stack, y.Stack))
	})
	g.Grew = g.Grew[:min(len(g.Grew), maxSites)]
	return g
}

// count is a goroutine profile's goroutines; -1 for nil.
func count(p *pprof.Profile) int64 {
	if p == nil {
		return -1
	}
	var n int64
	idx := sampleIndex(p, "goroutine")
	for _, s := range p.Sample {
		if idx >= 0 && idx < len(s.Value) {
			n += max(s.Value[idx], 0)
		}
	}
	return n
}

// byStack counts a goroutine profile's goroutines by a short stack: from
// the innermost frame of the server's own code (else the innermost
// frame), maxFrames frames outwards.
func byStack(p *pprof.Profile) map[string]int64 {
	out := map[string]int64{}
	idx := sampleIndex(p, "goroutine")
	for _, s := range p.Sample {
		if idx < 0 || idx >= len(s.Value) {
			continue
		}
		if st := stack(s); profiling(st) == "" {
			out[shortStack(st)] += s.Value[idx]
		}
	}
	return out
}

// shortStack names a stack by its innermost user frame and its callers.
func shortStack(st []string) string {
	from := 0
	for i, f := range st {
		if IsOwn(f) {
			from = i
			break
		}
	}
	st = st[from:]
	return strings.Join(st[:min(len(st), maxFrames)], " < ")
}
