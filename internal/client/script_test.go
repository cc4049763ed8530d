//go:build linux

package client

import (
	"bytes"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/gb-bench/gb/internal/load"
	"github.com/gb-bench/gb/internal/script"
	"github.com/gb-bench/gb/internal/testsupport"
	"github.com/gb-bench/gb/stats"
	lua "github.com/yuin/gopher-lua"
)

// lineServer answers every request with benchResponse and keeps each
// request's line ("GET /a HTTP/1.1") in the order it arrived.
type lineServer struct {
	addr  string
	mu    sync.Mutex
	lines []string
}

func newLineServer(t *testing.T) *lineServer {
	s := &lineServer{}
	resp := []byte(benchResponse)
	s.addr = testsupport.Serve(t, func(c net.Conn) {
		buf := make([]byte, 64<<10)
		n := 0
		for {
			k, err := c.Read(buf[n:])
			if err != nil {
				return
			}
			n += k
			for i := bytes.Index(buf[:n], []byte("\r\n\r\n")); i >= 0; i = bytes.Index(buf[:n], []byte("\r\n\r\n")) {
				line, _, _ := bytes.Cut(buf[:i], []byte("\r\n"))
				s.mu.Lock()
				s.lines = append(s.lines, string(line))
				s.mu.Unlock()
				n = copy(buf, buf[i+4:n])
				if _, err := c.Write(resp); err != nil {
					return
				}
			}
		}
	})
	return s
}

// seen returns the request lines the server read so far.
func (s *lineServer) seen() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.lines)
}

