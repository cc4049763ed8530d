package h2

import (
	"testing"
	"time"

	"github.com/gb-bench/gb/internal/load"
	"github.com/gb-bench/gb/stats"
)

// TestCountsEqualServer: closed loops over TLS (ALPN h2) and h2c, with
// several streams per connection, on both engines: every request is
// answered once, and the server counted exactly as many HTTP/2 requests.
func TestCountsEqualServer(t *testing.T) {
	for _, useTLS := range []bool{true, false} {
		for _, loops := range []int{0, 1} {
			gs := startGoServer(t, useTLS, nil)
			cfg := clientConfig(t, gs.addr, useTLS, nil, 10, 10*time.Second)
			res := run(t, cfg, load.Config{Concurrency: 4, Requests: 2003, Loops: loops})
			checkCounts(t, res)
			if res.Counts.Outcomes[stats.OK] != 2003 || gs.served.Load() != 2003 || gs.h1.Load() != 0 {
				t.Errorf("tls=%v loops=%d: ok %d, server counted %d h2 and %d h1; outcomes %v errors %v",
					useTLS, loops, res.Counts.Outcomes[stats.OK], gs.served.Load(), gs.h1.Load(), res.Counts.Outcomes, res.Counts.Errors)
			}
			if res.Counts.ConnsOpened != 4 {
				t.Errorf("tls=%v loops=%d: %d connections opened, want 4", useTLS, loops, res.Counts.ConnsOpened)
			}
		}
	}
}
