package h2

import (
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gb-bench/gb/internal/h1"
	"github.com/gb-bench/gb/internal/load"
	"github.com/gb-bench/gb/stats"
	"golang.org/x/net/http2"
)

// TestGoAwayRetriesUnprocessed: each connection answers 5 requests, then
// sends GOAWAY naming the 5th as the last it processed; the requests gb
// sent after it go again on a new connection. Every request ends ok,
// none twice: the server processed exactly -n.
func TestGoAwayRetriesUnprocessed(t *testing.T) {
	for _, loops := range []int{0, 1} {
		s := startScripted(t, &scripted{})
		served := atomic.Int64{}
		s.handle(func(c *sconn, id uint32, n int64) {
			switch {
			case c.n <= 5:
				served.Add(1)
				c.respond(id, 200, []byte("ok"))
			case c.n == 6:
				_ = c.fr.WriteGoAway(id-2, http2.ErrCodeNo, nil)
			}
		})
		cfg := clientConfig(t, s.addr, false, nil, 4, hangGuard)
		res := run(t, cfg, load.Config{Concurrency: 1, Requests: 103, Loops: loops})
		checkCounts(t, res)
		if res.Counts.Outcomes[stats.OK] != 103 || served.Load() != 103 {
			t.Errorf("loops=%d: ok %d, server answered %d; outcomes %v errors %v", loops,
				res.Counts.Outcomes[stats.OK], served.Load(), res.Counts.Outcomes, res.Counts.Errors)
		}
		if res.Counts.Retries == 0 || res.Counts.ConnsOpened < 103/5 {
			t.Errorf("loops=%d: retries %d, connections %d", loops, res.Counts.Retries, res.Counts.ConnsOpened)
		}
	}
}

// TestResetStream: the server resets every third stream (INTERNAL_ERROR)
// and refuses every fifth once (REFUSED_STREAM, not processed): the reset
// ones are failed.reset, the refused ones go again and succeed.
func TestResetStream(t *testing.T) { bothEngines(t, testResetStream) }

func testResetStream(t *testing.T, loops int) {
	var answered atomic.Int64
	s := startScripted(t, &scripted{})
	s.handle(func(c *sconn, id uint32, n int64) {
		switch {
		case n%5 == 0:
			_ = c.fr.WriteRSTStream(id, http2.ErrCodeRefusedStream)
		case n%3 == 0:
			_ = c.fr.WriteRSTStream(id, http2.ErrCodeInternal)
		default:
			answered.Add(1)
			c.respond(id, 200, []byte("ok"))
		}
	})
	cfg := clientConfig(t, s.addr, false, nil, 1, hangGuard)
	res := run(t, cfg, load.Config{Concurrency: 1, Requests: 60, Loops: loops})
	checkCounts(t, res)
	o := res.Counts.Outcomes
	if o[stats.OK] != answered.Load() || o[stats.FailReset] == 0 || o[stats.OK]+o[stats.FailReset] != 60 || res.Counts.Retries == 0 {
		t.Errorf("outcomes %v, server answered %d, retries %d", o, answered.Load(), res.Counts.Retries)
	}
	if res.Counts.ConnsOpened != 1 {
		t.Errorf("%d connections: a reset stream must not cost the connection", res.Counts.ConnsOpened)
	}
	if !hasError(res, "INTERNAL_ERROR") {
		t.Errorf("errors %v: want the reset's code", res.Counts.Errors)
	}
}

// TestMaxConcurrentStreams: the server allows one stream at a time while
// gb asks for 10: gb never opens a second before the first ended.
func TestMaxConcurrentStreams(t *testing.T) { bothEngines(t, testMaxConcurrentStreams) }

func testMaxConcurrentStreams(t *testing.T, loops int) {
	var violations atomic.Int64
	s := startScripted(t, &scripted{settings: []http2.Setting{{ID: http2.SettingMaxConcurrentStreams, Val: 1}}})
	s.handle(func(c *sconn, id uint32, n int64) {
		if c.otherHeaders(20 * time.Millisecond) {
			violations.Add(1)
		}
		c.respond(id, 200, []byte("ok"))
	})
	cfg := clientConfig(t, s.addr, false, nil, 10, 10*time.Second)
	res := run(t, cfg, load.Config{Concurrency: 1, Requests: 30, Loops: loops})
	checkCounts(t, res)
	if res.Counts.Outcomes[stats.OK] != 30 || violations.Load() != 0 || s.requests.Load() != 30 {
		t.Errorf("ok %d, server saw %d requests, %d opened beyond its limit", res.Counts.Outcomes[stats.OK], s.requests.Load(), violations.Load())
	}
}

