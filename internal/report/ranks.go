package report

import (
	"math"

	"github.com/HdrHistogram/hdrhistogram-go"
	"github.com/gb-bench/gb/stats"
)

// ranks answers ab's questions about its array of samples sorted by one
// phase ("the value at index i") from that phase's HdrHistogram: exact for
// values below 2048 µs, within the histogram's 0.1% above. Values are µs.
// The zero value has no samples and answers 0.
type ranks struct {
	to       []int64 // highest value of each non-empty histogram bucket, ascending
	cum      []int64 // number of samples in buckets 0..j
	min, max int64   // exact extremes; every answer is clamped to them
	n        int64   // number of samples
}

// newRanks returns the ranks of d's samples; d may be nil.
func newRanks(d *stats.Dist) ranks {
	if d == nil || d.Hist == nil || d.Hist.TotalCount() == 0 {
		return ranks{}
	}
	r := ranks{min: d.Min, max: d.Max}
	eachBucket(d.Hist, func(to, count int64) {
		r.n += count
		r.to = append(r.to, to)
		r.cum = append(r.cum, r.n)
	})
	return r
}

// eachBucket calls f with the highest equivalent value and the count of
// each non-empty bucket of h, in ascending order: the non-empty bars of
// h.Distribution(), which allocates a bar for every bucket up to the
// highest value (a report made five such lists, megabytes, at its peak).
// It copies h's counts once and maps each index to its value by the
// HdrHistogram layout: bucket 0 holds sub-buckets 0..2^(m+1)-1 at unit
// width, each later bucket b the upper half 2^m..2^(m+1)-1 at width 2^b,
// where m is the half sub-bucket count's magnitude, all scaled by the
// lowest trackable value's magnitude.
func eachBucket(h *hdrhistogram.Histogram, f func(to, count int64)) {
	s := h.Export()
	unit := int64(0)
	if s.LowestTrackableValue > 1 {
		unit = int64(math.Floor(math.Log2(float64(s.LowestTrackableValue))))
	}
	single := 2 * math.Pow10(int(s.SignificantFigures))
	half := max(int64(math.Ceil(math.Log2(single))), 1) - 1 // magnitude
	for i, n := range s.Counts {
		if n == 0 {
			continue
		}
		idx := int64(i)
		bucket := max(idx>>half-1, 0)
		sub := idx - bucket<<half // 0..2^(half+1)-1 in bucket 0, 2^half.. after
		width := int64(1) << (bucket + unit)
		f(sub*width+width-1, n)
	}
}

// at returns the sample at 0-based index i of the sorted samples, i
// clamped to [0, n-1] (ab reads past its array for tiny runs; gb does not).
func (r ranks) at(i int64) int64 {
	if r.n == 0 {
		return 0
	}
	i = min(max(i, 0), r.n-1)
	lo, hi := 0, len(r.cum)-1
	for lo < hi { // first bucket whose cumulative count exceeds i
		mid := (lo + hi) / 2
		if r.cum[mid] > i {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return min(max(r.to[lo], r.min), r.max)
}

// median returns ab's median: for an odd count above one, the mean of the
// elements at n/2 and n/2+1 (0-based); otherwise the element at n/2. This is
// the reverse of the textbook rule, kept for compatibility.
func (r ranks) median() int64 {
	if r.n > 1 && r.n%2 == 1 {
		return (r.at(r.n/2) + r.at(r.n/2+1)) / 2
	}
	return r.at(r.n / 2)
}

// percentile returns ab's percentile table entry for p (1..99): the
// element at index n*p/100, integer division, no interpolation.
func (r ranks) percentile(p int64) int64 { return r.at(r.n * p / 100) }

// csvRow returns ab's -e value for row i (0..100): the minimum, the
// maximum, or the element at index (int)(0.5 + n*i/100.0).
func (r ranks) csvRow(i int) int64 {
	switch i {
	case 0:
		return r.min
	case 100:
		return r.max
	}
	return r.at(int64(0.5 + float64(r.n)*float64(i)/100.0))
}

// roundMS is ab's ap_round_ms: µs to whole ms, halves up.
func roundMS(us int64) int64 { return (us + 500) / 1000 }
