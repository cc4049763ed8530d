package probe

import (
	"context"
	"runtime/metrics"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gb-bench/gb/internal/client"
	"github.com/gb-bench/gb/internal/h1"
	"github.com/gb-bench/gb/internal/h2"
	"github.com/gb-bench/gb/internal/load"
	"github.com/gb-bench/gb/stats"
	"golang.org/x/net/http2"
)

// hostileH2 is one HTTP/2 case of the suite: a server script and what gb
// must make of it.
type hostileH2 struct {
	name     string
	script   H2Script
	settings []http2.Setting
	want     []stats.Outcome // every request ends in one of these
	body     int             // request body bytes (a POST); 0 = GET
}

// h2Streams is each connection's streams in a probe: more than one, so
// that a server can leave streams pending while it misbehaves on another
// (the floods of issue 30 grew only with --streams >= 2).
const h2Streams = 4

// maxHeapGrowth bounds how far the heap in use may grow above where it
// was before an HTTP/2 case: the floods below send 64 MiB of control
// frames, which gb once queued acknowledgements for without bound.
const maxHeapGrowth = 32 << 20

// floodTimes is how many times a flood's 1 MiB of frames is sent.
const floodTimes = 64

// The HTTP/2 flood payloads, built once so that the memory bound
// measures gb.
var (
	pingFlood     = Frames(1<<20, func(fr *http2.Framer) { _ = fr.WritePing(false, [8]byte{'g', 'b'}) })
	settingsFlood = Frames(1<<20, func(fr *http2.Framer) { _ = fr.WriteSettings() })
)

// answerFirst is how the flood scripts treat a connection's requests:
// the first is answered, the second left pending, and the script
// misbehaves on the third (stream id) only.
func answerFirst(misbehave func(c *H2Conn, id uint32)) H2Script {
	return func(c *H2Conn, id uint32, n int) {
		switch n {
		case 1:
			c.Respond(id, 200, []byte("ok"))
		case 3:
			misbehave(c, id)
		}
	}
}

// The timeouts every stalled request ends by are the run's (-s); a case
// that lists them runs with the short -s and accepts every stall (see
// deadline).
var timeouts = []stats.Outcome{stats.TimeoutFirstByte, stats.TimeoutHeaders, stats.TimeoutBody}

// cut is what a connection the server closed (or gb gave up) leaves its
// streams with.
var cut = []stats.Outcome{stats.FailTruncated, stats.FailProtocol, stats.FailReset, stats.FailStaleConn}

// blocked is what a flooding server that reads gb's frames slower than
// it floods leaves the requests in a write that timed out with.
var blocked = []stats.Outcome{stats.FailWrite}

func join(groups ...[]stats.Outcome) []stats.Outcome {
	var all []stats.Outcome
	for _, g := range groups {
		all = append(all, g...)
	}
	return all
}

var hostilesH2 = []hostileH2{
	{name: "PING flood with streams pending", want: join(outcomes(stats.OK), timeouts, cut, blocked),
		script: answerFirst(func(c *H2Conn, id uint32) { c.Flood(pingFlood, floodTimes) })},
	{name: "SETTINGS flood with streams pending", want: join(outcomes(stats.OK), timeouts, cut, blocked),
		script: answerFirst(func(c *H2Conn, id uint32) { c.Flood(settingsFlood, floodTimes) })},
	{name: "CONTINUATION flood of empty frames", want: join(outcomes(stats.OK), timeouts, cut, blocked),
		script: answerFirst(func(c *H2Conn, id uint32) {
			if c.Framer().WriteHeaders(http2.HeadersFrameParam{StreamID: id, BlockFragment: c.Block(200)}) == nil {
				c.Flood(Frames(1<<20, func(fr *http2.Framer) { _ = fr.WriteContinuation(id, false, nil) }), -1)
			}
		})},
	{name: "CONTINUATION flood of header fields", want: join(outcomes(stats.OK), timeouts, cut, blocked),
		script: answerFirst(func(c *H2Conn, id uint32) {
			field := c.Block(200, "x-flood", "fffffffffffffffffffffffffffffffffffffffffffffff")
			if c.Framer().WriteHeaders(http2.HeadersFrameParam{StreamID: id, BlockFragment: c.Block(200)}) == nil {
				c.Flood(Frames(1<<20, func(fr *http2.Framer) { _ = fr.WriteContinuation(id, false, field) }), -1)
			}
		})},
	{name: "DATA flood (endless body)", want: join(outcomes(stats.OK), timeouts, cut, blocked),
		script: answerFirst(func(c *H2Conn, id uint32) {
			if c.Framer().WriteHeaders(http2.HeadersFrameParam{StreamID: id, BlockFragment: c.Block(200), EndHeaders: true}) == nil {
				c.Flood(Frames(1<<20, func(fr *http2.Framer) { _ = fr.WriteData(id, false, zeros[:16<<10]) }), -1)
			}
		})},
	{name: "zero window never updated", body: 1000, settings: []http2.Setting{{ID: http2.SettingInitialWindowSize, Val: 0}},
		want: outcomes(stats.FailWrite), script: func(*H2Conn, uint32, int) {}},
	{name: "window overflow", want: join(outcomes(stats.OK, stats.FailProtocol), cut),
		script: func(c *H2Conn, id uint32, n int) {
			if n%2 == 0 {
				_ = c.Framer().WriteWindowUpdate(0, 1<<31-1)
				_ = c.Framer().WriteWindowUpdate(0, 1<<31-1)
				return
			}
			c.Respond(id, 200, []byte("ok"))
		}},
	{name: "GOAWAY storm", want: join(outcomes(stats.OK), cut),
		script: func(c *H2Conn, id uint32, n int) {
			if n == 1 {
				c.Respond(id, 200, []byte("ok"))
			}
			c.Flood(Frames(64<<10, func(fr *http2.Framer) { _ = fr.WriteGoAway(id, http2.ErrCodeNo, nil) }), 1)
			if n > 1 {
				_ = c.Close()
			}
		}},
	{name: "RST_STREAM storm on unknown streams", want: join(outcomes(stats.FailReset), timeouts),
		script: func(c *H2Conn, id uint32, n int) {
			c.Flood(Frames(64<<10, func(fr *http2.Framer) { _ = fr.WriteRSTStream(id+1000, http2.ErrCodeCancel) }), 1)
			_ = c.Framer().WriteRSTStream(id, http2.ErrCodeInternal)
		}},
	{name: "content-length longer than the body", want: outcomes(stats.FailProtocol),
		script: func(c *H2Conn, id uint32, n int) { c.Respond(id, 200, []byte("ok"), "content-length", "20") }},
	{name: "content-length shorter than the body", want: outcomes(stats.FailProtocol),
		script: func(c *H2Conn, id uint32, n int) { c.Respond(id, 200, []byte("ok and more"), "content-length", "2") }},
	{name: "REFUSED_STREAM every time", want: outcomes(stats.FailStaleConn),
		script: func(c *H2Conn, id uint32, n int) {
			_ = c.Framer().WriteRSTStream(id, http2.ErrCodeRefusedStream)
		}},
}

