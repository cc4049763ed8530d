package probe

import (
	"context"
	"crypto/tls"
	"io"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gb-bench/gb/internal/client"
	"github.com/gb-bench/gb/internal/h1"
	"github.com/gb-bench/gb/internal/load"
	"github.com/gb-bench/gb/stats"
)

// TestStopDuringHandshakeIsAborted: a server that accepts and never
// answers the TLS ClientHello; the run is cancelled (gb's SIGINT) while
// every worker is in its handshake. Each request is aborted.signal, none
// failed.tls, and no error is tallied.
func TestStopDuringHandshakeIsAborted(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e engine) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		var accepted atomic.Int64
		srv, err := Start(func(c *Conn) {
			if accepted.Add(1) == 2 {
				cancel() // both workers are waiting for the ServerHello
			}
			_, _ = io.Copy(io.Discard, c)
		})
		if err != nil {
			t.Fatal(err)
		}
		defer srv.Close()
		req := h1.Request{Host: srv.Addr()}
		cc := &client.Config{Addr: srv.Addr(), Request: req.Append(nil), KeepAlive: true, Idempotent: true,
			TLS: &tls.Config{InsecureSkipVerify: true}, Timeout: time.Minute}
		res := run(t, ctx, cc, e.apply(load.Config{Concurrency: 2, Requests: 10}))
		c := res.Counts
		if res.StoppedBy != stats.StopSignal || c.Outcomes[stats.AbortedSignal] != 2 || c.Dispatched != 2 || len(c.Errors) != 0 {
			t.Errorf("stopped by %q; outcomes %v, dispatched %d, errors %v: want 2 aborted.signal and no error",
				res.StoppedBy, c.Outcomes, c.Dispatched, c.Errors)
		}
	})
}
