package load

import "testing"

// TestOrderRoundRobin: request i goes to target i mod k, so any k
// consecutive requests visit each target once.
func TestOrderRoundRobin(t *testing.T) {
	o := Order{Targets: 3}
	for i := range int64(30) {
		if got := o.Target(i); got != int(i%3) {
			t.Fatalf("request %d: target %d, want %d", i, got, i%3)
		}
	}
	one := Order{}
	if one.Target(7) != 0 {
		t.Errorf("one target: %d", one.Target(7))
	}
}

// TestOrderRandom: a seeded random order is a function of (seed, i): the
// same seed gives the same sequence, another seed another one, and each
// target gets about its share.
func TestOrderRandom(t *testing.T) {
	const n, k = 30000, 3
	seq := func(seed uint64) []int {
		o := Order{Targets: k, Random: true, Seed: seed}
		s := make([]int, n)
		for i := range s {
			s[i] = o.Target(int64(i))
		}
		return s
	}
	a, b, c := seq(42), seq(42), seq(43)
	same, counts := 0, [k]int{}
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("seed 42 gave target %d then %d for request %d", a[i], b[i], i)
		}
		if a[i] == c[i] {
			same++
		}
		counts[a[i]]++
	}
	if same > n/2 { // independent sequences agree about a third of the time
		t.Errorf("seeds 42 and 43 agree on %d of %d requests", same, n)
	}
	for j, m := range counts { // a share of 10000 ± 5 standard deviations (82)
		if m < n/k-410 || m > n/k+410 {
			t.Errorf("target %d got %d of %d requests", j, m, n)
		}
	}
	runs := 0
	for i := 1; i < n; i++ {
		if a[i] == a[i-1] {
			runs++
		}
	}
	if runs < n/k-600 || runs > n/k+600 { // no round-robin in disguise: repeats happen a third of the time
		t.Errorf("%d repeats of the previous target in %d requests", runs, n)
	}
}
