// Package metrics exposes a running load in Prometheus' exposition format
// (gb's --metrics-addr): requests by outcome, responses by status class,
// bytes, open connections, target and achieved rate, late sends and the
// latency as histograms (classic buckets and native ones), plus gb's own
// process and Go runtime figures. Every series is named gb_* and carries
// the labels target and shard, so the shards of one load sum in a query.
//
// The figures are read when Prometheus scrapes, from a Source: the
// workers' live counters (atomics) and the intervals of the run's series
// that the recorders have handed over. A scrape never reads a histogram a
// worker is writing and never makes the load wait for it.
package metrics

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"sync"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	dto "github.com/prometheus/client_model/go"
	"google.golang.org/protobuf/proto"

	"github.com/gb-bench/gb/stats"
)

// Figures is one scrape's view of a load. A Source fills it; the zero
// value is a load that has not started.
type Figures struct {
	Elapsed    time.Duration  // since the measured load started
	Outcomes   stats.Outcomes // requests ended, by outcome (live counters)
	Retries    int64          // keep-alive close races retried
	Late       int64          // rate mode: requests sent more than stats.LateAfter late
	ConnsOpen  int64          // connections open
	TargetRate float64        // requests per second asked for; 0 = no rate
	// Closed holds the status classes and bytes of the intervals handed
	// over so far, Latency their total (service) latency [0] and, in rate
	// mode, corrected latency [1], in µs: histograms the Source sets (fresh
	// copies or reset and refilled) and nothing else writes.
	Closed  stats.Closed
	Latency [2]*hdrhistogram.Histogram
}

// A Source fills f with a load's figures now. It is called from the
// scrape's goroutine, one call at a time, and must not block on the load.
type Source func(f *Figures)

// Labels name the load whose figures a Collector exposes.
type Labels struct {
	Target string // the target URL (redacted)
	Shard  string // "I/N" of a sharded load; "" when not split
}

// DefaultBuckets are the classic histogram's upper bounds when none are
// given: 100 µs to 10 s.
var DefaultBuckets = []time.Duration{
	100 * time.Microsecond, 250 * time.Microsecond, 500 * time.Microsecond,
	time.Millisecond, 2500 * time.Microsecond, 5 * time.Millisecond,
	10 * time.Millisecond, 25 * time.Millisecond, 50 * time.Millisecond,
	100 * time.Millisecond, 250 * time.Millisecond, 500 * time.Millisecond,
	time.Second, 2500 * time.Millisecond, 5 * time.Second, 10 * time.Second,
}

// NativeSchema is the native histograms' resolution: each bucket is
// 2^(2^-3), about 9%, wider than the one before.
const NativeSchema = 3

// Collector is a prometheus.Collector of one load's gb_* series. Make it
// with NewCollector; SetSource points it at a load. Safe for concurrent use.
type Collector struct {
	mu      sync.Mutex // serializes scrapes (the Source and fig); never held by the load
	src     Source
	fig     Figures
	bounds  []float64 // classic bucket upper bounds, seconds, ascending
	descs   descs
	started time.Time // the collector's creation: the counters' created timestamp
}

// descs are the series' descriptions.
type descs struct {
	requests, responses, bytesIn, bytesOut, retries, late *prometheus.Desc
	conns, target, achieved, elapsed, latency             *prometheus.Desc
}

// NewCollector returns a Collector with the classic buckets' upper bounds
// (DefaultBuckets when empty). The bounds must be positive; they are
// sorted and deduplicated.
func NewCollector(buckets []time.Duration) (*Collector, error) {
	if len(buckets) == 0 {
		buckets = DefaultBuckets
	}
	bounds := make([]float64, 0, len(buckets))
	for _, b := range buckets {
		if b <= 0 {
			return nil, fmt.Errorf("metrics bucket %v: must be positive", b)
		}
		bounds = append(bounds, b.Seconds())
	}
	slices.Sort(bounds)
	return &Collector{bounds: slices.Compact(bounds), descs: newDescs(), started: time.Now()}, nil
}

