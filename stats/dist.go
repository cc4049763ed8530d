package stats

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// Phase names one measured interval of a request. Values are microseconds.
type Phase uint8

// The phases. Connect, Processing, Waiting and Total feed ab's Connection
// Times rows; Corrected and Lag exist only in rate mode, TLS only for https (one sample per
// new connection, not per request). TLSFull and TLSResumed split TLS's samples by whether the
// handshake resumed a session; their JSON lives inside TLS's (see Phases).
const (
	Connect    Phase = iota // dial start to connected (TLS done); 0 on a reused connection
	Processing              // Total minus Connect
	Waiting                 // request fully written to first response byte
	Total                   // request start (dial start on a new connection) to last byte
	Corrected               // rate mode: intended send time to last byte (coordinated-omission corrected)
	Lag                     // rate mode: intended send time to actual start (how late the client sent)
	TLS                     // https: TCP connected to TLS handshake done, once per new connection (inside Connect)
	TLSFull                 // the TLS samples whose handshake was full (no session resumed)
	TLSResumed              // the TLS samples whose handshake resumed a session (ticket or PSK)
	NumPhases               // the number of phases; not a phase
)

var phaseNames = [NumPhases]string{"connect", "processing", "waiting", "total", "corrected", "lag", "tls", "tls_full", "tls_resumed"}

// String returns the phase's JSON name.
func (p Phase) String() string {
	if p < NumPhases {
		return phaseNames[p]
	}
	return fmt.Sprintf("phase(%d)", uint8(p))
}

// The geometry of every histogram in a Result, shared by every recorder
// so that histograms merge losslessly: HistLowest to HistHighest µs (1 µs
// to 1 hour) at HistDigits significant digits (relative error at most
// 0.1%; exact below 2048 µs); a target's (TargetStats.Latency) has
// TargetDigits. A recorder clamps a value into [HistLowest, HistHighest]
// before it records it; the exact moments keep the value as measured.
const (
	HistLowest   = 1
	HistHighest  = 3600 * 1000 * 1000
	HistDigits   = 3
	TargetDigits = 2
)

func newHist() *hdrhistogram.Histogram { return hdrhistogram.New(HistLowest, HistHighest, HistDigits) }

// NewHistogram returns an empty HdrHistogram with the geometry of every
// histogram in a Result (µs, 1 µs to 1 hour, 3 significant digits), so it
// merges with them losslessly. The caller owns it.
func NewHistogram() *hdrhistogram.Histogram { return newHist() }

// Exact holds exact moments of a phase's samples: count, sum, min and max in
// µs, and M2 (the sum of squared deviations from the mean, µs²) kept with
// Welford's method so the standard deviation is accurate for any run length.
// The zero value is an empty distribution.
type Exact struct {
	Count int64   `json:"count"`
	Sum   int64   `json:"sum_us"`
	Min   int64   `json:"min_us"`
	Max   int64   `json:"max_us"`
	M2    float64 `json:"m2_us2"`
	mean  float64
}

// Add records one sample of v µs.
func (e *Exact) Add(v int64) {
	e.Count++
	e.Sum += v
	if e.Count == 1 || v < e.Min {
		e.Min = v
	}
	if v > e.Max {
		e.Max = v
	}
	d := float64(v) - e.mean
	e.mean += d / float64(e.Count)
	e.M2 += d * (float64(v) - e.mean)
}

// Merge adds o's samples to e (Chan et al.'s parallel update).
func (e *Exact) Merge(o *Exact) {
	if o.Count == 0 {
		return
	}
	if e.Count == 0 {
		*e = *o
		e.mean = o.Mean()
		return
	}
	n := float64(e.Count + o.Count)
	d := o.Mean() - e.Mean()
	e.M2 += o.M2 + d*d*float64(e.Count)*float64(o.Count)/n
	e.Count += o.Count
	e.Sum += o.Sum
	e.Min = min(e.Min, o.Min)
	e.Max = max(e.Max, o.Max)
	e.mean = float64(e.Sum) / float64(e.Count)
}

// Mean returns the exact mean in µs (0 when empty).
func (e *Exact) Mean() float64 {
	if e.Count == 0 {
		return 0
	}
	return float64(e.Sum) / float64(e.Count)
}

// StdDev returns the sample standard deviation (n-1 denominator, as ab) in
// µs; 0 when there are fewer than two samples.
func (e *Exact) StdDev() float64 {
	if e.Count < 2 {
		return 0
	}
	return math.Sqrt(e.M2 / float64(e.Count-1))
}

// Dist is one phase's distribution in a Result: exact moments plus the
// HdrHistogram of the same samples. Hist is nil when there are no samples,
// and in the points of a Series, which keep their histogram sparse to save
// memory: read a histogram through Histogram, which works for both.
type Dist struct {
	Exact
	Hist   *hdrhistogram.Histogram
	packed *hdrhistogram.PackedHistogram // a Series point's or a target's histogram (sparse); Hist is then nil
}

// Histogram returns d's HdrHistogram (µs): Hist, or for a Series point a
// dense copy of its sparse histogram, which the caller owns. nil when d has
// no samples.
func (d *Dist) Histogram() *hdrhistogram.Histogram {
	if d == nil || d.Hist != nil || d.packed == nil {
		return d.hist()
	}
	h := newHist()
	d.packed.MergeInto(h)
	return h
}