// TestFlowControlStall: the server gives a 10-byte stream window and
// never opens it further while gb POSTs 1000 bytes: each request ends at
// -s as failed.write, saying the window stayed closed; gb sent no more
// than the window.
func TestFlowControlStall(t *testing.T) { bothEngines(t, testFlowControlStall) }

func testFlowControlStall(t *testing.T, loops int) {
	s := startScripted(t, &scripted{settings: []http2.Setting{{ID: http2.SettingInitialWindowSize, Val: 10}}})
	s.handle(func(*sconn, uint32, int64) {})
	req := &h1.Request{Method: "POST", Target: "/", Host: "x", Body: make([]byte, 1000)}
	cfg := clientConfig(t, s.addr, false, req, 1, 300*time.Millisecond)
	res := run(t, cfg, load.Config{Concurrency: 1, Requests: 2, Loops: loops})
	checkCounts(t, res)
	if res.Counts.Outcomes[stats.FailWrite] != 2 || !hasError(res, "flow-control window") {
		t.Errorf("outcomes %v errors %v", res.Counts.Outcomes, res.Counts.Errors)
	}
	if got := s.bodyIn.Load(); got != 20 {
		t.Errorf("server received %d body bytes, want 2×10 (its window)", got)
	}
}

// TestNoSettings: a server that accepts and never sends its SETTINGS:
// each connection ends at the connect timeout, and the run stops with an
// error that says why.
func TestNoSettings(t *testing.T) { bothEngines(t, testNoSettings) }

func testNoSettings(t *testing.T, loops int) {
	s := startScripted(t, &scripted{noSettings: true})
	cfg := clientConfig(t, s.addr, false, nil, 1, 200*time.Millisecond)
	res := run(t, cfg, load.Config{Concurrency: 1, Requests: 10, MaxConnectFailures: 2, Loops: loops})
	checkCounts(t, res)
	if res.StoppedBy != stats.StopError || !strings.Contains(res.StopError, "sent no SETTINGS") ||
		res.Counts.Outcomes[stats.TimeoutConnect] != 2 {
		t.Errorf("stopped by %q (%s), outcomes %v", res.StoppedBy, res.StopError, res.Counts.Outcomes)
	}
}

// TestHeaderListTooLarge: every other response has 200 fields of 500
// bytes (over the 64 KiB header list limit and 100 fields): those
// requests fail as failed.protocol, the others succeed on the same
// connection (the decoder stays in step with the server's).
func TestHeaderListTooLarge(t *testing.T) { bothEngines(t, testHeaderListTooLarge) }

func testHeaderListTooLarge(t *testing.T, loops int) {
	s := startScripted(t, &scripted{})
	big := make([]string, 0, 400)
	for i := range 200 {
		big = append(big, "x-big-"+string(rune('a'+i%26))+strings.Repeat("k", i/26), strings.Repeat("v", 500))
	}
	s.handle(func(c *sconn, id uint32, n int64) {
		if n%2 == 0 {
			c.respond(id, 200, []byte("ok"))
			return
		}
		block := c.headers(200, big...)
		_ = c.fr.WriteHeaders(http2.HeadersFrameParam{StreamID: id, BlockFragment: block[:10000], EndStream: true})
		for p := block[10000:]; len(p) > 0; {
			k := min(len(p), 10000)
			_ = c.fr.WriteContinuation(id, k == len(p), p[:k])
			p = p[k:]
		}
	})
	cfg := clientConfig(t, s.addr, false, nil, 1, hangGuard)
	res := run(t, cfg, load.Config{Concurrency: 1, Requests: 20, Loops: loops})
	checkCounts(t, res)
	o := res.Counts.Outcomes
	if o[stats.OK] != 10 || o[stats.FailProtocol] != 10 || res.Counts.ConnsOpened != 1 || !hasError(res, "header list too large") {
		t.Errorf("outcomes %v, connections %d, errors %v", o, res.Counts.ConnsOpened, res.Counts.Errors)
	}
}

// TestCloseMidStream: the server sends the head and part of the body,
// then closes: failed.truncated, and the next request opens a new
// connection.
func TestCloseMidStream(t *testing.T) { bothEngines(t, testCloseMidStream) }

