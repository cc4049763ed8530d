package probe

import (
	"context"
	"runtime/metrics"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gb-bench/gb/internal/client"
	"github.com/gb-bench/gb/internal/h1"
	"github.com/gb-bench/gb/internal/load"
	"github.com/gb-bench/gb/stats"
)

// hostile is one case of the suite: a server script and what gb must
// make of it.
type hostile struct {
	name   string
	script Script
	want   []stats.Outcome // every request ends in one of these
	// readsAll: the server reads every request gb writes, so its count
	// equals gb's dispatched requests plus retries. Otherwise gb's
	// responses must not outnumber the requests the server read.
	readsAll bool
	method   string // "" = GET
	body     int    // request body bytes
	header   int    // bytes of an extra request header
	pipeline int    // load.Config.Pipeline
	server   string // the Server software gb must report; "" = not checked
	noRetry  bool   // no request may be sent twice
}

const (
	ok200  = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"
	status = "HTTP/1.1 200 OK\r\n"
	drip   = 50 * time.Millisecond
	// timeout is the run's -s in a case that a timeout ends: every
	// stalled request ends by it.
	timeout = 300 * time.Millisecond
	// patient is the run's -s in a case that the server's behaviour ends
	// (a reset, a bad frame, a response): long enough that a busy machine
	// never reaches it, so the case's outcome is the server's doing.
	patient = 30 * time.Second
	// maxAlloc bounds what a case may allocate in all (client, engine and
	// this server): the defects it guards against took gigabytes.
	maxAlloc = 16 << 20
)

// The hostile payloads, built once so that the memory bound measures gb.
var (
	zeros        = make([]byte, 64<<10)
	chunk16K     = []byte("4000\r\n" + strings.Repeat("x", 0x4000) + "\r\n")
	bigHeader    = status + "X-Big: " + strings.Repeat("h", 1<<20) + "\r\n\r\n"
	manyFields   = status + strings.Repeat("X-N: 1\r\n", 10000) + "Content-Length: 2\r\n\r\nok"
	infoFlood    = strings.Repeat("HTTP/1.1 100 Continue\r\n\r\n", 10000) + ok200
	bigExtension = status + "Transfer-Encoding: chunked\r\n\r\n1;" + strings.Repeat("e", 1<<20) + "\r\nx\r\n0\r\n\r\n"
	trailerBomb  = status + "Transfer-Encoding: chunked\r\n\r\n1\r\nx\r\n0\r\n" + strings.Repeat("X-T: t\r\n", 100000) + "\r\n"
)

