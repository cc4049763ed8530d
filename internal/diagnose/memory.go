package diagnose

import (
	"cmp"
	"slices"

	"github.com/gb-bench/gb/stats"
	pprof "github.com/google/pprof/profile"
)

// maxSites is how many allocation sites, wait sites and grown stacks a
// diagnosis lists.
const maxSites = 3

// allocSummary is an allocs delta profile's totals and its bytes by the
// innermost function of the server's own code.
type allocSummary struct {
	bytes, objects int64
	byOwn          map[string]int64
}

// summariseAllocs sums p's alloc_space and alloc_objects.
func summariseAllocs(p *pprof.Profile) allocSummary {
	a := allocSummary{byOwn: map[string]int64{}}
	bi, oi := sampleIndex(p, "alloc_space"), sampleIndex(p, "alloc_objects")
	if bi < 0 || p.SampleType[bi].Type != "alloc_space" {
		return a
	}
	for _, s := range p.Sample {
		if bi >= len(s.Value) || s.Value[bi] <= 0 {
			continue
		}
		a.bytes += s.Value[bi]
		if oi >= 0 && oi < len(s.Value) && p.SampleType[oi].Type == "alloc_objects" {
			a.objects += max(s.Value[oi], 0)
		}
		if st := stack(s); profiling(st) == "" {
			if f := innermostOwn(st); f != "" {
				a.byOwn[f] += s.Value[bi]
			}
		}
	}
	return a
}

// sites returns the user code's largest allocation sites.
func (a allocSummary) sites(n float64) []stats.AllocSite {
	var out []stats.AllocSite
	for f, v := range a.byOwn {
		out = append(out, stats.AllocSite{Function: clean(f), BytesPerRequest: float64(v) / n,
			Share: float64(v) / float64(max(a.bytes, 1))})
	}
	slices.SortFunc(out, func(x, y stats.AllocSite) int {
		return cmp.Or(cmp.Compare(y.BytesPerRequest, x.BytesPerRequest), cmp.Compare(x.Function, y.Function))
	})
	return out[:min(len(out), maxSites)]
}
