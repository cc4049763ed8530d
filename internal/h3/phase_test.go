package h3

import (
	"context"
	"crypto/tls"
	"net/http"
	"testing"
	"time"

	"github.com/gb-bench/gb/internal/client"
	"github.com/gb-bench/gb/internal/h1"
	"github.com/gb-bench/gb/stats"
)

// stallServer answers /head after release (never, within a test), /body
// with its header section and 10 body bytes and then the rest after
// release, and anything else at once with 6 bytes.
func stallServer(t *testing.T) *server {
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	wait := func(r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}
	return startServer(t, nil, func(_ *server, w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/head":
			wait(r)
		case "/body":
			w.Header().Set("Content-Length", "20")
			_, _ = w.Write([]byte("0123456789"))
			w.(http.Flusher).Flush()
			wait(r)
		}
		_, _ = w.Write([]byte("hello\n"))
	})
}

// limits are a test's timeouts: -s and the phase timeouts.
type limits struct{ total, firstByte, header, idle time.Duration }

// phasedConfig is a client configuration for s with targets GET /head
// (0), /body (1) and / (2), and the timeouts l.
func phasedConfig(t *testing.T, s *server, l limits) *Config {
	t.Helper()
	_, pool := testCert(t)
	cc := &client.Config{Addr: s.addr, TLS: &tls.Config{RootCAs: pool, ServerName: "127.0.0.1"}, Idempotent: true,
		Timeout: l.total, FirstByteTimeout: l.firstByte, HeaderTimeout: l.header, IdleTimeout: l.idle}
	var targets []Target
	for _, p := range []string{"/head", "/body", "/"} {
		targets = append(targets, Target{Request: &h1.Request{Host: s.addr, Target: p}, Idempotent: true})
	}
	cfg, err := NewConfigTargets([]*client.Config{cc}, targets, 1)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// TestPhaseTimeouts: each phase timeout ends the stream it limits with
// its outcome (the header section's wait: failed.timeout.ttfb, or
// failed.timeout.headers with HeaderTimeout alone; the body's:
// failed.timeout.body, the bytes before it counted; -s reached under
// phase timeouts: failed.timeout.total), and the connection lives on:
// the next request is ok on it, one connection in all.
func TestPhaseTimeouts(t *testing.T) {
	s := stallServer(t)
	for _, tc := range []struct {
		name   string
		l      limits
		target int
		want   stats.Outcome
		body   int64
	}{
		{"first byte", limits{total: 30 * time.Second, firstByte: 100 * time.Millisecond}, 0, stats.TimeoutFirstByte, 0},
		{"headers", limits{total: 30 * time.Second, header: 100 * time.Millisecond}, 0, stats.TimeoutHeaders, 0},
		{"idle body", limits{total: 30 * time.Second, idle: 100 * time.Millisecond}, 1, stats.TimeoutBody, 10},
		{"total", limits{total: 300 * time.Millisecond, idle: 20 * time.Second}, 1, stats.TimeoutTotal, 10},
	} {
		c := New(context.Background(), phasedConfig(t, s, tc.l))
		stop := time.AfterFunc(hang, c.Interrupt)
		opened := 0
		for i, target := range []int{tc.target, tc.target, 2} {
			x := new(loadExchange)
			x.Target = target
			o := c.Do(&x.Exchange)
			opened += x.Opened
			want, body := tc.want, tc.body
			if i == 2 {
				want, body = stats.OK, 6
			}
			if o != want || x.Body != body {
				t.Errorf("%s: request %d: %v (%v), body %d; want %v, body %d", tc.name, i, o, x.Err, x.Body, want, body)
			}
		}
		stop.Stop()
		if c.Close(); opened != 1 {
			t.Errorf("%s: %d connections opened, want 1 (a stream's timeout keeps its connection)", tc.name, opened)
		}
	}
}
