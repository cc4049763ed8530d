package report

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/gb-bench/gb/stats"
)

// histogramBar is the longest bar of the latency histogram, in characters.
const histogramBar = 40

// DefaultBuckets is the latency histogram's number of buckets when
// LatencyHistogram is given 0.
const DefaultBuckets = 10

// LatencyHistogram writes a text latency histogram in the manner of hey
// and oha, as a section after gb's: an empty line, "latency histogram (ms,
// PHASE):", then one line per bucket with its upper bound in ms, its count
// in brackets and a bar of '■' proportional to the count. The buckets are
// log-spaced between the exact minimum and maximum of r's LeadPhase
// latency, so a long tail gets buckets of its own; buckets <= 0 means
// DefaultBuckets. Nothing is written when there are no responses. The
// lines follow gb's section rules (no ab label, no number followed by a
// percent sign).
//
//	latency histogram (ms, total):
//	     0.105 [12]    |■
//	     0.168 [4021]  |■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■
func LatencyHistogram(w io.Writer, r *stats.Result, buckets int) error {
	phase := LeadPhase(r)
	d := r.Latency[phase]
	if d == nil || d.Hist == nil || d.Count == 0 {
		return nil
	}
	if buckets <= 0 {
		buckets = DefaultBuckets
	}
	edges := logEdges(float64(max(d.Min, 1)), float64(max(d.Max, 1)), buckets)
	counts := make([]int64, len(edges))
	eachBucket(d.Hist, func(to, count int64) {
		v := float64(min(max(to, d.Min), d.Max))
		i := 0
		for i < len(edges)-1 && v > edges[i] {
			i++
		}
		counts[i] += count
	})
	var most int64
	for _, n := range counts {
		most = max(most, n)
	}
	b := bufio.NewWriter(w)
	fmt.Fprintf(b, "\nlatency histogram (ms, %s):\n", phase)
	width := len(fmt.Sprint(most)) + 3 // brackets and a space
	for i, n := range counts {
		bar := strings.Repeat("■", int((n*histogramBar+most/2)/most))
		fmt.Fprintf(b, "  %10.3f %-*s|%s\n", edges[i]/1000, width, fmt.Sprintf("[%d]", n), bar)
	}
	return b.Flush()
}

// logEdges returns n upper bounds spaced evenly on a log scale from lo to
// hi (µs), the last exactly hi; one bound when lo == hi.
func logEdges(lo, hi float64, n int) []float64 {
	if hi <= lo {
		return []float64{hi}
	}
	edges := make([]float64, n)
	for i := range edges {
		edges[i] = lo * math.Pow(hi/lo, float64(i+1)/float64(n))
	}
	edges[n-1] = hi
	return edges
}
