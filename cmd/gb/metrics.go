package main

import (
	"net"
	"os"
	"strings"
	"time"

	"github.com/gb-bench/gb"
	"github.com/gb-bench/gb/internal/getopt"
	"github.com/gb-bench/gb/internal/metrics"
)

// metricsFlags are --metrics-addr, --metrics-buckets and --metrics-linger.
type metricsFlags struct {
	addr    string          // "" = no metrics
	buckets []time.Duration // the classic buckets; nil = metrics.DefaultBuckets
	linger  time.Duration   // serve this long after the load
}

func setMetricsAddr(o *options, v string) error {
	if _, _, err := net.SplitHostPort(v); err != nil {
		return getopt.Errorf(false, "--metrics-addr %q: want host:port, e.g. :9100 or 127.0.0.1:9100", v)
	}
	o.metrics.addr = v
	return nil
}

func setMetricsBuckets(o *options, v string) error {
	o.metrics.buckets = o.metrics.buckets[:0]
	for f := range strings.SplitSeq(v, ",") {
		d, err := getopt.Seconds(strings.TrimSpace(f))
		if err != nil || d <= 0 {
			return getopt.Errorf(false, "--metrics-buckets %q: want positive durations separated by commas, e.g. 1ms,5ms,20ms", v)
		}
		o.metrics.buckets = append(o.metrics.buckets, d)
	}
	return nil
}

// exporter serves --metrics-addr for the runs of one gb command. A nil
// exporter (no --metrics-addr) does nothing.
type exporter struct {
	c        *metrics.Collector
	srv      *metrics.Server
	serveFor time.Duration
}

// startMetrics binds --metrics-addr before the load, so that a port in
// use or an address not on this machine is one line and no load; nil
// without the flag.
func startMetrics(f *metricsFlags, p *gb.Plan) (*exporter, error) {
	if f.addr == "" {
		return nil, nil
	}
	c, err := metrics.NewCollector(f.buckets)
	if err != nil {
		return nil, err
	}
	t := p.Load()
	reg := metrics.Registry(c, metrics.Labels{Target: t.URL, Shard: t.Shard.String()})
	srv, err := metrics.Listen(f.addr, reg)
	if err != nil {
		return nil, err
	}
	return &exporter{c: c, srv: srv, serveFor: f.linger}, nil
}

// watch points the collector at l's figures (a new run).
func (e *exporter) watch(l *gb.Live) {
	if e != nil {
		e.c.SetSource(liveSource(l))
	}
}

// liveSource reads l for a scrape: the live counters first, then the
// closed intervals (which never count more than them).
func liveSource(l *gb.Live) metrics.Source {
	return func(f *metrics.Figures) {
		p := l.Progress()
		f.Elapsed, f.Outcomes, f.Retries, f.Late, f.ConnsOpen = p.Elapsed, p.Outcomes, p.Retries, p.Late, p.ConnsOpen
		f.TargetRate = l.Rate()
		f.Closed = l.Latency(&f.Latency)
	}
}

// linger serves the final figures for --metrics-linger (a signal ends it
// sooner), then stops serving.
func (e *exporter) linger(sig <-chan os.Signal) {
	if e == nil {
		return
	}
	if e.serveFor > 0 {
		t := time.NewTimer(e.serveFor)
		select {
		case <-t.C:
		case <-sig:
			t.Stop()
		}
	}
	e.srv.Close()
}
