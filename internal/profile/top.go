package profile

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/gb-bench/gb/stats"
	pprof "github.com/google/pprof/profile"
)

// nodeFraction is `go tool pprof`'s default -nodefraction: functions whose
// cumulative value is below this share of the total are not shown.
const nodeFraction = 0.005

// maxNameLen caps a function name (from the server) in a summary.
const maxNameLen = 300

// Order is the order of a Top.
type Order int

// The orders of `go tool pprof -top` and `go tool pprof -top -cum`.
const (
	ByFlat Order = iota // |flat| descending, then name, then |cum| descending
	ByCum               // |cum| descending, then name, then |flat| descending
)

// Top returns the n first functions of p in order o, for p's default
// sample type (DefaultSampleType, else the last type, as pprof chooses),
// with the values `go tool pprof -top` (ByFlat) or `go tool pprof -top
// -cum` (ByCum) prints for p:
//
//   - flat: the sum of the sample values whose innermost frame (the first
//     line of the first location: inlined frames count as functions) is
//     the function;
//   - cum: the sum of the sample values whose stack holds the function,
//     counted once per sample however often it recurs;
//   - total: the sum of the absolute sample values, including samples
//     with an empty stack (merged CPU profiles have them), which are in
//     no function's row, so percentages are pprof's.
//
// Functions whose |cum| is below half a percent of the summed flat values
// (which leave the stackless samples out) are left out, as pprof does with
// its default -nodefraction.
func Top(p *pprof.Profile, n int, o Order) stats.ProfileTop {
	idx := sampleIndex(p)
	top := stats.ProfileTop{}
	if idx < 0 {
		return top
	}
	top.SampleType, top.Unit = p.SampleType[idx].Type, p.SampleType[idx].Unit
	rows, total, _ := functions(p, idx)
	top.Total = total
	top.Functions = head(rows, n, o)
	return top
}

// head sorts rows in order o and returns the first n, their names
// cleaned for printing.
func head(rows []stats.ProfileFunction, n int, o Order) []stats.ProfileFunction {
	cmpFlat := func(a, b stats.ProfileFunction) int { return cmp.Compare(abs(b.Flat), abs(a.Flat)) }
	cmpCum := func(a, b stats.ProfileFunction) int { return cmp.Compare(abs(b.Cum), abs(a.Cum)) }
	first, last := cmpFlat, cmpCum
	if o == ByCum {
		first, last = cmpCum, cmpFlat
	}
	slices.SortFunc(rows, func(a, b stats.ProfileFunction) int {
		return cmp.Or(first(a, b), cmp.Compare(a.Name, b.Name), last(a, b))
	})
	rows = rows[:min(n, len(rows))]
	for i := range rows {
		rows[i].Name = clean(rows[i].Name, maxNameLen)
	}
	return rows
}

// functions returns the flat and cum values of every function of p for
// sample type idx that pprof would show, the total, and the cutoff below
// which pprof hides a function (by |cum|).
func functions(p *pprof.Profile, idx int) (rows []stats.ProfileFunction, total, cutoff int64) {
	type node struct{ flat, cum int64 }
	nodes := map[string]*node{}
	at := func(name string) *node {
		nd := nodes[name]
		if nd == nil {
			nd = &node{}
			nodes[name] = nd
		}
		return nd
	}
	framesOf := frameCache{}.names
	var flatSum int64
	seen := map[string]bool{}
	for _, s := range p.Sample {
		if idx >= len(s.Value) || s.Value[idx] == 0 {
			continue
		}
		v := s.Value[idx]
		total += abs(v) // samples without a stack too, as pprof counts them
		if len(s.Location) == 0 {
			continue
		}
		clear(seen)
		for _, loc := range s.Location {
			for _, name := range framesOf(loc) {
				if !seen[name] {
					seen[name] = true
					at(name).cum += v
				}
			}
		}
		at(framesOf(s.Location[0])[0]).flat += v
		flatSum += v
	}
	cutoff = abs(int64(float64(flatSum) * nodeFraction))
	for name, nd := range nodes {
		if abs(nd.cum) >= cutoff && (nd.flat != 0 || nd.cum != 0) {
			rows = append(rows, stats.ProfileFunction{Name: name, Flat: nd.flat, Cum: nd.cum})
		}
	}
	return rows, total, cutoff
}

// frameCache holds the frame names of locations already seen.
type frameCache map[*pprof.Location][]string

// names returns loc's function names, innermost first (see frameNames).
func (c frameCache) names(loc *pprof.Location) []string {
	f, ok := c[loc]
	if !ok {
		f = frameNames(loc)
		c[loc] = f
	}
	return f
}

// sampleIndex is the sample type pprof shows by default: the profile's
// DefaultSampleType, else the last one; -1 when there is none.
func sampleIndex(p *pprof.Profile) int {
	if p.DefaultSampleType != "" {
		for i, st := range p.SampleType {
			if st.Type == p.DefaultSampleType {
				return i
			}
		}
	}
	return len(p.SampleType) - 1
}

// frameNames returns the function names of a location, innermost first;
// a location without line information is named by its address, and a
// line without a function is "?".
func frameNames(loc *pprof.Location) []string {
	if len(loc.Line) == 0 {
		return []string{fmt.Sprintf("%#x", loc.Address)}
	}
	names := make([]string, len(loc.Line))
	for i, ln := range loc.Line {
		names[i] = "?"
		if ln.Function != nil {
			names[i] = ln.Function.Name
		}
	}
	return names
}

func abs(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}