// hostiles are the scripts: each reads the request first unless its name
// says otherwise, then misbehaves, then holds the connection until gb
// closes it.
var hostiles = []hostile{
	{name: "endless chunked", readsAll: true, want: outcomes(stats.TimeoutBody), script: func(c *Conn) {
		_ = c.ReadRequest() && c.Send(status+"Transfer-Encoding: chunked\r\n\r\n") && c.Repeat(chunk16K, -1)
	}},
	{name: "slow drip in headers", readsAll: true, want: outcomes(stats.TimeoutHeaders), script: func(c *Conn) {
		_ = c.ReadRequest() && c.Drip(ok200, drip)
	}},
	{name: "slow drip in body", readsAll: true, want: outcomes(stats.TimeoutBody), script: func(c *Conn) {
		_ = c.ReadRequest() && c.Send(status+"Content-Length: 100\r\n\r\n") && c.Drip(strings.Repeat("b", 100), drip)
	}},
	{name: "content-length short", readsAll: true, want: outcomes(stats.FailTruncated), script: func(c *Conn) {
		_ = c.ReadRequest() && c.Send(status+"Content-Length: 10\r\n\r\nhalf.")
	}},
	{name: "content-length long", readsAll: true, want: outcomes(stats.OK), script: func(c *Conn) {
		c.Serve(ok200 + "and more bytes than it said")
	}},
	{name: "1 MiB header line", readsAll: true, want: outcomes(stats.FailProtocol), script: func(c *Conn) {
		_ = c.ReadRequest() && c.Send(bigHeader)
		c.Hold()
	}},
	{name: "10000 header fields", readsAll: true, want: outcomes(stats.FailProtocol), script: func(c *Conn) {
		_ = c.ReadRequest() && c.Send(manyFields)
		c.Hold()
	}},
	{name: "8 GiB body", readsAll: true, want: outcomes(stats.TimeoutBody), script: func(c *Conn) {
		_ = c.ReadRequest() && c.Send(status+"Content-Length: 8589934592\r\n\r\n") && c.Repeat(zeros, 8<<30)
	}},
	{name: "RST mid-header", readsAll: true, want: outcomes(stats.FailReset, stats.FailTruncated), script: func(c *Conn) {
		if c.ReadRequest() && c.Send(status+"Content-Le") {
			time.Sleep(10 * time.Millisecond)
			c.Reset()
		}
	}},
	{name: "response before the request", readsAll: true, want: outcomes(stats.OK), script: func(c *Conn) {
		c.Send(ok200)
		c.Serve(ok200)
	}},
	{name: "HTTP/0.9", readsAll: true, want: outcomes(stats.FailProtocol), script: func(c *Conn) {
		_ = c.ReadRequest() && c.Send("<html>hello from 1991</html>\n")
	}},
	{name: "HTTP/2 preface", readsAll: true, want: outcomes(stats.FailProtocol), script: func(c *Conn) {
		_ = c.ReadRequest() && c.Send("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n\x00\x00\x00\x04\x00\x00\x00\x00\x00")
		c.Hold()
	}},
	{name: "HTTP/2 settings frame", readsAll: true, want: outcomes(stats.FailProtocol), script: func(c *Conn) {
		_ = c.ReadRequest() && c.Send("\x00\x00\x06\x04\x00\x00\x00\x00\x00\x00\x03\x00\x00\x00\x64")
		c.Hold()
	}},
	{name: "1xx flood", readsAll: true, want: outcomes(stats.FailProtocol), script: func(c *Conn) {
		_ = c.ReadRequest() && c.Send(infoFlood)
		c.Hold()
	}},
	{name: "invalid status line", readsAll: true, want: outcomes(stats.FailProtocol), script: func(c *Conn) {
		_ = c.ReadRequest() && c.Send("HTTP/1.1 2OO OK\r\nContent-Length: 2\r\n\r\nok")
		c.Hold()
	}},
	{name: "status 999", readsAll: true, want: outcomes(stats.Non2xx), script: func(c *Conn) {
		c.Serve("HTTP/1.1 999 Unheard Of\r\nContent-Length: 2\r\n\r\nok")
	}},
	{name: "chunk-size overflow", readsAll: true, want: outcomes(stats.FailProtocol), script: func(c *Conn) {
		_ = c.ReadRequest() && c.Send(status+"Transfer-Encoding: chunked\r\n\r\nffffffffffffffffffffffff\r\nx\r\n0\r\n\r\n")
		c.Hold()
	}},
	{name: "1 MiB chunk extension", readsAll: true, want: outcomes(stats.FailProtocol), script: func(c *Conn) {
		_ = c.ReadRequest() && c.Send(bigExtension)
		c.Hold()
	}},
	{name: "trailer bomb", readsAll: true, want: outcomes(stats.FailProtocol), script: func(c *Conn) {
		_ = c.ReadRequest() && c.Send(trailerBomb)
		c.Hold()
	}},
	{name: "NUL bytes", readsAll: true, want: outcomes(stats.OK), server: "gb probe", script: func(c *Conn) {
		c.Serve("HTTP/1.1 200 O\x00K\r\nServer: gb\x00probe\r\nX-A: a\x00b\r\nContent-Length: 2\r\n\r\nok")
	}},
	{name: "NUL in the content-length", readsAll: true, want: outcomes(stats.FailProtocol), script: func(c *Conn) {
		_ = c.ReadRequest() && c.Send(status+"Content-Length: 2\x00\r\n\r\nok")
		c.Hold()
	}},
	{name: "close without a response", readsAll: true, want: outcomes(stats.FailProtocol), script: func(c *Conn) {
		c.ReadRequest()
	}},
	// The defects of issue 14.
	{name: "unread 32 MiB POST body (write timeout)", method: "POST", body: 32 << 20, want: outcomes(stats.FailWrite), script: func(c *Conn) {
		time.Sleep(2 * timeout)
		c.Reset()
	}},
	{name: "pipelined POST, silent close after one", method: "POST", body: 16, pipeline: 2, readsAll: true, noRetry: true,
		want: outcomes(stats.OK, stats.FailStaleConn), script: func(c *Conn) {
			_ = c.ReadRequest() && c.Send(ok200) && c.ReadRequest()
		}},
	{name: "two responses per request, pipelined", pipeline: 4, readsAll: true,
		want: outcomes(stats.OK, stats.FailProtocol), script: func(c *Conn) {
			for c.ReadRequest() && (c.N%4 != 0 || c.Send(strings.Repeat(ok200, 8))) {
			}
		}},
	{name: "deep pipeline of 100 KiB requests", pipeline: load.MaxPipeline, header: 100 << 10, readsAll: true,
		want: outcomes(stats.OK), script: func(c *Conn) {
			c.Serve(ok200)
		}},
}

