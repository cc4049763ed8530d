package load

import (
	"math/bits"

	"github.com/gb-bench/gb/stats"
)

// Order spreads a run's requests over several targets: request index i
// (the run's sequence, from 0; the warm-up has its own) goes to target
// Target(i). It is a pure function of its fields and i, so any worker
// computes it alone: no shared generator, no lock. The zero value is one
// target (every request is target 0).
type Order struct {
	Targets int    // how many targets; 0 or 1 = one
	Random  bool   // false = round-robin (i mod Targets); true = random, from Seed
	Seed    uint64 // the random order's seed: the same seed gives the same sequence
}

// Target returns the target of request index i, in [0, Targets). It
// inlines to a comparison in a run of one target.
func (o *Order) Target(i int64) int {
	if o.Targets <= 1 {
		return 0
	}
	return o.pick(i)
}

// pick is Target for several targets.
func (o *Order) pick(i int64) int {
	if !o.Random {
		return int(uint64(i) % uint64(o.Targets))
	}
	// A hash of (Seed, i), mapped onto [0, Targets) by the high word of a
	// 64×64-bit product (Lemire's multiply-shift, no modulo bias worth
	// the name for any realistic count of targets).
	hi, _ := bits.Mul64(mix(o.Seed^mix(uint64(i))), uint64(o.Targets))
	return int(hi)
}

// mix is SplitMix64's finaliser: a bijection of uint64 whose outputs for
// consecutive inputs look independent.
func mix(z uint64) uint64 {
	z += 0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// recordTarget adds x's request to its target's account (runs with
// several targets only).
func (w *worker) recordTarget(x *Exchange, o stats.Outcome) {
	var us int64
	if o.Responded() {
		us = micros(x.Done.Sub(x.Start))
	}
	w.rec.EndTarget(w.accountRow(x), o, x.BytesIn, x.Body, x.BytesOut, us)
}

// spread sets the targets of a batch whose first request index is i.
func (o *Order) spread(xs []Exchange, i int64) {
	for j := range xs {
		xs[j].Target = o.Target(i + int64(j))
	}
}
