package stats

import (
	"bytes"
	"math/rand/v2"
	"testing"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// TestEncodePackedIsTheLibrarys: gb's pooled V2 encoder writes the same
// bytes as hdrhistogram-go's PackedHistogram.Encode, for gb's two
// geometries, empty and sparse and dense histograms, single empty
// buckets and long empty runs, small counts and counts of 9-byte varints.
func TestEncodePackedIsTheLibrarys(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, digits := range []int{TargetDigits, HistDigits} {
		for n, values := range [][]int64{
			nil,
			{1},
			{1, 3},            // one empty index between them
			{HistHighest},     // the top bucket
			{5, 5, 5, 100000}, // a long empty run
		} {
			p := hdrhistogram.NewPacked(HistLowest, HistHighest, digits)
			for _, v := range values {
				_ = p.RecordValue(v)
			}
			same(t, digits, n, p)
		}
		for n := range 50 {
			p := hdrhistogram.NewPacked(HistLowest, HistHighest, digits)
			for range rng.IntN(5000) {
				v := int64(rng.ExpFloat64() * float64(rng.IntN(1e6)+1))
				_ = p.RecordValues(min(max(v, HistLowest), HistHighest), int64(rng.IntN(3)+1))
			}
			if n%10 == 0 {
				_ = p.RecordValues(42, 1<<60) // a count of 9 varint bytes
			}
			same(t, digits, 100+n, p)
		}
	}
}

func same(t *testing.T, digits, n int, p *hdrhistogram.PackedHistogram) {
	t.Helper()
	want, err := p.Encode()
	if err != nil {
		t.Fatal(err)
	}
	if got := encodePacked(p); !bytes.Equal(got, want) {
		t.Errorf("digits %d, case %d: encodePacked differs from the library's Encode (%d bytes vs %d)", digits, n, len(got), len(want))
	}
}

// BenchmarkEncodePacked: a target's histogram of a few hundred values,
// encoded the library's way and gb's.
func BenchmarkEncodePacked(b *testing.B) {
	p := hdrhistogram.NewPacked(HistLowest, HistHighest, TargetDigits)
	for i := range 300 {
		_ = p.RecordValue(int64(100 + i*i))
	}
	b.Run("library", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_, _ = p.Encode()
		}
	})
	b.Run("pooled", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = encodePacked(p)
		}
	})
}
