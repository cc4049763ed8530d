package record

import "github.com/gb-bench/gb/stats"

// checkCount is a Recorder's tally of one check.
type checkCount struct{ n, fails int64 }

// Check counts one complete response checked against the run's n checks
// (n <= 64): bit i of fails set means it failed check i. The first call
// allocates the worker's table; later ones do not.
func (r *Recorder) Check(n int, fails uint64) {
	if len(r.checks) < n {
		r.checks = append(r.checks, make([]checkCount, n-len(r.checks))...)
	}
	for i := range r.checks[:n] {
		r.checks[i].n++
		r.checks[i].fails += int64(fails >> i & 1)
	}
}

// mergeChecks adds rec's tallies to the checks of r (whose expressions
// base gave).
func mergeChecks(r *stats.Result, rec *Recorder) {
	for i, c := range rec.checks {
		if i < len(r.Checks) {
			r.Checks[i].Passes += c.n - c.fails
			r.Checks[i].Fails += c.fails
		}
	}
}
