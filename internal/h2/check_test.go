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

// TestChecksOnStatusAndSize: with status and size checks, a response
// that passes them is ok and one that fails one is failed.check (with its
// error and the failed checks' bits), the connection carrying on; and the
// request path still allocates nothing.
func TestChecksOnStatusAndSize(t *testing.T) {
	for _, tc := range []struct {
		exprs []string
		want  stats.Outcome
		fails uint64
	}{
		{[]string{"status==200", "size==2"}, stats.OK, 0},
		{[]string{"status in 200-299", "size>2", "status!=500"}, stats.FailCheck, 0b010},
	} {
		cs, err := check.ParseAll(tc.exprs)
		if err != nil || !Supports(cs) {
			t.Fatalf("%q: %v", tc.exprs, err)
		}
		cfg := clientConfig(t, "127.0.0.1:1", false, &h1.Request{Target: "/", Host: "a", UserAgent: "gb/test"}, 4, 10*time.Second)
		cfg.Client.Addr = cannedServer(t, len(cfg.reqs[0].frames), false)
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
		if n := testing.AllocsPerRun(100, round); n != 0 {
			t.Errorf("%q: %.1f allocations per round of 4 requests", tc.exprs, n)
		}
		c.Close()
	}
	for _, e := range []string{"header[Server]==canned", "body contains ok"} {
		if cs, _ := check.ParseAll([]string{"status==200", e}); Supports(cs) {
			t.Errorf("%q: Supports, want refused (not decoded or kept on HTTP/2)", e)
		}
	}
}
