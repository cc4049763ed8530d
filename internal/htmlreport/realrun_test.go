package htmlreport_test

import (
	"context"
	"net/url"
	"strconv"
	"testing"
	"time"

	"github.com/gb-bench/gb/internal/client"
	"github.com/gb-bench/gb/internal/h1"
	"github.com/gb-bench/gb/internal/load"
	"github.com/gb-bench/gb/internal/pace"
	"github.com/gb-bench/gb/internal/profile"
	"github.com/gb-bench/gb/internal/ramp"
	"github.com/gb-bench/gb/internal/testserver"
	"github.com/gb-bench/gb/internal/testsupport"
	"github.com/gb-bench/gb/stats"
)

// realInterval is the length of one interval of a real run, as its Series
// says; realRequests is what each interval sends: a count, not a time, so
// that each shape's 503s and slow responses are there however busy the
// machine is (the server draws them from a seeded sequence).
const (
	realInterval = 250 * time.Millisecond
	realRequests = 120
)

// realShapes are the testserver queries of a real run's intervals, in
// order: fast, then slower with some 503s, then a bad patch with 500s and
// requests past the client's first-byte timeout (failed.timeout.ttfb),
// then fast again.
var realShapes = []string{
	"delay=0.2:90,1:10&size=512",
	"delay=0.2:90,1:10&size=512",
	"delay=1:80,4:20&status=200:95,503:5&size=512",
	"delay=2:70,8:30&status=200:90,503:10&size=512",
	"delay=4:60,15:30,60:10&status=200:80,500:20&size=512",
	"delay=1:80,4:20&status=200:95,503:5&size=512",
	"delay=0.2:90,1:10&size=512",
	"delay=0.2:90,1:10&size=512",
}

