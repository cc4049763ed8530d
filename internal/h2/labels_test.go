package h2

import (
	"testing"
	"time"

	"github.com/gb-bench/gb/internal/load"
	"github.com/gb-bench/gb/internal/probe"
	"github.com/gb-bench/gb/stats"
	"golang.org/x/net/http2"
)

// TestWriteTimeoutIsATimeout: a server that reads the request, never
// answers, and sends PING frames without reading gb's acknowledgements:
// gb's write of them blocks until the stream's deadline. The request was
// written and waited for its response, so it is failed.timeout.ttfb, not
// failed.reset.
func TestWriteTimeoutIsATimeout(t *testing.T) { bothEngines(t, testWriteTimeoutIsATimeout) }

func testWriteTimeoutIsATimeout(t *testing.T, loops int) {
	pings := probe.Frames(1<<20, func(fr *http2.Framer) { _ = fr.WritePing(false, [8]byte{1}) })
	s := startScripted(t, &scripted{})
	s.handle(func(c *sconn, id uint32, n int64) {
		for range 64 { // the server reads nothing while it writes
			if _, err := c.nc.Write(pings); err != nil {
				return
			}
		}
	})
	cfg := clientConfig(t, s.addr, false, nil, 1, time.Second)
	res := run(t, cfg, load.Config{Concurrency: 1, Requests: 2, Loops: loops})
	checkCounts(t, res)
	if o := res.Counts.Outcomes; o[stats.TimeoutFirstByte] != 2 {
		t.Errorf("outcomes %v, errors %v: want 2 failed.timeout.ttfb", o, res.Counts.Errors)
	}
}

// TestStreamErrorsGroup: every response is a WINDOW_UPDATE of 0 on its
// stream (a stream error, RFC 9113 §6.9): each request fails as
// failed.protocol, and the errors are one line in the tally, not one
// per stream id.
func TestStreamErrorsGroup(t *testing.T) { bothEngines(t, testStreamErrorsGroup) }

func testStreamErrorsGroup(t *testing.T, loops int) {
	s := startScripted(t, &scripted{})
	s.handle(func(c *sconn, id uint32, n int64) {
		c.fr.AllowIllegalWrites = true
		_ = c.fr.WriteWindowUpdate(id, 0)
	})
	cfg := clientConfig(t, s.addr, false, nil, 4, hangGuard)
	res := run(t, cfg, load.Config{Concurrency: 1, Requests: 12, Loops: loops})
	checkCounts(t, res)
	if o := res.Counts.Outcomes; o[stats.FailProtocol] != 12 || len(res.Counts.Errors) != 1 {
		t.Errorf("outcomes %v, errors %v: want 12 failed.protocol under one error", o, res.Counts.Errors)
	}
}

func TestWithoutStreamIDs(t *testing.T) {
	for in, want := range map[string]string{
		"got PING for stream 0; expected CONTINUATION following HEADERS for stream 5": "got PING for stream N; expected CONTINUATION following HEADERS for stream N",
		"stream error: stream ID 7; PROTOCOL_ERROR":                                   "stream error: stream ID N; PROTOCOL_ERROR",
		"no ids here":               "no ids here",
		"upstream closed; stream x": "upstream closed; stream x",
	} {
		if got := withoutStreamIDs(in); got != want {
			t.Errorf("withoutStreamIDs(%q) = %q, want %q", in, got, want)
		}
	}
}