func TestHostileH2Servers(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e engine) {
		for _, h := range hostilesH2 {
			t.Run(h.name, func(t *testing.T) { probeH2(t, h, e) })
		}
	})
}

// probeH2 runs 8 requests on one connection at a time, with h2Streams
// streams, against h's server: the run ends by itself (a hang fails at a
// generous bound, never a speed threshold), every request ends in one
// outcome of h.want, the heap stays within maxHeapGrowth, and gb counts
// no more responses than the server read requests.
func probeH2(t *testing.T, h hostileH2, e engine) {
	srv, err := StartH2(h.script, h.settings...)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	req := &h1.Request{Host: srv.Addr(), UserAgent: "gb-probe"}
	if h.body > 0 {
		req.Method, req.Body = "POST", make([]byte, h.body)
	}
	s, want := deadline(h.want)
	h.want = want
	cc := &client.Config{Addr: srv.Addr(), Timeout: s, BufferSize: h1.DefaultBufferSize, Idempotent: h.body == 0}
	cfg, err := h2.NewConfig(cc, req, "http", h2Streams)
	if err != nil {
		t.Fatal(err)
	}
	lc := e.apply(load.Config{Concurrency: 1, Requests: 8, Duration: time.Minute, MaxConnectFailures: 100})
	lc.NewConn = func(ctx context.Context) load.Conn { return h2.New(ctx, cfg) }
	r, err := load.New(lc)
	if err != nil {
		t.Fatal(err)
	}
	peak := watchHeap()
	done := make(chan *stats.Result, 1)
	go func() { done <- r.Run(context.Background(), stats.Result{}) }()
	var res *stats.Result
	select {
	case res = <-done:
	case <-time.After(time.Minute):
		t.Fatalf("the run did not end within a minute (-s is %v)", s)
	}
	grown := peak()
	c := res.Counts
	t.Logf("%v; errors %v; heap grew %d KiB; server read %d requests on %d connections", c.Outcomes, c.Errors, grown>>10,
		srv.Requests(), srv.Conns())
	if res.StoppedBy != stats.StopCount {
		t.Errorf("stopped by %q (%s): the run's own timeouts did not end every request", res.StoppedBy, res.StopError)
	}
	for _, err := range res.Check() {
		t.Errorf("invariant: %v", err)
	}
	if grown > maxHeapGrowth {
		t.Errorf("the heap grew %d MiB, more than %d MiB", grown>>20, maxHeapGrowth>>20)
	}
	checkH2Outcomes(t, h.want, res, 8)
	if responded := c.Outcomes[stats.OK] + c.Outcomes[stats.Non2xx]; responded > srv.Requests() {
		t.Errorf("gb counted %d responses, the server read %d requests", responded, srv.Requests())
	}
	if sent := c.Dispatched + c.Retries; srv.Requests() > sent {
		t.Errorf("the server read %d requests, gb sent %d (dispatched %d, retried %d)", srv.Requests(), sent, c.Dispatched, c.Retries)
	}
}

// watchHeap samples the bytes of heap objects in use every millisecond
// until the returned function is called, which returns the most they
// grew above the first sample.
func watchHeap() func() int64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	read := func() int64 { metrics.Read(s); return int64(s[0].Value.Uint64()) }
	base := read()
	var most atomic.Int64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			most.Store(max(most.Load(), read()-base))
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	})
	return func() int64 {
		close(stop)
		wg.Wait()
		return max(most.Load(), read()-base)
	}
}

// checkH2Outcomes asserts that all n requests were dispatched and each
// ended in one of want, and that every failure is in the error tallies.
func checkH2Outcomes(t *testing.T, want []stats.Outcome, res *stats.Result, n int64) {
	t.Helper()
	c := res.Counts
	var failed, inWant, tallied int64
	for o, k := range c.Outcomes {
		if stats.Outcome(o).Failed() {
			failed += k
		}
		if slices.Contains(want, stats.Outcome(o)) {
			inWant += k
		}
	}
	for _, k := range c.Errors {
		tallied += k
	}
	if inWant != c.Dispatched || c.Dispatched != n {
		t.Errorf("outcomes %v (errors %v), want all %d in %v", c.Outcomes, c.Errors, n, want)
	}
	if tallied+c.OtherErrors != failed {
		t.Errorf("errors tally %d (%v) for %d failed requests", tallied+c.OtherErrors, c.Errors, failed)
	}
}
