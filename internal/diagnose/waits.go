package diagnose

import (
	"cmp"
	"slices"
	"time"

	"github.com/gb-bench/gb/stats"
	pprof "github.com/google/pprof/profile"
)

// waits sums a mutex or block delta profile's delay by the innermost
// function of the server's own code on each stack (the call site that
// waited, or for the mutex profile the one that held the lock); stacks
// without the server's code (the HTTP server's own waits) are left out.
// It returns the largest sites per request and the user code's total
// delay in nanoseconds.
func waits(p *pprof.Profile, kind string, requests int64) ([]stats.DiagnosisWait, int64) {
	di, ci := sampleIndex(p, "delay"), sampleIndex(p, "contentions")
	if di < 0 || p.SampleType[di].Type != "delay" {
		return nil, 0
	}
	type site struct{ delay, events int64 }
	by := map[string]*site{}
	var total int64
	for _, s := range p.Sample {
		if di >= len(s.Value) || s.Value[di] <= 0 {
			continue
		}
		frames := stack(s)
		f := innermostOwn(frames)
		if f == "" || profiling(frames) != "" {
			continue
		}
		st := by[f]
		if st == nil {
			st = &site{}
			by[f] = st
		}
		st.delay += s.Value[di]
		if ci >= 0 && ci < len(s.Value) && p.SampleType[ci].Type == "contentions" {
			st.events += max(s.Value[ci], 0)
		}
		total += s.Value[di]
	}
	n := float64(max(requests, 1))
	var out []stats.DiagnosisWait
	for f, st := range by {
		out = append(out, stats.DiagnosisWait{Kind: kind, Site: clean(f), PerRequest: time.Duration(float64(st.delay) / n), Events: st.events})
	}
	slices.SortFunc(out, func(a, b stats.DiagnosisWait) int {
		return cmp.Or(cmp.Compare(b.PerRequest, a.PerRequest), cmp.Compare(a.Site, b.Site))
	})
	return out[:min(len(out), maxSites)], total
}
