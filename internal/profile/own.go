package profile

import (
	"github.com/gb-bench/gb/internal/diagnose"
	"github.com/gb-bench/gb/stats"
	pprof "github.com/google/pprof/profile"
)

// Own returns the "your code" view of p for its default sample type:
// the first n rows by cum (as Top's ByCum orders them) of
//
//   - the functions of the target's own code: every package outside Go's
//     standard library and runtime (its main module, package main, and
//     the modules it depends on), with pprof's flat and cum values;
//   - the standard-library functions that the target's code calls
//     (Callee rows): for each, the samples in which it is the direct
//     callee of the innermost frame of the target's code, so cum is the
//     time (or bytes) the library spends on the code's behalf below it,
//     and flat the part in that function itself. A logging call
//     (log.Printf, log.(*Logger).output) shows here even when its cost
//     lies in syscalls far down the stack.
//
// Rows below pprof's -nodefraction cutoff are left out, as in Top; Total
// is the profile's total, so percentages compare with Top's.
func Own(p *pprof.Profile, n int) stats.ProfileTop {
	idx := sampleIndex(p)
	if idx < 0 {
		return stats.ProfileTop{}
	}
	rows, total, cutoff := functions(p, idx)
	top := stats.ProfileTop{SampleType: p.SampleType[idx].Type, Unit: p.SampleType[idx].Unit, Total: total}
	var own []stats.ProfileFunction
	for _, r := range rows {
		if isOwn(r.Name) {
			own = append(own, r)
		}
	}
	for name, v := range callees(p, idx) {
		if abs(v.Cum) >= cutoff && v.Cum != 0 {
			own = append(own, stats.ProfileFunction{Name: name, Flat: v.Flat, Cum: v.Cum, Callee: true})
		}
	}
	top.Functions = head(own, n, ByCum)
	return top
}

// callees sums, per standard-library function, the samples of p in which
// it is the direct callee of the innermost frame of the target's code.
func callees(p *pprof.Profile, idx int) map[string]*stats.ProfileFunction {
	out := map[string]*stats.ProfileFunction{}
	framesOf := frameCache{}.names
	var stack []string
	for _, s := range p.Sample {
		if idx >= len(s.Value) || s.Value[idx] == 0 {
			continue
		}
		stack = stack[:0]
		for _, loc := range s.Location {
			stack = append(stack, framesOf(loc)...)
		}
		for j, name := range stack { // innermost first
			if !isOwn(name) {
				continue
			}
			if j > 0 {
				c := out[stack[j-1]]
				if c == nil {
					c = &stats.ProfileFunction{}
					out[stack[j-1]] = c
				}
				c.Cum += s.Value[idx]
				if j == 1 {
					c.Flat += s.Value[idx]
				}
			}
			break
		}
	}
	return out
}

// isOwn reports whether the function named name belongs to the target's
// own code: a package outside the standard library, or package main (the
// diagnosis's rule, so that both views agree).
var isOwn = diagnose.IsOwn
