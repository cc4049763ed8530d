package h2

import (
	"context"
	"testing"
	"time"

	"github.com/gb-bench/gb/internal/check"
	"github.com/gb-bench/gb/internal/h1"
	"github.com/gb-bench/gb/internal/load"
	"github.com/gb-bench/gb/stats"
)

// TestChecks: with checks on the status, the size, a header field (sent
// literally, or from the server's dynamic table after the connection's
// first response) and the body, a response that passes them is ok and
// one that fails one is failed.check (with its error and the failed
// checks' bits), the connection carrying on, on every response of the
// connection; and the request path still allocates nothing without a
// header check (which has the decoder decode whole blocks).
func TestChecks(t *testing.T) {
	for _, tc := range []struct {
		exprs   []string
		literal bool // the server sends its fields as literals, never indexed
		want    stats.Outcome
		fails   uint64
		allocs  bool // the rounds may allocate
	}{
		{[]string{"status==200", "size==2"}, false, stats.OK, 0, false},
		{[]string{"status in 200-299", "size>2", "status!=500"}, false, stats.FailCheck, 0b010, false},
		{[]string{"body matches ^ok$", "body contains k", "body !matches ^x"}, false, stats.OK, 0, false},
		{[]string{"body contains ok", "body contains nope"}, false, stats.FailCheck, 0b10, false},
		{[]string{"header[Server]==canned", "header[content-length]==2", "header[status]!=200"}, false, stats.OK, 0, true},
		{[]string{"header[Server]==canned", "header[Content-Type]==text/html", "body matches ^ok$"}, true, stats.FailCheck, 0b010, true},
		{[]string{"header[server]!=canned", "header[date] contains 2026", "header[content-type]==text/plain"}, true, stats.FailCheck, 0b001, true},
	} {
		cs, err := check.ParseAll(tc.exprs)
		if err != nil {
			t.Fatalf("%q: %v", tc.exprs, err)
		}
		cfg := clientConfig(t, "127.0.0.1:1", false, &h1.Request{Target: "/", Host: "a", UserAgent: "gb/test"}, 4, 10*time.Second)
		cfg.Client.Addr = cannedServer(t, len(cfg.reqs[0].frames), tc.literal)
		cfg.Client.Checks = cs
		c := New(context.Background(), cfg)
		xs := make([]load.Exchange, 4)
		round := func() {
			for i := range xs {
				xs[i] = load.Exchange{}
				if o, done := c.Start(&xs[i]); done {
					t.Fatalf("%v %v", o, xs[i].Err)
				}
			}
			for range xs {
				x, o := c.Next(time.Time{})
				if o != tc.want || x.Checks != uint8(len(tc.exprs)) || x.CheckFails != tc.fails || (o == stats.FailCheck) != (x.Err != nil) {
					t.Fatalf("%q: outcome %v, checks %d, fails %b, err %v; want %v and %b", tc.exprs, o, x.Checks, x.CheckFails, x.Err, tc.want, tc.fails)
				}
			}
		}
		round()
		if tc.allocs || raceEnabled {
			for range 3 {
				round() // every response of the connection, not only its first
			}
		} else if n := testing.AllocsPerRun(100, round); n != 0 {
			t.Errorf("%q: %.1f allocations per round of 4 requests", tc.exprs, n)
		}
		c.Close()
	}
}