// realRun runs real load (internal/load driving internal/client) against
// an internal/testserver on loopback, one short run per interval of
// realShapes, and returns the whole as one Result whose Series has a Point
// per interval: the interval run's own counts and recorded histograms. A
// rate above 0 paces the requests (open model); withProfile captures the
// server's CPU and allocation profile over the load (internal/profile).
func realRun(t *testing.T, rate float64, withProfile bool) *stats.Result {
	t.Helper()
	srv := testsupport.Server(t, testserver.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var capture *profile.Capture
	if withProfile {
		kinds, err := profile.ParseKinds("cpu,allocs")
		if err != nil {
			t.Fatal(err)
		}
		capture, err = profile.Start(ctx, profile.Config{URL: srv.URL() + "/debug/pprof/", Kinds: kinds, Dir: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
	}
	concurrency := 4
	if rate > 0 {
		concurrency = 8
	}
	total := &stats.Result{Series: &stats.Series{Interval: realInterval}}
	for i, shape := range realShapes {
		addInterval(total, runOnce(ctx, t, srv, "/ok?"+shape+"&seed="+strconv.Itoa(i), concurrency, rate, realRequests, 0, 40*time.Millisecond))
	}
	total.End = total.Start.Add(total.Elapsed)
	if capture != nil {
		total.Profile = capture.Stop(total.Complete())
	}
	for _, err := range total.Check() {
		t.Errorf("real run: %v", err)
	}
	return total
}

// runOnce runs real load on srv's path: n requests when n > 0, else for
// d, from concurrency connections with keep-alive, paced at rate requests
// per second when rate is above 0, with a first-byte timeout of ttfb
// (0 = none).
func runOnce(ctx context.Context, t *testing.T, srv *testserver.Server, path string, concurrency int, rate float64, n int64, d, ttfb time.Duration) *stats.Result {
	t.Helper()
	u, err := url.Parse(srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	port, _ := strconv.Atoi(u.Port())
	req := h1.Request{Method: "GET", Target: path, Host: u.Host, UserAgent: "gb-test"}
	cc := &client.Config{Addr: u.Host, Request: req.Append(nil), KeepAlive: true, Idempotent: true,
		Timeout: 5 * time.Second, FirstByteTimeout: ttfb}
	cfg := load.Config{Concurrency: concurrency, Requests: n, Duration: d,
		NewConn: func(ctx context.Context) load.Conn { return client.NewFast(ctx, cc) }}
	tg := stats.Load{URL: srv.URL() + path, Method: "GET", Host: u.Hostname(), Port: port, Path: path,
		Concurrency: concurrency, TimeLimit: d, Timeout: 5 * time.Second, KeepAlive: true, Engine: "goroutine"}
	if rate > 0 {
		cfg.Pacer, tg.Rate = pace.Constant{Freq: int64(rate), Per: time.Second}, rate
	}
	run, err := load.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return run.Run(ctx, stats.Result{GBVersion: "test", Load: tg,
		Command: []string{"gb", "-k", "-t", d.String(), "-c", strconv.Itoa(concurrency), tg.URL}})
}

// realRamp runs a real concurrency ramp against srv's /limited endpoint
// (8 workers of 5ms each: at most 1600 requests per second), one
// runOnce per step, and returns it as gb ramp would.
func realRamp(t *testing.T) *ramp.Ramp {
	t.Helper()
	srv := testsupport.Server(t, testserver.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	rp := &ramp.Ramp{Version: stats.FormatVersion, GBVersion: "test", By: ramp.ByConcurrency,
		Command: []string{"gb", "ramp", "-k", "--from", "2", "--to", "20", srv.URL() + "/limited?d=5ms&max=8"}}
	for _, c := range []int{2, 4, 6, 8, 10, 12, 16, 20} {
		rp.Steps = append(rp.Steps, runOnce(ctx, t, srv, "/limited?d=5ms&max=8", c, 0, 0, 400*time.Millisecond, 0))
	}
	rp.MaxErrors = 0.01
	rp.Analyse()
	return rp
}

// addInterval appends r, one interval's run, to total's Series as a Point
// and adds its counts and latencies to total's.
func addInterval(total, r *stats.Result) {
	o := &r.Counts.Outcomes
	pt := stats.Point{Start: r.Start, Ended: o.Sum() - o[stats.Dropped], OK: o[stats.OK], Non2xx: o[stats.Non2xx],
		Failed: o.Failed(), Latency: cloneDist(r.Latency[stats.Total]), Corrected: cloneDist(r.Latency[stats.Corrected])}
	for k := stats.Outcome(0); k < stats.NumOutcomes; k++ {
		if k.Failed() && o[k] > 0 {
			if pt.Errors == nil {
				pt.Errors = map[string]int64{}
			}
			pt.Errors[k.String()] = o[k]
		}
	}
	total.Series.Points = append(total.Series.Points, pt)
	if total.Start.IsZero() { // the first interval: take its run's other fields
		series := total.Series
		*total = *r
		total.Series = series
		total.Counts = stats.Counts{Status: map[int]int64{}, Errors: map[string]int64{}}
		total.Latency = stats.Phases{}
	}
	addCounts(&total.Counts, &r.Counts)
	for p, d := range r.Latency {
		switch {
		case d == nil:
		case total.Latency[p] == nil:
			total.Latency[p] = cloneDist(d)
		default:
			total.Latency[p].Exact.Merge(&d.Exact)
			total.Latency[p].Hist.Merge(d.Hist)
		}
	}
	total.Elapsed = r.End.Sub(total.Start)
	total.StoppedBy = r.StoppedBy
}

// addCounts adds c's counters to sum's.
func addCounts(sum, c *stats.Counts) {
	for i, v := range c.Outcomes {
		sum.Outcomes[i] += v
	}
	for k, v := range c.Status {
		sum.Status[k] += v
	}
	for k, v := range c.Errors {
		sum.Errors[k] += v
	}
	scalars := [][2]*int64{{&sum.Dispatched, &c.Dispatched}, {&sum.Scheduled, &c.Scheduled}, {&sum.Late, &c.Late},
		{&sum.Retries, &c.Retries}, {&sum.LengthMismatch, &c.LengthMismatch}, {&sum.KeepAlive, &c.KeepAlive},
		{&sum.Info, &c.Info}, {&sum.ConnsOpened, &c.ConnsOpened}, {&sum.ConnsClosed, &c.ConnsClosed},
		{&sum.BytesIn, &c.BytesIn}, {&sum.BodyIn, &c.BodyIn}, {&sum.BytesOut, &c.BytesOut},
		{&sum.OtherErrors, &c.OtherErrors}, {&sum.OtherStatus, &c.OtherStatus}}
	for _, f := range scalars {
		*f[0] += *f[1]
	}
}

// cloneDist returns a deep copy of d (nil for nil).
func cloneDist(d *stats.Dist) *stats.Dist {
	if d == nil {
		return nil
	}
	c := &stats.Dist{Exact: d.Exact}
	if d.Hist != nil {
		c.Hist = d.Hist.Clone()
	}
	return c
}