func outcomes(os ...stats.Outcome) []stats.Outcome { return os }

// engine is how a probe runs its workers: Loops event loops (0:
// goroutines), with every exchange on its task when taskOnly.
type engine struct {
	loops    int
	taskOnly bool
}

// apply sets cfg's engine.
func (e engine) apply(cfg load.Config) load.Config {
	cfg.Loops, cfg.TaskOnly = e.loops, e.taskOnly
	return cfg
}

// engines are the engines this system has: goroutines, and where there
// are event loops, one loop running kept-alive exchanges itself and one
// running every exchange on its task.
func engines() map[string]engine {
	e := map[string]engine{"goroutine": {}}
	if _, err := load.New(load.Config{Requests: 1, Loops: 1, NewConn: func(context.Context) load.Conn { return nil }}); err == nil {
		e["loop"] = engine{loops: 1}
		e["loop-tasks"] = engine{loops: 1, taskOnly: true}
	}
	return e
}

func TestHostileServers(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e engine) {
		for _, h := range hostiles {
			t.Run(h.name, func(t *testing.T) { probeOne(t, h, e) })
		}
	})
}

// probeOne runs 4 requests on 2 connections against h's server.
func probeOne(t *testing.T, h hostile, e engine) {
	srv, err := Start(h.script)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	req := h1.Request{Method: h.method, Host: srv.Addr(), UserAgent: "gb-probe"}
	if h.body > 0 {
		req.Body = make([]byte, h.body)
	}
	if h.header > 0 {
		req.Headers = []h1.Header{{Name: "X-Pad", Value: strings.Repeat("p", h.header)}}
	}
	s, want := deadline(h.want)
	h.want = want
	cc := &client.Config{Addr: srv.Addr(), Request: req.Append(nil), KeepAlive: true,
		Idempotent: h.method == "", Timeout: s}
	before := allocated()
	res := run(t, context.Background(), cc, e.apply(load.Config{Concurrency: 2, Requests: 4, Duration: time.Minute, Pipeline: h.pipeline}))
	grown := allocated() - before
	reads, err := srv.Settle(time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if res.StoppedBy != stats.StopCount {
		t.Errorf("stopped by %q (%s): the run's own timeouts did not end every request", res.StoppedBy, res.StopError)
	}
	for _, err := range res.Check() {
		t.Errorf("invariant: %v", err)
	}
	t.Logf("%v; allocated %d KiB; server read %d", res.Counts.Outcomes, grown>>10, reads)
	if h.noRetry && res.Counts.Retries != 0 {
		t.Errorf("%d requests sent again", res.Counts.Retries)
	}
	if grown > maxAlloc {
		t.Errorf("allocated %d MiB, more than %d MiB", grown>>20, maxAlloc>>20)
	}
	checkOutcomes(t, h, res)
	if h.server != "" && res.Server.Software != h.server {
		t.Errorf("server software %q, want %q", res.Server.Software, h.server)
	}
	c := res.Counts
	switch responded := c.Outcomes[stats.OK] + c.Outcomes[stats.Non2xx]; {
	case h.readsAll && reads != c.Dispatched+c.Retries:
		t.Errorf("server read %d requests, gb dispatched %d and retried %d", reads, c.Dispatched, c.Retries)
	case responded > reads:
		t.Errorf("gb counted %d responses, the server read %d requests", responded, reads)
	}
}

// checkOutcomes asserts that every request ended in one of h.want, that
// every failure is in the error tallies, and that statuses are counted
// for responses only.
func checkOutcomes(t *testing.T, h hostile, res *stats.Result) {
	t.Helper()
	c := res.Counts
	var failed, inWant, tallied, statuses int64
	for o, n := range c.Outcomes {
		if stats.Outcome(o).Failed() {
			failed += n
		}
		for _, w := range h.want {
			if stats.Outcome(o) == w {
				inWant += n
			}
		}
	}
	for _, n := range c.Errors {
		tallied += n
	}
	for _, n := range c.Status {
		statuses += n
	}
	if inWant != c.Dispatched || c.Dispatched != 4 {
		t.Errorf("outcomes %v (errors %v), want all 4 in %v", c.Outcomes, c.Errors, h.want)
	}
	if tallied+c.OtherErrors != failed {
		t.Errorf("errors tally %d (%v) for %d failed requests", tallied+c.OtherErrors, c.Errors, failed)
	}
	if statuses+c.OtherStatus != c.Outcomes[stats.OK]+c.Outcomes[stats.Non2xx] {
		t.Errorf("status codes %v for %d responses", c.Status, c.Outcomes[stats.OK]+c.Outcomes[stats.Non2xx])
	}
}

// allocated returns the bytes the process has allocated on the heap so far.
func allocated() int64 {
	s := []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}}
	metrics.Read(s)
	return int64(s[0].Value.Uint64())
}