func newDescs() descs {
	d := func(name, help string, labels ...string) *prometheus.Desc {
		return prometheus.NewDesc(name, help, labels, nil)
	}
	return descs{
		requests:  d("requests_total", "Requests ended, by outcome (ok, non2xx, failed.*, aborted.*, dropped).", "outcome"),
		responses: d("responses_total", "Final responses by status class, as of the last closed interval.", "class"),
		bytesIn:   d("received_bytes_total", "Bytes read from the connections, headers included, as of the last closed interval."),
		bytesOut:  d("sent_bytes_total", "Bytes written to the connections, as of the last closed interval."),
		retries:   d("retries_total", "Keep-alive close races retried on a new connection."),
		late:      d("late_total", "Rate mode: requests sent more than 1ms after their intended time."),
		conns:     d("connections_open", "Connections open."),
		target:    d("target_requests_per_second", "The rate asked for (rate mode); 0 without one."),
		achieved:  d("achieved_requests_per_second", "Responses (ok and non2xx) per second since the load started."),
		elapsed:   d("elapsed_seconds", "Time since the measured load started."),
		latency:   d("latency_seconds", "Latency of complete responses over the closed intervals: service (request start to last byte) and, in rate mode, corrected (from the intended send time).", "phase"),
	}
}

// SetSource makes the collector read src from the next scrape on; nil
// exposes nothing but the process and runtime series.
func (c *Collector) SetSource(src Source) {
	c.mu.Lock()
	c.src = src
	c.mu.Unlock()
}

// Describe sends nothing: the collector is unchecked (its series appear
// once a load runs).
func (c *Collector) Describe(chan<- *prometheus.Desc) {}

// Collect reads the Source and sends the series.
func (c *Collector) Collect(ch chan<- prometheus.Metric) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.src == nil {
		return
	}
	c.src(&c.fig)
	f := &c.fig
	d := &c.descs
	counter := func(desc *prometheus.Desc, v int64, labels ...string) {
		ch <- prometheus.MustNewConstMetricWithCreatedTimestamp(desc, prometheus.CounterValue, float64(v), c.started, labels...)
	}
	gauge := func(desc *prometheus.Desc, v float64) {
		ch <- prometheus.MustNewConstMetric(desc, prometheus.GaugeValue, v)
	}
	for o, n := range f.Outcomes {
		counter(d.requests, n, stats.Outcome(o).String())
	}
	for i, n := range f.Closed.Status {
		counter(d.responses, n, className(i))
	}
	counter(d.bytesIn, f.Closed.BytesIn)
	counter(d.bytesOut, f.Closed.BytesOut)
	counter(d.retries, f.Retries)
	counter(d.late, f.Late)
	gauge(d.conns, float64(f.ConnsOpen))
	gauge(d.target, f.TargetRate)
	gauge(d.achieved, achieved(f))
	gauge(d.elapsed, f.Elapsed.Seconds())
	phases := []string{"service", "corrected"}
	for i, h := range f.Latency {
		if h != nil && (i == 0 || f.TargetRate > 0) {
			ch <- c.histogram(h, phases[i])
		}
	}
}

// achieved returns f's responses per second since the start; 0 before it.
func achieved(f *Figures) float64 {
	if f.Elapsed <= 0 {
		return 0
	}
	return float64(f.Outcomes[stats.OK]+f.Outcomes[stats.Non2xx]) / f.Elapsed.Seconds()
}

// className is stats.Closed.Status index i's label: "1xx" to "5xx", "other".
func className(i int) string {
	if i == 0 {
		return "other"
	}
	return strconv.Itoa(i) + "xx"
}

