package stats

import (
	"errors"
	"fmt"
)

// Combine returns one result of several runs of the same load (shards of
// one test on several processes or machines, gb merge): counts are the
// sums, latency histograms the HdrHistogram sums (exact: every result uses
// one geometry), exact moments combined without loss, Start the earliest
// and End the latest, so Elapsed covers them all. Results whose targets
// differ in anything but their share of the load (concurrency, requests,
// rate) are refused with an error naming the difference. The inputs are
// not changed; the first one's Server and Client describe the whole
// (Client.CPU and GC counters are summed).
func Combine(rs ...*Result) (*Result, error) {
	if len(rs) == 0 {
		return nil, errors.New("nothing to combine")
	}
	out := *rs[0]
	out.Counts = Counts{}
	out.Latency = Phases{}
	out.Client = Client{Engine: rs[0].Client.Engine}
	out.Samples, out.Series, out.Profile = nil, nil, nil
	out.Target.Concurrency, out.Target.Requests, out.Target.Rate = 0, 0, 0
	for i, r := range rs {
		if err := sameLoad(&rs[0].Target, &r.Target); err != nil {
			return nil, fmt.Errorf("result %d: %v", i+1, err)
		}
		out.Target.Concurrency += r.Target.Concurrency
		out.Target.Requests += r.Target.Requests
		out.Target.Rate += r.Target.Rate
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
	}
	out.Elapsed = out.End.Sub(out.Start)
	return &out, nil
}

// sameLoad reports how b's target differs from a's beyond the share of
// the load a shard carries.
func sameLoad(a, b *Target) error {
	x, y := *a, *b
	x.Concurrency, x.Requests, x.Rate = 0, 0, 0
	y.Concurrency, y.Requests, y.Rate = 0, 0, 0
	switch {
	case x.URL != y.URL:
		return fmt.Errorf("another URL (%s, not %s)", y.URL, x.URL)
	case x.Method != y.Method:
		return fmt.Errorf("another method (%s, not %s)", y.Method, x.Method)
	case x != y:
		return errors.New("another configuration (keep-alive, timeouts, body, pipelining, TLS or engine)")
	}
	return nil
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

// add sums o's costs into c; MaxRSS and MaxProcs are the largest.
func (c *Client) add(o *Client) {
	c.CPU += o.CPU
	c.GCCycles += o.GCCycles
	c.GCPause += o.GCPause
	c.HeapAllocs += o.HeapAllocs
	c.MaxRSS = max(c.MaxRSS, o.MaxRSS)
	c.MaxProcs = max(c.MaxProcs, o.MaxProcs)
}

// mergeDist returns a new Dist holding a's and b's samples; nil when both
// are empty.
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
		if d.Hist != nil {
			out.Hist.Merge(d.Hist)
		}
	}
	return out
}