// run drives cfg's load with a client.Fast per worker built from cc, until
// the run ends or ctx is cancelled.
func run(t *testing.T, ctx context.Context, cc *client.Config, cfg load.Config) *stats.Result {
	t.Helper()
	cfg.NewConn = func(ctx context.Context) load.Conn { return client.NewFast(ctx, cc) }
	r, err := load.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return r.Run(ctx, stats.Result{})
}

// forEachEngine runs fn as a subtest per engine.
func forEachEngine(t *testing.T, fn func(t *testing.T, e engine)) {
	for name, e := range engines() {
		t.Run(name, func(t *testing.T) { fn(t, e) })
	}
}

// stalls are the outcomes a run's -s gives a request: a timeout in one of
// its phases, or a write that timed out.
var stalls = []stats.Outcome{stats.TimeoutConnect, stats.TimeoutTLS, stats.TimeoutFirstByte, stats.TimeoutHeaders,
	stats.TimeoutBody, stats.FailWrite}

// deadline is the -s a case runs with, and the outcomes it accepts. A case
// that expects its requests to stall runs with the short timeout, and
// accepts a timeout in any phase: which phase the deadline meets depends
// on how fast the machine is (a busy one may not have read the first byte
// of an endless body in 300 ms). Any other case must end by what the
// server does, so it runs with a deadline a busy machine does not reach,
// and accepts only its own outcomes.
func deadline(want []stats.Outcome) (time.Duration, []stats.Outcome) {
	for _, w := range want {
		if slices.Contains(stalls, w) {
			all := slices.Clone(want)
			for _, st := range stalls {
				if !slices.Contains(all, st) {
					all = append(all, st)
				}
			}
			return timeout, all
		}
	}
	return patient, want
}