// histogram converts h (µs) to one Prometheus histogram carrying both the
// classic buckets and the native ones. Each HdrHistogram bucket counts at
// its highest equivalent value (within 0.1%); the sum is the count times
// HdrHistogram's mean.
func (c *Collector) histogram(h *hdrhistogram.Histogram, phase string) prometheus.Metric {
	count := uint64(h.TotalCount())
	classic := make([]uint64, len(c.bounds))
	native := map[int]int64{}
	for _, bar := range h.Distribution() {
		if bar.Count == 0 {
			continue
		}
		v := float64(bar.To) / 1e6
		if i, _ := slices.BinarySearch(c.bounds, v); i < len(classic) { // the first bound ≥ v
			classic[i] += uint64(bar.Count)
		}
		native[NativeIndex(v)] += bar.Count
	}
	m := &dto.Histogram{
		SampleCount:   proto.Uint64(count),
		SampleSum:     proto.Float64(h.Mean() * float64(count) / 1e6),
		Schema:        proto.Int32(NativeSchema),
		ZeroThreshold: proto.Float64(0),
		ZeroCount:     proto.Uint64(0),
	}
	var cum uint64
	for i, b := range c.bounds {
		cum += classic[i]
		m.Bucket = append(m.Bucket, &dto.Bucket{UpperBound: proto.Float64(b), CumulativeCount: proto.Uint64(cum)})
	}
	m.PositiveSpan, m.PositiveDelta = spans(native)
	return &histMetric{desc: c.descs.latency, labels: []*dto.LabelPair{{Name: proto.String("phase"), Value: proto.String(phase)}}, h: m}
}

// NativeIndex returns the native bucket of v > 0 at NativeSchema: bucket i
// holds (2^((i-1)/8), 2^(i/8)].
func NativeIndex(v float64) int {
	frac, exp := math.Frexp(v) // v = frac * 2^exp, frac in [0.5, 1)
	const n = 1 << NativeSchema
	// Within [2^(exp-1), 2^exp): the bucket whose upper bound is the first
	// 2^(exp-1+k/n) ≥ v.
	k := int(math.Ceil(math.Log2(frac*2) * n))
	return (exp-1)*n + k
}

// spans encodes sparse native bucket counts as Prometheus' spans and
// deltas.
func spans(counts map[int]int64) ([]*dto.BucketSpan, []int64) {
	idx := make([]int, 0, len(counts))
	for i := range counts {
		idx = append(idx, i)
	}
	slices.Sort(idx)
	var sp []*dto.BucketSpan
	var deltas []int64
	var prev int64
	for j, i := range idx {
		switch {
		case j == 0:
			sp = append(sp, &dto.BucketSpan{Offset: proto.Int32(int32(i)), Length: proto.Uint32(1)})
		case i == idx[j-1]+1:
			last := sp[len(sp)-1]
			last.Length = proto.Uint32(last.GetLength() + 1)
		default:
			sp = append(sp, &dto.BucketSpan{Offset: proto.Int32(int32(i - idx[j-1] - 1)), Length: proto.Uint32(1)})
		}
		deltas = append(deltas, counts[i]-prev)
		prev = counts[i]
	}
	return sp, deltas
}

// histMetric is a histogram with both classic and native buckets, which
// client_golang's const histograms do not combine.
type histMetric struct {
	desc   *prometheus.Desc
	labels []*dto.LabelPair
	h      *dto.Histogram
}

func (m *histMetric) Desc() *prometheus.Desc { return m.desc }

func (m *histMetric) Write(out *dto.Metric) error {
	out.Label, out.Histogram = m.labels, m.h
	return nil
}

// Registry returns a registry of c and gb's process and Go runtime
// collectors, every series prefixed gb_ and labelled with l.
func Registry(c *Collector, l Labels) *prometheus.Registry {
	return registry(l, c, collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
}

// registry returns a registry of cs, prefixed gb_ and labelled with l.
func registry(l Labels, cs ...prometheus.Collector) *prometheus.Registry {
	reg := prometheus.NewRegistry()
	wrap := prometheus.WrapRegistererWithPrefix("gb_",
		prometheus.WrapRegistererWith(prometheus.Labels{"target": l.Target, "shard": l.Shard}, reg))
	wrap.MustRegister(cs...)
	return reg
}
