package h2

import (
	"testing"
	"time"

	"github.com/gb-bench/gb/internal/client"
	"github.com/gb-bench/gb/internal/h1"
	"github.com/gb-bench/gb/internal/load"
	"github.com/gb-bench/gb/stats"
	"golang.org/x/net/http2"
)

// TestPhaseTimeoutsPerStream: with --first-byte-timeout and
// --idle-timeout far below -s, a server that never answers every third
// stream and stalls the body of every third after its first DATA: those
// streams end at their phase deadline as failed.timeout.ttfb and
// failed.timeout.body and are reset, the others succeed, all on one
// connection. -s (60 s) and the run's time limit (30 s) are only bounds:
// without per-stream phases the run would stop by time.
func TestPhaseTimeoutsPerStream(t *testing.T) { bothEngines(t, testPhaseTimeoutsPerStream) }

func testPhaseTimeoutsPerStream(t *testing.T, loops int) {
	s := startScripted(t, &scripted{})
	s.handle(func(c *sconn, id uint32, n int64) {
		switch n % 3 {
		case 1: // never answered
		case 2: // the head and a first DATA, then nothing
			_ = c.fr.WriteHeaders(http2.HeadersFrameParam{StreamID: id, BlockFragment: c.headers(200), EndHeaders: true})
			_ = c.fr.WriteData(id, false, []byte("part"))
		default:
			c.respond(id, 200, []byte("ok"))
		}
	})
	cfg := phased(t, s.addr, 4, time.Minute, func(cc *client.Config) {
		cc.FirstByteTimeout, cc.IdleTimeout = 100*time.Millisecond, 100*time.Millisecond
	})
	res := run(t, cfg, load.Config{Concurrency: 1, Requests: 12, Duration: 30 * time.Second, Loops: loops})
	checkCounts(t, res)
	o := res.Counts.Outcomes
	if res.StoppedBy != stats.StopCount || o[stats.TimeoutFirstByte] != 4 || o[stats.TimeoutBody] != 4 || o[stats.OK] != 4 {
		t.Errorf("stopped by %s; outcomes %v errors %v", res.StoppedBy, o, res.Counts.Errors)
	}
	if res.Counts.ConnsOpened != 1 || s.conns.Load() != 1 {
		t.Errorf("%d connections (server saw %d): a stream past its phase deadline must not cost the connection",
			res.Counts.ConnsOpened, s.conns.Load())
	}
	if r := s.resets.Load(); r < 1 || r > 8 {
		t.Errorf("server received %d RST_STREAM, want 1..8 (the timed-out streams, CANCEL)", r)
	}
}

// TestHeaderTimeoutPerStream: with --header-timeout, a server that sends
// each response's HEADERS without END_HEADERS and finishes the block
// (CONTINUATION) only once gb reset the stream: every request ends as
// failed.timeout.headers on one connection, whose header decoding stays
// in step with the server's.
func TestHeaderTimeoutPerStream(t *testing.T) { bothEngines(t, testHeaderTimeoutPerStream) }

func testHeaderTimeoutPerStream(t *testing.T, loops int) {
	var rest = map[uint32][]byte{} // the serve goroutine's only
	// onReset is set before the server starts: its goroutines read it
	// without a lock (set after, it raced with them under -race).
	s := startScripted(t, &scripted{onReset: func(c *sconn, id uint32) {
		if b, ok := rest[id]; ok {
			_ = c.fr.WriteContinuation(id, true, b)
			delete(rest, id)
		}
	}})
	s.handle(func(c *sconn, id uint32, n int64) {
		block := c.headers(200, "x-a", "1", "x-b", "2")
		_ = c.fr.WriteHeaders(http2.HeadersFrameParam{StreamID: id, BlockFragment: block[:3], EndStream: true})
		rest[id] = block[3:]
	})
	cfg := phased(t, s.addr, 1, time.Minute, func(cc *client.Config) { cc.HeaderTimeout = 100 * time.Millisecond })
	res := run(t, cfg, load.Config{Concurrency: 1, Requests: 3, Duration: 30 * time.Second, Loops: loops})
	checkCounts(t, res)
	o := res.Counts.Outcomes
	if res.StoppedBy != stats.StopCount || o[stats.TimeoutHeaders] != 3 || res.Counts.ConnsOpened != 1 {
		t.Errorf("stopped by %s; outcomes %v, connections %d, errors %v", res.StoppedBy, o, res.Counts.ConnsOpened, res.Counts.Errors)
	}
}

// TestPhaseTimeoutTotal: with a phase timeout set, a stream that keeps
// receiving DATA within the idle timeout but outlives -s ends as
// failed.timeout.total, as HTTP/1.1's does.
func TestPhaseTimeoutTotal(t *testing.T) { bothEngines(t, testPhaseTimeoutTotal) }

func testPhaseTimeoutTotal(t *testing.T, loops int) {
	s := startScripted(t, &scripted{})
	s.handle(func(c *sconn, id uint32, n int64) {
		_ = c.fr.WriteHeaders(http2.HeadersFrameParam{StreamID: id, BlockFragment: c.headers(200), EndHeaders: true})
		for range 20 { // 1 s of body, one DATA per 50 ms, never the end
			_ = c.fr.WriteData(id, false, []byte("drip"))
			time.Sleep(50 * time.Millisecond)
		}
	})
	cfg := phased(t, s.addr, 1, 300*time.Millisecond, func(cc *client.Config) { cc.IdleTimeout = 10 * time.Second })
	res := run(t, cfg, load.Config{Concurrency: 1, Requests: 2, Duration: 30 * time.Second, Loops: loops})
	checkCounts(t, res)
	if o := res.Counts.Outcomes; o[stats.TimeoutTotal] != 2 {
		t.Errorf("outcomes %v errors %v", o, res.Counts.Errors)
	}
}

// phased is an h2c client configuration for addr with phase timeouts
// (set sets them on the client.Config before NewConfig reads it).
func phased(t *testing.T, addr string, streams int, timeout time.Duration, set func(*client.Config)) *Config {
	t.Helper()
	cc := &client.Config{Addr: addr, Timeout: timeout, BufferSize: 16 << 10, Idempotent: true}
	set(cc)
	cfg, err := NewConfig(cc, &h1.Request{Target: "/", Host: addr, UserAgent: "gb/test"}, "http", streams)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}
