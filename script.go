package gb

import (
	"context"
	"errors"
	"os"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/gb-bench/gb/internal/client"
	"github.com/gb-bench/gb/internal/load"
	"github.com/gb-bench/gb/internal/script"
	"github.com/gb-bench/gb/stats"
)

// checkScript refuses what a script cannot combine with.
func (c *Config) checkScript() error {
	switch {
	case c.Script == "":
		return nil
	case c.http2(), c.http3():
		return configErr("Script", "{Script} speaks HTTP/1.1 only: not with {Protocol} %q", c.Protocol)
	case len(c.Targets) > 0 || c.Targeter != nil:
		return configErr("Script", "{Script} and {Targets} or {Targeter} cannot be combined: the script makes the requests")
	case c.Pipeline > 1:
		return configErr("Pipeline", "{Pipeline} and {Script} cannot be combined: a script pipelines by returning several requests")
	}
	return nil
}

// compileScript reads and compiles Config.Script for target t (nil
// when there is none). What cannot run is a *ConfigError: a script that
// does not parse reads "file:line: message".
func (c *Config) compileScript(t *target) (*script.Program, error) {
	if c.Script == "" {
		return nil, nil
	}
	src := c.ScriptSource
	if src == nil {
		var err error
		if src, err = os.ReadFile(c.Script); err != nil {
			return nil, configErr("Script", "cannot read {Script}: %v", err)
		}
	}
	scheme := "http"
	if t.tls {
		scheme = "https"
	}
	port := ""
	if t.url.Port() != "" {
		port = strconv.Itoa(t.port)
	}
	tg := script.Target{URL: c.URL, Scheme: scheme, Host: t.host, Port: port, Path: t.path, Headers: c.Headers}
	prog, err := script.Compile(c.Script, src, tg, c.ScriptArgs)
	if err != nil {
		return nil, configErr("Script", "%v", err)
	}
	return prog, nil
}

// scriptLoad makes a load's script threads, one per event loop (or per
// connection on the goroutine engine), runs setup() and init(), asks the
// first thread for one request to learn the pipeline depth (as wrk does)
// and makes lc's connections use the threads. prog is Config.Script
// compiled, cc the Plan's client Config and newClient makes another for
// the first target (Plan.clientConfig). The caller sets the group's
// OnError and OnStop and closes it.
func scriptLoad(lc *load.Config, prog *script.Program, cc *client.Config, newClient func() (*client.Config, error)) (*script.Group, error) {
	n := lc.Concurrency
	if lc.Loops > 0 {
		n = min(lc.Loops, n)
	}
	g, err := prog.NewGroup(n, cc.Addr)
	if err != nil {
		return nil, err
	}
	var first script.Batch
	var rerr *script.RuntimeError
	if err := g.Threads[0].Request(&first); errors.As(err, &rerr) {
		g.Close()
		return nil, err
	} // a request that is not one fails each exchange as failed.script
	if depth := first.Len(); depth > 1 {
		if lc.Pacer != nil {
			g.Close()
			return nil, configErr("Script", "%s: request() pipelines %d requests: not with {Rate} (pipelining is closed-loop)", prog.File(), depth)
		}
		lc.Pipeline = min(depth, load.MaxPipeline)
	}
	ccs, err := threadClients(g, lc.Pipeline > 1, cc, newClient)
	if err != nil {
		g.Close()
		return nil, err
	}
	var next atomic.Int64
	lc.NewConn = func(ctx context.Context) load.Conn {
		i := int(next.Add(1)-1) % len(g.Threads) // worker i runs on loop i mod Loops (load.Config.NewConn)
		f := client.NewFast(ctx, ccs[i])
		f.UseScript(g.Threads[i])
		return f
	}
	lc.KeepOpen = false
	return g, nil
}

// threadClients returns each thread's client configuration: the Plan's
// (base), or for a thread whose setup() changed thread.addr, one that
// dials that address (made by newClient). pipelined keeps connections
// alive (wrk always does).
func threadClients(g *script.Group, pipelined bool, base *client.Config, newClient func() (*client.Config, error)) ([]*client.Config, error) {
	if pipelined && !base.KeepAlive {
		var err error
		if base, err = newClient(); err != nil {
			return nil, err
		}
		base.KeepAlive = true
	}
	ccs := make([]*client.Config, len(g.Threads))
	for i, t := range g.Threads {
		ccs[i] = base
		if t.Addr == base.Addr {
			continue
		}
		cc, err := newClient()
		if err != nil {
			return nil, err
		}
		cc.KeepAlive, cc.Addr, cc.Network = base.KeepAlive, t.Addr, "tcp"
		ccs[i] = cc
	}
	return ccs, nil
}

// scriptDone calls the script's done(summary, latency, requests) with
// res's numbers in wrk's units (microseconds; requests per second).
func scriptDone(g *script.Group, res *stats.Result) error {
	if !g.HasDone() {
		return nil
	}
	o := res.Counts.Outcomes
	var sum script.Summary
	sum.Duration = res.Elapsed
	sum.Requests = res.Complete()
	sum.Bytes = res.Counts.BytesIn
	sum.Errors.Connect = o[stats.FailConnect] + o[stats.FailDNS] + o[stats.FailTLS] + o[stats.FailLocal]
	sum.Errors.Read = o[stats.FailReset] + o[stats.FailTruncated] + o[stats.FailProtocol] + o[stats.FailStaleConn] + o[stats.FailDecode]
	sum.Errors.Write = o[stats.FailWrite]
	sum.Errors.Timeout = o[stats.TimeoutConnect] + o[stats.TimeoutTLS] + o[stats.TimeoutFirstByte] +
		o[stats.TimeoutHeaders] + o[stats.TimeoutBody] + o[stats.TimeoutTotal]
	for code, n := range res.Counts.Status {
		if code > 399 {
			sum.Errors.Status += n
		}
	}
	return g.Done(sum, latencyStats(res.Latency[stats.Total]), rateStats(res.Series))
}

// deferDone returns the function WithScriptDone's caller calls: done()
// with res's numbers, once, then g closed.
func deferDone(g *script.Group, res *stats.Result) func() error {
	var once sync.Once
	var err error
	return func() error {
		once.Do(func() {
			defer g.Close()
			err = scriptDone(g, res)
		})
		return err
	}
}

// latencyStats is done()'s latency object: d's exact moments, its
// percentiles, and its histogram's distinct values (µs).
func latencyStats(d *stats.Dist) *script.Stats {
	s := script.StatsOf(nil)
	if d == nil || d.Count == 0 {
		return s
	}
	s.Min, s.Max, s.Mean, s.Stdev = float64(d.Min), float64(d.Max), d.Mean(), d.StdDev()
	s.Percentile = func(p float64) float64 { return float64(d.Percentile(p)) }
	if h := d.Histogram(); h != nil {
		for _, b := range h.Distribution() {
			if b.Count > 0 {
				s.Values, s.Counts = append(s.Values, float64(b.To)), append(s.Counts, b.Count)
			}
		}
	}
	return s
}

// rateStats is done()'s requests object: the responses per second of
// each interval of the series.
func rateStats(se *stats.Series) *script.Stats {
	if se == nil {
		return script.StatsOf(nil)
	}
	rates := make([]float64, 0, len(se.Points))
	for i, pt := range se.Points {
		for range max(se.Width(i)/max(se.Interval, 1), 1) { // a merged point counts once per interval it holds
			rates = append(rates, pt.RPS)
		}
	}
	return script.StatsOf(rates)
}