// scriptThread compiles src for a target at addr and returns its one
// thread, init() run.
func scriptThread(t *testing.T, addr, src string) *script.Thread {
	t.Helper()
	host, port, _ := net.SplitHostPort(addr)
	tg := script.Target{URL: "http://" + addr + "/", Scheme: "http", Host: host, Port: port, Path: "/"}
	p, err := script.Compile("test.lua", []byte(src), tg, nil)
	if err != nil {
		t.Fatal(err)
	}
	g, err := p.NewGroup(1, addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(g.Close)
	return g.Threads[0]
}

// onLoopScripted runs fn with a keep-alive Fast on an event loop whose
// requests come from th, its connection opened by a first Do.
func onLoopScripted(t *testing.T, addr string, th *script.Thread, fn func(f *Fast)) {
	t.Helper()
	onLoop(t, keepAliveConfig(addr), func(f *Fast) {
		f.UseScript(th)
		var x load.Exchange
		if o := f.Do(&x); o != stats.OK {
			t.Fatalf("first exchange: %v (%v)", o, x.Err)
		}
		fn(f)
	})
}

const preparedScript = `
local req
function init(args) req = wrk.format(nil, "/prepared") end
function request() return req end
`

// TestScriptedExchangesRunOnTheLoop: a script's exchanges on a kept-alive
// connection run on the loop's stack as unscripted ones do (the task
// comes back once, at the end, not per request), and request() is still
// called once per request: a script with a side effect sees each call.
func TestScriptedExchangesRunOnTheLoop(t *testing.T) {
	srv := newLineServer(t)
	th := scriptThread(t, srv.addr, preparedScript+`
calls = 0
local prepared = request
function request() calls = calls + 1; return prepared() end
`)
	onLoopScripted(t, srv.addr, th, func(f *Fast) {
		const n = 200
		d := newDriver(f, func(x *load.Exchange, o stats.Outcome) {
			if o != stats.OK || x.Status != 200 || !x.KeepAlive {
				t.Fatalf("outcome %v status %d keep-alive %v (%v)", o, x.Status, x.KeepAlive, x.Err)
			}
		})
		if parks := d.run(n); parks != 1 {
			t.Errorf("the task came back %d times for %d scripted exchanges, want once (they ran on the task, not the loop)", parks, n)
		}
		if calls := th.L.GetGlobal("calls"); calls != lua.LNumber(n+1) {
			t.Errorf("request() called %v times for %d exchanges and the first Do, want %d", calls, n, n+1)
		}
	})
	if got := srv.seen(); len(got) != 201 || got[200] != "GET /prepared HTTP/1.1" {
		t.Errorf("server saw %d requests (last %q), want 201 of GET /prepared", len(got), got[len(got)-1])
	}
}

// TestScriptedDrivenSendsEachString: on the loop, each request() result is
// what goes out, in order: two prepared strings of the same length taken
// in turn (the parsed form kept for one string is never sent for the
// other) and a string made anew per call.
func TestScriptedDrivenSendsEachString(t *testing.T) {
	for name, src := range map[string]string{
		"alternating": `
local a, b, i = wrk.format(nil, "/a"), wrk.format(nil, "/b"), 0
function request() i = i + 1; if i % 2 == 1 then return a end; return b end
`,
		"counter": `
local i = 0
function request() i = i + 1; return wrk.format(nil, "/n" .. i) end
`,
	} {
		t.Run(name, func(t *testing.T) {
			srv := newLineServer(t)
			th := scriptThread(t, srv.addr, src)
			const n = 60
			onLoopScripted(t, srv.addr, th, func(f *Fast) {
				newDriver(f, func(x *load.Exchange, o stats.Outcome) {
					if o != stats.OK {
						t.Fatalf("outcome %v (%v)", o, x.Err)
					}
				}).run(n)
			})
			got := srv.seen()
			if len(got) != n+1 {
				t.Fatalf("server saw %d requests, want %d", len(got), n+1)
			}
			for i, line := range got {
				want := "GET /n" + strconv.Itoa(i+1) + " HTTP/1.1"
				if name == "alternating" {
					want = "GET /" + [...]string{"a", "b"}[i%2] + " HTTP/1.1"
				}
				if line != want {
					t.Fatalf("request %d was %q, want %q", i+1, line, want)
				}
			}
		})
	}
}

// TestScriptedDrivenRequestFailure: a request() that gives no request on
// the loop ends that exchange as failed.script, with nothing sent and
// request() called once for it; the next exchanges go on.
func TestScriptedDrivenRequestFailure(t *testing.T) {
	srv := newLineServer(t)
	th := scriptThread(t, srv.addr, `
calls = 0
local req = wrk.format(nil, "/ok")
function request()
  calls = calls + 1
  if calls == 4 then return 42 end
  if calls == 6 then return "not a request" end
  return req
end
`)
	var outs []stats.Outcome
	onLoopScripted(t, srv.addr, th, func(f *Fast) {
		newDriver(f, func(x *load.Exchange, o stats.Outcome) {
			outs = append(outs, o)
			if o == stats.FailScript && (x.Err == nil || x.BytesOut != 0 || x.Done.Before(x.Start)) {
				t.Errorf("failed.script with error %v, %d bytes out, start %v done %v", x.Err, x.BytesOut, x.Start, x.Done)
			}
		}).run(8)
	})
	want := []stats.Outcome{stats.OK, stats.OK, stats.FailScript, stats.OK, stats.FailScript, stats.OK, stats.OK, stats.OK}
	if !slices.Equal(outs, want) {
		t.Errorf("outcomes %v, want %v", outs, want)
	}
	if calls := th.L.GetGlobal("calls"); calls != lua.LNumber(9) {
		t.Errorf("request() called %v times for 9 exchanges, want 9", calls)
	}
	if got := srv.seen(); len(got) != 7 || strings.Join(slices.Compact(got), "") != "GET /ok HTTP/1.1" {
		t.Errorf("server saw %q, want 7 of GET /ok", got)
	}
}

// TestScriptedDrivenThreadStop: thread:stop() in response() marks that
// exchange the connection's last, on the loop as in Do.
func TestScriptedDrivenThreadStop(t *testing.T) {
	srv := newLineServer(t)
	th := scriptThread(t, srv.addr, `
local n = 0
function response() n = n + 1; if n == 4 then wrk.thread:stop() end end
`)
	var last []bool
	onLoopScripted(t, srv.addr, th, func(f *Fast) {
		newDriver(f, func(x *load.Exchange, o stats.Outcome) { last = append(last, x.Last) }).run(5)
	})
	if !slices.Equal(last, []bool{false, false, true, true, true}) {
		t.Errorf("Last of the exchanges after the first: %v, want it set from the third (the fourth response)", last)
	}
}

// TestScriptedDelayRunsOnTheTask: a script with delay() keeps its
// exchanges on the worker's task (only it can wait) and still sends each.
func TestScriptedDelayRunsOnTheTask(t *testing.T) {
	srv := newLineServer(t)
	th := scriptThread(t, srv.addr, `function delay() return 1 end`)
	onLoopScripted(t, srv.addr, th, func(f *Fast) {
		d := newDriver(f, func(x *load.Exchange, o stats.Outcome) {
			if o != stats.OK {
				t.Fatalf("outcome %v (%v)", o, x.Err)
			}
		})
		if parks := d.run(5); parks != 0 {
			t.Errorf("%d exchanges were driven on the loop, want none (delay() waits on the task)", parks)
		}
	})
	if got := len(srv.seen()); got != 6 {
		t.Errorf("server saw %d requests, want 6", got)
	}
}

// TestZeroAllocationsPerScriptedRequest: a script whose request()
// returns a prepared string costs no allocation per request on the
// loop's stack: the call, the reused parse of the same string, the send
// and the response.
func TestZeroAllocationsPerScriptedRequest(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's instrumentation allocates")
	}
	srv := rawServer(t, benchResponse)
	th := scriptThread(t, srv, preparedScript)
	onLoopScripted(t, srv, th, func(f *Fast) {
		d := newDriver(f, func(x *load.Exchange, o stats.Outcome) {
			if o != stats.OK {
				t.Fatalf("outcome %v: %v", o, x.Err)
			}
		})
		d.run(10) // the loop's first buffers
		if allocs := testing.AllocsPerRun(20, func() { d.run(10) }); allocs != 0 {
			t.Errorf("%.1f allocations per 10 scripted requests, want 0", allocs)
		}
	})
}
