package stats

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"time"
)

// Merge returns one result of several runs of the same load (shards of
// one test on several processes or machines, gb merge): counts are the
// sums, latency histograms the HdrHistogram sums (exact: every result uses
// one geometry), exact moments combined without loss, Start the earliest
// and End the latest, so Elapsed covers them all, and the time series
// merged point by point by wall-clock interval (see combineSeries).
// Results whose targets differ in anything but their share of the load
// (concurrency, requests, rate, shard) are refused with an error naming
// the differing field, as are two results of one shard, one result given
// twice, and some but not all shards of a split load (a
// *MissingShardsError; see MergePartial). The inputs are not changed;
// the first one's Server describes the whole; Client sums the processes'
// CPU, cores and GC counters. The merged Target's Shard is the zero
// value: the result is the whole load.
func Merge(rs ...*Result) (*Result, error) { return merge(rs, false) }

// MergePartial is Merge that also merges some of the shards of a
// split load: the result's Partial then names the shards it holds, and
// its counts are theirs, not the whole load's.
func MergePartial(rs ...*Result) (*Result, error) { return merge(rs, true) }

func merge(rs []*Result, partial bool) (*Result, error) {
	if len(rs) == 0 {
		return nil, errNothing
	}
	have, err := checkShards(rs, partial)
	if err != nil {
		return nil, err
	}
	out := *rs[0]
	out.Counts = Counts{}
	out.Latency = Phases{}
	out.Client = Client{Engine: rs[0].Client.Engine}
	out.Samples, out.Series, out.Profile, out.Warmup = nil, nil, nil, nil
	out.Load.Concurrency, out.Load.Requests, out.Load.Rate = 0, 0, 0
	out.Load.Shard, out.Partial = ShardID{}, nil
	if n := rs[0].Load.Shard.Count; len(have) < n {
		out.Partial = &Partial{Count: n, Shards: have}
	}
	for i, r := range rs {
		if err := sameLoad(&rs[0].Load, &r.Load); err != nil {
			return nil, fmt.Errorf("result %d: %v", i+1, err)
		}
		out.Load.Concurrency += r.Load.Concurrency
		out.Load.Requests += r.Load.Requests
		out.Load.Rate += r.Load.Rate
		if r.Start.Before(out.Start) {
			out.Start = r.Start
		}
		if r.End.After(out.End) {
			out.End = r.End
		}
		out.Counts.add(&r.Counts)
		out.Client.add(&r.Client)
		for p, d := range r.Latency {
			out.Latency[p] = mergeDist(out.Latency[p], d)
		}
		if r.StoppedBy != StopCount {
			out.StoppedBy, out.StopError = r.StoppedBy, r.StopError
		}
		if r.Warmup != nil {
			if out.Warmup == nil {
				out.Warmup = &Warmup{Duration: r.Warmup.Duration}
			}
			out.Warmup.Counts.add(&r.Warmup.Counts)
		}
	}
	out.Elapsed = out.End.Sub(out.Start)
	s, err := combineSeries(rs, out.Start, out.End)
	if err != nil {
		return nil, err
	}
	out.Series = s
	if out.Checks, err = combineChecks(rs); err != nil {
		return nil, err
	}
	if out.Targets, err = combineTargets(rs); err != nil {
		return nil, err
	}
	return &out, nil
}

// sameLoad reports how b's target differs from a's beyond the share of
// the load a shard carries, naming the differing field as the JSON names
// it. Shares may differ, but not the kind of load: a count limit or none,
// a rate or a closed loop.
func sameLoad(a, b *Load) error {
	switch {
	case (a.Requests > 0) != (b.Requests > 0):
		return fmt.Errorf("another requests (%s, not %s)", countLimit(b.Requests), countLimit(a.Requests))
	case (a.Rate > 0) != (b.Rate > 0):
		return fmt.Errorf("another rate (%s, not %s)", rateMode(b.Rate), rateMode(a.Rate))
	}
	x, y := *a, *b
	for _, t := range []*Load{&x, &y} {
		t.Concurrency, t.Requests, t.Rate, t.Shard, t.StartAt = 0, 0, 0, ShardID{}, time.Time{}
	}
	if x == y {
		if !a.StartAt.Equal(b.StartAt) {
			return fmt.Errorf("another start_at (%s, not %s)", startAt(b.StartAt), startAt(a.StartAt))
		}
		return nil
	}
	vx, vy := reflect.ValueOf(x), reflect.ValueOf(y)
	for i := range vx.NumField() {
		if fx, fy := vx.Field(i).Interface(), vy.Field(i).Interface(); fx != fy {
			name, _, _ := strings.Cut(vx.Type().Field(i).Tag.Get("json"), ",")
			return fmt.Errorf("another %s (%v, not %v)", name, fy, fx)
		}
	}
	return errors.New("another configuration")
}

func startAt(t time.Time) string {
	if t.IsZero() {
		return "none"
	}
	return t.UTC().Format(time.RFC3339Nano)
}

func countLimit(n int64) string {
	if n > 0 {
		return "a count limit"
	}
	return "none"
}

func rateMode(r float64) string {
	if r > 0 {
		return "a rate"
	}
	return "closed loop"
}

// add sums o into c.
func (c *Counts) add(o *Counts) {
	c.Dispatched += o.Dispatched
	c.Scheduled += o.Scheduled
	c.Late += o.Late
	for i, v := range o.Outcomes {
		c.Outcomes[i] += v
	}
	c.Retries += o.Retries
	c.LengthMismatch += o.LengthMismatch
	c.KeepAlive += o.KeepAlive
	c.Info += o.Info
	c.ConnsOpened += o.ConnsOpened
	c.ConnsClosed += o.ConnsClosed
	c.BytesIn += o.BytesIn
	c.BodyIn += o.BodyIn
	c.DecodedIn += o.DecodedIn
	c.BytesOut += o.BytesOut
	c.OtherErrors += o.OtherErrors
	c.OtherStatus += o.OtherStatus
	c.Status = addMap(c.Status, o.Status)
	c.Errors = addMap(c.Errors, o.Errors)
}

func addMap[K comparable](dst, src map[K]int64) map[K]int64 {
	if len(src) == 0 {
		return dst
	}
	if dst == nil {
		dst = make(map[K]int64, len(src))
	}
	for k, v := range src {
		dst[k] += v
	}
	return dst
}

// add sums o's costs into c, MaxProcs included (the cores of all the
// processes, against which their summed CPU is read); MaxRSS is the
// largest, one process's peak.
func (c *Client) add(o *Client) {
	c.CPU += o.CPU
	c.GCCycles += o.GCCycles
	c.GCPause += o.GCPause
	c.HeapAllocs += o.HeapAllocs
	c.MaxRSS = max(c.MaxRSS, o.MaxRSS)
	c.MaxProcs += o.MaxProcs
	c.CPUWindow = max(c.CPUWindow, o.CPUWindow) // the processes ran side by side
}

// mergeDist returns a new Dist holding a's and b's samples (dense or, as
// in a Series point, sparse); nil when both are empty.
func mergeDist(a, b *Dist) *Dist {
	if b == nil || b.Count == 0 {
		return a
	}
	out := &Dist{Hist: newHist()}
	for _, d := range []*Dist{a, b} {
		if d == nil {
			continue
		}
		out.Exact.Merge(&d.Exact)
		if h := d.Histogram(); h != nil {
			out.Hist.Merge(h)
		}
	}
	return out
}