func testCloseMidStream(t *testing.T, loops int) {
	s := startScripted(t, &scripted{})
	s.handle(func(c *sconn, id uint32, n int64) {
		_ = c.fr.WriteHeaders(http2.HeadersFrameParam{StreamID: id, BlockFragment: c.headers(200), EndHeaders: true})
		_ = c.fr.WriteData(id, false, []byte("part"))
		time.Sleep(10 * time.Millisecond)
		_ = c.nc.Close()
	})
	cfg := clientConfig(t, s.addr, false, nil, 1, hangGuard)
	res := run(t, cfg, load.Config{Concurrency: 1, Requests: 3, Loops: loops})
	checkCounts(t, res)
	if res.Counts.Outcomes[stats.FailTruncated] != 3 || res.Counts.ConnsOpened != 3 || res.Counts.BodyIn != 12 {
		t.Errorf("outcomes %v, connections %d, body %d", res.Counts.Outcomes, res.Counts.ConnsOpened, res.Counts.BodyIn)
	}
}

// bothEngines runs a test on goroutines and on an event loop.
func bothEngines(t *testing.T, test func(t *testing.T, loops int)) {
	for _, loops := range []int{0, 1} {
		t.Run(fmt.Sprintf("loops=%d", loops), func(t *testing.T) { test(t, loops) })
	}
}

// hasError reports whether one of res's error messages contains s.
func hasError(res *stats.Result, s string) bool {
	for m := range res.Counts.Errors {
		if strings.Contains(m, s) {
			return true
		}
	}
	return false
}

var _ = errors.New

// TestServerClosesBetweenRequests: each connection answers 3 requests,
// then the server closes it without a GOAWAY: the request sent on the
// closed connection meets the keep-alive close race and goes once more
// on a new connection (a GET); every request ends ok, none twice.
func TestServerClosesBetweenRequests(t *testing.T) { bothEngines(t, testServerClosesBetweenRequests) }

func testServerClosesBetweenRequests(t *testing.T, loops int) {
	var answered atomic.Int64
	s := startScripted(t, &scripted{})
	s.handle(func(c *sconn, id uint32, n int64) {
		if c.n > 3 {
			_ = c.nc.Close()
			return
		}
		answered.Add(1)
		c.respond(id, 200, []byte("ok"))
		if c.n == 3 {
			time.Sleep(5 * time.Millisecond)
			_ = c.nc.Close()
		}
	})
	cfg := clientConfig(t, s.addr, false, nil, 1, hangGuard)
	res := run(t, cfg, load.Config{Concurrency: 1, Requests: 30, Loops: loops})
	checkCounts(t, res)
	if res.Counts.Outcomes[stats.OK] != 30 || answered.Load() != 30 || res.Counts.ConnsOpened != 10 {
		t.Errorf("outcomes %v, answered %d, connections %d, errors %v", res.Counts.Outcomes, answered.Load(),
			res.Counts.ConnsOpened, res.Counts.Errors)
	}
}

// TestServerNeverAnswers: the server takes the requests and never
// answers: each ends at -s as failed.timeout.ttfb and is reset, on one
// connection.
func TestServerNeverAnswers(t *testing.T) { bothEngines(t, testServerNeverAnswers) }

func testServerNeverAnswers(t *testing.T, loops int) {
	s := startScripted(t, &scripted{})
	s.handle(func(*sconn, uint32, int64) {})
	cfg := clientConfig(t, s.addr, false, nil, 4, 200*time.Millisecond)
	res := run(t, cfg, load.Config{Concurrency: 1, Requests: 8, Loops: loops})
	checkCounts(t, res)
	if res.Counts.Outcomes[stats.TimeoutFirstByte] != 8 || res.Counts.ConnsOpened != 1 {
		t.Errorf("outcomes %v, connections %d %v", res.Counts.Outcomes, res.Counts.ConnsOpened, res.Counts.Errors)
	}
}

// TestNoStreamsAllowed: a server whose SETTINGS allow no streams at all:
// each request fails at once as failed.protocol saying so, each on a new
// connection, and none is lost.
func TestNoStreamsAllowed(t *testing.T) { bothEngines(t, testNoStreamsAllowed) }

func testNoStreamsAllowed(t *testing.T, loops int) {
	s := startScripted(t, &scripted{settings: []http2.Setting{{ID: http2.SettingMaxConcurrentStreams, Val: 0}}})
	cfg := clientConfig(t, s.addr, false, nil, 4, hangGuard)
	res := run(t, cfg, load.Config{Concurrency: 1, Requests: 5, Loops: loops})
	checkCounts(t, res)
	if res.Counts.Outcomes[stats.FailProtocol] != 5 || s.requests.Load() != 0 || !hasError(res, "allows no streams") {
		t.Errorf("outcomes %v, server saw %d requests, errors %v", res.Counts.Outcomes, s.requests.Load(), res.Counts.Errors)
	}
	if res.Counts.ConnsOpened != 5 || res.Counts.ConnsClosed != 5 {
		t.Errorf("connections opened %d closed %d, want 5 and 5", res.Counts.ConnsOpened, res.Counts.ConnsClosed)
	}
}
