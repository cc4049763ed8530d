package probe

import (
	"context"
	"testing"
	"time"

	"github.com/gb-bench/gb/internal/client"
	"github.com/gb-bench/gb/internal/h1"
	"github.com/gb-bench/gb/internal/load"
	"github.com/gb-bench/gb/stats"
)

// TestOverwhelmedServerNoConnectAbort: a server that accepts 3
// connections, answers each after a pause and leaves the rest in its
// backlog. Connects time out over and over while the 3 are in service:
// the 10-attempt connect abort must not fire (connections are open), and
// nothing is aborted.fatal.
func TestOverwhelmedServerNoConnectAbort(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e engine) {
		srv, err := StartOverwhelmed(3, func(c *Conn) {
			if c.ReadRequest() {
				time.Sleep(500 * time.Millisecond) // in service while the other connects fail
				c.Send(ok200)
				c.Serve(ok200)
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		defer srv.Close()
		req := h1.Request{Host: srv.Addr()}
		cc := &client.Config{Addr: srv.Addr(), Request: req.Append(nil), KeepAlive: true, Idempotent: true,
			Timeout: time.Second, ConnectTimeout: 100 * time.Millisecond}
		res := run(t, context.Background(), cc, e.apply(load.Config{Concurrency: 20, Requests: 60, Duration: time.Minute}))
		c := res.Counts.Outcomes
		if res.StoppedBy != stats.StopCount || c[stats.AbortedFatal] != 0 || c[stats.OK] < 3 || c[stats.TimeoutConnect] == 0 {
			t.Errorf("stopped by %q (%s); ok %d, connect timeouts %d, aborted.fatal %d: want the budget spent, some of each, none aborted",
				res.StoppedBy, res.StopError, c[stats.OK], c[stats.TimeoutConnect], c[stats.AbortedFatal])
		}
	})
}
