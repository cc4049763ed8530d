package shape

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
)

// weighted is a fortio-style weighted list, "v1:w1,v2:w2,...": each value
// is drawn with probability weight/total. A single value without a weight
// ("50ms") is the list of one. Weights are non-negative decimals; the
// total must be positive.
type weighted[T any] struct {
	vals []T
	cum  []float64 // cumulative weights; cum[len-1] is the total
}

// one returns the list holding only v.
func one[T any](v T) weighted[T] {
	return weighted[T]{vals: []T{v}, cum: []float64{1}}
}

// parseWeighted parses s with parse applied to each value.
func parseWeighted[T any](s string, parse func(string) (T, error)) (weighted[T], error) {
	var w weighted[T]
	items := strings.Split(s, ",")
	if len(items) > MaxListItems {
		return w, fmt.Errorf("%w: list %q has more than %d items", ErrSyntax, s, MaxListItems)
	}
	total := 0.0
	for _, item := range items {
		v, ws, hasWeight := strings.Cut(item, ":")
		val, err := parse(v)
		if err != nil {
			return w, err
		}
		weight := 1.0
		if hasWeight {
			weight, err = strconv.ParseFloat(ws, 64)
			if err != nil || !(weight >= 0 && weight < 1e9) {
				return w, fmt.Errorf("%w: weight %q in %q", ErrSyntax, ws, s)
			}
		}
		total += weight
		w.vals = append(w.vals, val)
		w.cum = append(w.cum, total)
	}
	if total <= 0 {
		return w, fmt.Errorf("%w: list %q has no positive weight", ErrSyntax, s)
	}
	return w, nil
}

// random reports whether picking from w consumes a random number.
func (w weighted[T]) random() bool { return len(w.vals) > 1 }

// pick draws one value. A list of one value returns it without touching r,
// so constant parameters do not shift the sequence of random ones.
func (w weighted[T]) pick(r *rand.Rand) T {
	if !w.random() {
		return w.vals[0]
	}
	x := r.Float64() * w.cum[len(w.cum)-1]
	for i, c := range w.cum {
		if x < c {
			return w.vals[i]
		}
	}
	return w.vals[len(w.vals)-1]
}

// maxSeeds bounds how many seeded generators a Dice keeps; past it the whole
// set starts over (every sequence restarts from its seed).
const maxSeeds = 4096

// Dice hands out one pseudo-random generator per seed value, created on
// first use, so that requests carrying the same seed= share one sequence in
// arrival order. It is safe for concurrent use; the zero value is ready.
type Dice struct {
	mu   sync.Mutex
	gens map[uint64]*rand.Rand
}

// Roll calls f with the generator of seed, holding the lock for the whole
// call so that several draws for one request stay together.
func (d *Dice) Roll(seed uint64, f func(r *rand.Rand)) {
	d.mu.Lock()
	defer d.mu.Unlock()
	r := d.gens[seed]
	if r == nil {
		if d.gens == nil || len(d.gens) >= maxSeeds {
			d.gens = make(map[uint64]*rand.Rand)
		}
		r = rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
		d.gens[seed] = r
	}
	f(r)
}

// Reset restarts every sequence from its seed.
func (d *Dice) Reset() {
	d.mu.Lock()
	d.gens = nil
	d.mu.Unlock()
}
