package report

import (
	"math/bits"
	"math/rand/v2"
	"testing"

	"github.com/HdrHistogram/hdrhistogram-go"
	"github.com/gb-bench/gb/stats"
)

// TestEachBucketIsTheDistribution: eachBucket yields exactly the non-empty
// bars of hdrhistogram's Distribution (highest value and count), for gb's
// two geometries and others, over values from 0 to the highest trackable.
func TestEachBucketIsTheDistribution(t *testing.T) {
	geometries := []struct{ lo, hi, digits int64 }{
		{stats.HistLowest, stats.HistHighest, stats.HistDigits},
		{stats.HistLowest, stats.HistHighest, stats.TargetDigits},
		{1, 1000, 1},
		{1000, 1 << 40, 3},
		{7, 1 << 30, 4},
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, g := range geometries {
		h := hdrhistogram.New(g.lo, g.hi, int(g.digits))
		for range 20000 {
			// spread over magnitudes: a random power of two, then a value below it
			v := rng.Int64N(int64(1) << (1 + rng.IntN(bits.Len64(uint64(g.hi)))))
			_ = h.RecordValue(min(v, g.hi))
		}
		_ = h.RecordValue(0)
		_ = h.RecordValue(g.hi)
		var want [][2]int64
		for _, b := range h.Distribution() {
			if b.Count != 0 {
				want = append(want, [2]int64{b.To, b.Count})
			}
		}
		var got [][2]int64
		eachBucket(h, func(to, count int64) { got = append(got, [2]int64{to, count}) })
		if len(got) != len(want) {
			t.Fatalf("%+v: %d buckets, Distribution has %d non-empty", g, len(got), len(want))
		}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("%+v: bucket %d = (to %d, count %d), Distribution (to %d, count %d)", g, i, got[i][0], got[i][1], want[i][0], want[i][1])
			}
		}
	}
}
