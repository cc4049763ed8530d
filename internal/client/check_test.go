package client

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gb-bench/gb/internal/check"
	"github.com/gb-bench/gb/internal/load"
	"github.com/gb-bench/gb/stats"
)

// checkedConfig is a keep-alive config for addr with the checks exprs.
func checkedConfig(t *testing.T, addr string, exprs ...string) *Config {
	t.Helper()
	s, err := check.ParseAll(exprs)
	if err != nil {
		t.Fatal(err)
	}
	cfg := keepAliveConfig(addr)
	cfg.Checks = s
	return cfg
}

// TestCheckOutcomes: a response that passes every check is ok, one that
// fails any is failed.check with the first failed check's error, and the
// exchange says which failed, on every engine.
func TestCheckOutcomes(t *testing.T) {
	addr := rawServer(t, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 11\r\n\r\n{\"ok\":true}")
	for _, tc := range []struct {
		exprs []string
		want  stats.Outcome
		fails uint64
		err   string
	}{
		{[]string{"status==200", "size==11", "body contains \"ok\":true", "header[content-type] contains json"}, stats.OK, 0, ""},
		{[]string{"status in 200,204", "body matches false", "header[X-Missing]==1"}, stats.FailCheck, 0b110, "check failed: body matches false"},
		{[]string{"status==500"}, stats.FailCheck, 1, "check failed: status==500"},
	} {
		forEachEngine(t, func() *Config { return checkedConfig(t, addr, tc.exprs...) }, func(t *testing.T, f *Fast) {
			for range 3 {
				var x load.Exchange
				o := f.Do(&x)
				errText := ""
				if x.Err != nil {
					errText = x.Err.Error()
				}
				if o != tc.want || x.Checks != uint8(len(tc.exprs)) || x.CheckFails != tc.fails || errText != tc.err {
					t.Fatalf("%q: outcome %v, checks %d, fails %b, err %q; want %v, %d, %b, %q",
						tc.exprs, o, x.Checks, x.CheckFails, errText, tc.want, len(tc.exprs), tc.fails, tc.err)
				}
			}
		})
	}
}

// TestHeaderCheckKeepsNoBody: with header and status checks only, the
// reader keeps the header lines and not one body byte; with a body check
// it keeps the body's first check.MaxBody bytes; with status and size
// checks it keeps nothing at all.
func TestHeaderCheckKeepsNoBody(t *testing.T) {
	const size = check.MaxBody + 4096
	addr := rawServer(t, fmt.Sprintf("HTTP/1.1 200 OK\r\nX-Id: 7\r\nContent-Length: %d\r\n\r\n%s", size, strings.Repeat("b", size)))
	for _, tc := range []struct {
		exprs  []string
		keep   bool
		fields string
		body   int
	}{
		{[]string{"status==200", "header[X-Id]==7"}, true, "X-Id: 7\nContent-Length: 1052672\n", 0},
		{[]string{"body !contains a"}, true, "X-Id: 7\nContent-Length: 1052672\n", check.MaxBody},
		{[]string{"status==200", "size==1052672"}, false, "", 0},
	} {
		forEachEngine(t, func() *Config { return checkedConfig(t, addr, tc.exprs...) }, func(t *testing.T, f *Fast) {
			for range 2 {
				var x load.Exchange
				if o := f.Do(&x); o != stats.OK || x.Body != size {
					t.Fatalf("%q: outcome %v (%v), body %d", tc.exprs, o, x.Err, x.Body)
				}
			}
			k := f.rd.Keep
			switch {
			case !tc.keep && k != nil:
				t.Errorf("%q: the reader keeps the response, want nothing kept", tc.exprs)
			case tc.keep && k == nil:
				t.Errorf("%q: the reader keeps nothing, want the header lines", tc.exprs)
			case tc.keep && (string(k.Fields) != tc.fields || len(k.Body) != tc.body || (tc.body == 0 && cap(k.Body) != 0)):
				t.Errorf("%q: kept fields %q and %d body bytes (capacity %d), want %q and %d", tc.exprs, k.Fields, len(k.Body), cap(k.Body), tc.fields, tc.body)
			}
		})
	}
}

// TestZeroAllocationsPerCheckedRequest: checking a response (status,
// size, header and body checks, a regular expression among them)
// allocates nothing per request, in Do and on the loop's stack.
func TestZeroAllocationsPerCheckedRequest(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's instrumentation allocates (regexp's matcher under it)")
	}
	addr := rawServer(t, benchResponse)
	for _, exprs := range [][]string{
		{"status==200"},
		{"status in 200-299", "size==13", "header[Server]==raw", "body contains World", "body matches ^Hello, [A-Z]"},
	} {
		forEachEngine(t, func() *Config { return checkedConfig(t, addr, exprs...) }, func(t *testing.T, f *Fast) {
			var x load.Exchange
			f.Do(&x) // connect and fill the kept buffers outside the measurement
			allocs := testing.AllocsPerRun(200, func() {
				x = load.Exchange{}
				if o := f.Do(&x); o != stats.OK {
					t.Fatalf("outcome %v: %v", o, x.Err)
				}
			})
			if allocs != 0 {
				t.Errorf("%q: %.1f allocations per request, want 0", exprs, allocs)
			}
		})
		onLoop(t, checkedConfig(t, addr, exprs...), func(f *Fast) {
			var x load.Exchange
			f.Do(&x)
			d := newDriver(f, func(x *load.Exchange, o stats.Outcome) {
				if o != stats.OK || x.Checks != uint8(len(exprs)) {
					t.Fatalf("outcome %v, checks %d: %v", o, x.Checks, x.Err)
				}
			})
			d.run(10)
			if allocs := testing.AllocsPerRun(20, func() { d.run(10) }); allocs != 0 {
				t.Errorf("%q: %.1f allocations per 10 driven requests, want 0", exprs, allocs)
			}
		})
	}
}