// SparseDist returns the Dist of the exact moments e and the sparse
// histogram h of the same samples (µs, the geometry of NewHistogram, or
// TargetDigits for a target's), as a Series point or a target keeps it:
// the recorder's way to build one. The Dist keeps h; the caller must not
// change h afterwards. A nil h makes a Dist without a histogram.
func SparseDist(e Exact, h *hdrhistogram.PackedHistogram) *Dist {
	e.mean = e.Mean()
	return &Dist{Exact: e, packed: h}
}

// hist returns d.Hist, nil for a nil d.
func (d *Dist) hist() *hdrhistogram.Histogram {
	if d == nil {
		return nil
	}
	return d.Hist
}

// total returns the number of samples in d's histogram.
func (d *Dist) total() int64 {
	switch {
	case d == nil:
		return 0
	case d.Hist != nil:
		return d.Hist.TotalCount()
	case d.packed != nil:
		return d.packed.TotalCount()
	}
	return 0
}

type distJSON struct {
	Exact
	Hist string `json:"hdr,omitempty"` // base64 HdrHistogram V2 compressed ("HISTF…")
}

// MarshalJSON writes the exact moments, the histogram as base64 V2, and
// (format version 2) the plain numbers of Summary: count, min, mean, sd,
// max and the Percentiles, each in µs ("p99_us") and in ms ("p99_ms").
func (d *Dist) MarshalJSON() ([]byte, error) {
	j := distJSON{Exact: d.Exact}
	if d.total() > 0 {
		var b []byte
		var err error
		if d.Hist != nil {
			b, err = d.Hist.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
		} else {
			b = encodePacked(d.packed) // the library's bytes, one pooled zlib writer
		}
		if err != nil {
			return nil, fmt.Errorf("stats: encode histogram: %w", err)
		}
		j.Hist = string(b)
	}
	plain, err := json.Marshal(j)
	if err != nil {
		return nil, err
	}
	return append(d.summaryJSON(), plain[1:]...), nil
}

// summaryJSON writes the opening brace and d's plain numbers, each
// followed by a comma: min, mean, sd, max and the percentiles in µs, then
// the same in ms. Keys are in a fixed order so output is reproducible.
func (d *Dist) summaryJSON() []byte {
	b := []byte{'{'}
	num := func(key string, v float64) {
		b = strconv.AppendQuote(b, key)
		b = append(b, ':')
		b = strconv.AppendFloat(b, v, 'f', -1, 64)
		b = append(b, ',')
	}
	for _, unit := range []struct {
		suffix string
		div    float64
	}{{"_us", 1}, {"_ms", 1000}} {
		num("min"+unit.suffix, float64(d.Min)/unit.div)
		num("mean"+unit.suffix, d.Mean()/unit.div)
		num("sd"+unit.suffix, d.StdDev()/unit.div)
		num("max"+unit.suffix, float64(d.Max)/unit.div)
		for _, p := range Percentiles {
			num(percentileKey(p)+unit.suffix, float64(d.Percentile(p))/unit.div)
		}
	}
	return b
}

// UnmarshalJSON reads the form written by MarshalJSON.
func (d *Dist) UnmarshalJSON(b []byte) error {
	var j distJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	d.Exact = j.Exact
	d.Exact.mean = d.Exact.Mean()
	d.Hist = nil
	if j.Hist != "" {
		h, err := hdrhistogram.Decode([]byte(j.Hist))
		if err != nil {
			return fmt.Errorf("stats: decode histogram: %w", err)
		}
		if h.LowestTrackableValue() != HistLowest || h.HighestTrackableValue() != HistHighest || h.SignificantFigures() > HistDigits || h.SignificantFigures() < TargetDigits {
			return fmt.Errorf("stats: histogram of another geometry (%d..%d µs, %d digits; gb's is %d..%d, %d or %d)",
				h.LowestTrackableValue(), h.HighestTrackableValue(), h.SignificantFigures(), HistLowest, HistHighest, TargetDigits, HistDigits)
		}
		d.Hist = h
	}
	return nil
}

// add records one sample of v µs in the exact moments and the histogram
// (clamped into the histogram's range, as a Recorder does).
func (d *Dist) add(v int64) {
	d.Exact.Add(v)
	if d.Hist == nil {
		d.Hist = newHist()
	}
	_ = d.Hist.RecordValue(min(max(v, HistLowest), HistHighest)) // in range: cannot fail
}

// pack makes d's histogram sparse, as a Series point keeps it.
func (d *Dist) pack() {
	if d == nil || d.Hist == nil {
		return
	}
	d.packed = hdrhistogram.NewPacked(HistLowest, HistHighest, HistDigits)
	d.packed.MergeFrom(d.Hist)
	d.Hist = nil
}

// Percentile returns the value in µs at or below which p percent (0..100)
// of the samples fall, from the histogram (within 0.1%), clamped to the
// exact Min and Max; 0 when empty. Every renderer (text, JSON, thresholds)
// reads percentiles through it, so they agree.
func (d *Dist) Percentile(p float64) int64 {
	if d.total() == 0 {
		return 0
	}
	var v int64
	if d.Hist != nil {
		v = d.Hist.ValueAtPercentile(p)
	} else {
		v = d.packed.ValueAtPercentile(p)
	}
	if d.Count > 0 {
		v = min(max(v, d.Min), d.Max)
	}
	return v
}

// Median returns the 50th percentile in µs.
func (d *Dist) Median() int64 { return d.Percentile(50) }
