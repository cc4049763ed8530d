package metrics

import (
	"bytes"
	"flag"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"

	"github.com/gb-bench/gb/stats"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// scripted is a rate-mode load 2 s in: 1000 ok and 10 non2xx responses,
// 3 connect failures, 5 dropped and 7 late sends, service times of 100 µs
// to 10 ms and corrected ones 1 ms later.
func scripted(f *Figures) {
	f.Elapsed = 2 * time.Second
	f.Outcomes = stats.Outcomes{}
	f.Outcomes[stats.OK], f.Outcomes[stats.Non2xx] = 1000, 10
	f.Outcomes[stats.FailConnect], f.Outcomes[stats.Dropped] = 3, 5
	f.Retries, f.Late, f.ConnsOpen, f.TargetRate = 2, 7, 8, 500
	f.Closed = stats.Closed{BytesIn: 123456, BytesOut: 7890}
	f.Closed.Status[2], f.Closed.Status[4], f.Closed.Status[5] = 1000, 6, 4
	for i := range f.Latency {
		if f.Latency[i] == nil {
			f.Latency[i] = stats.NewHistogram()
		}
		f.Latency[i].Reset()
	}
	for i := range int64(1010) {
		us := 100 + i*i%9900 // 100 µs .. 10 ms, spread
		_ = f.Latency[0].RecordValue(us)
		_ = f.Latency[1].RecordValue(us + 1000)
	}
}

func exposition(t *testing.T, src Source) []byte {
	t.Helper()
	c, err := NewCollector(nil)
	if err != nil {
		t.Fatal(err)
	}
	c.SetSource(src)
	reg := registry(Labels{Target: "http://127.0.0.1:8080/", Shard: "1/4"}, c)
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	enc := expfmt.NewEncoder(&b, expfmt.NewFormat(expfmt.TypeTextPlain))
	for _, mf := range mfs {
		if err := enc.Encode(mf); err != nil {
			t.Fatal(err)
		}
	}
	return b.Bytes()
}

// TestExpositionGolden: the /metrics text of a scripted rate-mode load.
func TestExpositionGolden(t *testing.T) {
	got := exposition(t, scripted)
	golden := filepath.Join("testdata", "scripted.prom")
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("exposition differs from %s (go test -update to rewrite):\n%s", golden, got)
	}
}

// TestNoSourceNoSeries: before a load starts, the collector adds nothing.
func TestNoSourceNoSeries(t *testing.T) {
	if got := exposition(t, nil); len(got) != 0 {
		t.Errorf("series without a source:\n%s", got)
	}
}

// TestNativeBuckets: the native histogram counts every sample once, in
// the bucket whose bounds hold it.
func TestNativeBuckets(t *testing.T) {
	var f Figures
	scripted(&f)
	c, _ := NewCollector(nil)
	c.SetSource(scripted)
	mfs, err := registry(Labels{}, c).Gather()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, mf := range mfs {
		if mf.GetName() != "gb_latency_seconds" {
			continue
		}
		for _, m := range mf.Metric {
			n++
			h := m.GetHistogram()
			var sum int64
			var cur int64
			for _, d := range h.GetPositiveDelta() {
				cur += d
				sum += cur
			}
			if uint64(sum) != h.GetSampleCount() || sum != 1010 {
				t.Errorf("%v: native buckets hold %d, count %d, want 1010", m.Label, sum, h.GetSampleCount())
			}
			if h.GetSchema() != NativeSchema {
				t.Errorf("schema %d", h.GetSchema())
			}
		}
	}
	if n != 2 {
		t.Errorf("%d latency histograms, want service and corrected", n)
	}
}

// TestNativeIndex: v lies in (2^((i-1)/8), 2^(i/8)].
func TestNativeIndex(t *testing.T) {
	for _, v := range []float64{1e-6, 0.0001, 0.000999, 0.001, 0.5, 1, 1.0905, 2, 3, 1000} {
		i := NativeIndex(v)
		lo, hi := math.Pow(2, float64(i-1)/8), math.Pow(2, float64(i)/8)
		if !(v > lo*(1-1e-12) && v <= hi*(1+1e-12)) {
			t.Errorf("NativeIndex(%g) = %d: bucket (%g, %g]", v, i, lo, hi)
		}
	}
	if NativeIndex(1) != 0 || NativeIndex(2) != 8 {
		t.Errorf("NativeIndex(1) = %d, (2) = %d; want 0, 8", NativeIndex(1), NativeIndex(2))
	}
}

// TestBadBucket: a bucket bound must be positive.
func TestBadBucket(t *testing.T) {
	if _, err := NewCollector([]time.Duration{time.Millisecond, 0}); err == nil {
		t.Error("a zero bucket was accepted")
	}
}
