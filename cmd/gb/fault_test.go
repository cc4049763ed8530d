package main

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gb-bench/gb/internal/testserver"
	"github.com/gb-bench/gb/internal/testsupport"
	"github.com/gb-bench/gb/stats"
)

// faultCase is one row of reliability.md §4.5: gb's flags, a fault
// endpoint, and what gb's JSON result and the server's ledger must show.
type faultCase struct {
	name  string
	args  []string
	path  string
	code  int           // expected exit code: 1 when no request got a response
	limit time.Duration // a hang bound (30-60 s, beyond any busy machine's delay): the outcomes are the check
	check func(t *testing.T, r *stats.Result, l testserver.Ledger)
}

// outcome returns the count of the named outcome.
func outcome(r *stats.Result, o stats.Outcome) int64 { return r.Counts.Outcomes[o] }

// want fails the test unless got == expected.
func want(t *testing.T, what string, got, expected int64) {
	t.Helper()
	if got != expected {
		t.Errorf("%s = %d, want %d", what, got, expected)
	}
}

func faultCases() []faultCase {
	return []faultCase{
		{"F01 baseline", []string{"-n", "1000", "-c", "10", "-k"}, "/ok?size=1024", 0, 30 * time.Second,
			func(t *testing.T, r *stats.Result, l testserver.Ledger) {
				want(t, "ok", outcome(r, stats.OK), 1000)
				want(t, "failed", r.Counts.Outcomes.Failed(), 0)
				want(t, "conns opened", r.Counts.ConnsOpened, 10)
				want(t, "body in", r.Counts.BodyIn, 1024000)
				want(t, "ledger requests", l.Fault.Requests, 1000)
				want(t, "wire in = server out", r.Counts.BytesIn, l.Fault.BytesOut)
			}},
		{"F02 exact-n", []string{"-n", "1001", "-c", "10"}, "/ok", 0, 30 * time.Second,
			func(t *testing.T, r *stats.Result, l testserver.Ledger) {
				want(t, "ledger requests", l.Fault.Requests, 1001)
				want(t, "ok", outcome(r, stats.OK), 1001)
			}},
		{"F05 reset-mid-body", []string{"-n", "20", "-c", "2", "-k"}, "/reset?body=200&size=1000", 1, 30 * time.Second,
			func(t *testing.T, r *stats.Result, l testserver.Ledger) {
				want(t, "failed.reset", outcome(r, stats.FailReset), 20)
				want(t, "body in", r.Counts.BodyIn, 200*20)
				if r.Latency[stats.Total] != nil {
					t.Errorf("latency samples for failed requests: %d", r.Latency[stats.Total].Count)
				}
			}},
		{"F06 close-header", []string{"-n", "50", "-c", "5", "-k"}, "/ok?conn=close", 0, 30 * time.Second,
			func(t *testing.T, r *stats.Result, l testserver.Ledger) {
				want(t, "ok", outcome(r, stats.OK), 50)
				want(t, "conns opened", r.Counts.ConnsOpened, 50)
				want(t, "keep-alive responses", r.Counts.KeepAlive, 0)
			}},
		{"F07 stale-GET", []string{"-n", "200", "-c", "4", "-k"}, "/ok?closeafter=1&conn=silent", 0, 30 * time.Second,
			func(t *testing.T, r *stats.Result, l testserver.Ledger) {
				want(t, "ok", outcome(r, stats.OK), 200)
				want(t, "failed", r.Counts.Outcomes.Failed(), 0)
				want(t, "ledger requests", l.Fault.Requests, 200)
				if r.Counts.Retries > 200-4 {
					t.Errorf("retries %d > n-c", r.Counts.Retries)
				}
			}},
		{"F09 truncated", []string{"-n", "20", "-c", "2"}, "/close-after?body=50&size=100", 1, 30 * time.Second,
			func(t *testing.T, r *stats.Result, l testserver.Ledger) {
				want(t, "failed.truncated", outcome(r, stats.FailTruncated), 20)
				want(t, "body in", r.Counts.BodyIn, 50*20)
			}},
		{"F10 cl-too-short", []string{"-n", "10", "-c", "1", "-k"}, "/length-mismatch?declared=10&actual=20", 0, 30 * time.Second,
			func(t *testing.T, r *stats.Result, l testserver.Ledger) {
				if outcome(r, stats.OK) < 1 || outcome(r, stats.OK)+outcome(r, stats.FailProtocol) != 10 {
					t.Errorf("outcomes %v: want ok >= 1 and ok + failed.protocol = 10", r.Counts.Outcomes)
				}
				if l.Fault.Requests > 10 {
					t.Errorf("server saw %d requests for 10", l.Fault.Requests)
				}
			}},
		{"F11 cl-too-long", []string{"-n", "2", "-c", "2", "-s", "1"}, "/length-mismatch?declared=100&actual=50", 1, 60 * time.Second,
			func(t *testing.T, r *stats.Result, l testserver.Ledger) {
				want(t, "failed.timeout.body", outcome(r, stats.TimeoutBody), 2)
			}},
		{"F13 cl-and-te", []string{"-n", "20", "-c", "2", "-k"}, "/cl-and-te", 0, 30 * time.Second,
			func(t *testing.T, r *stats.Result, l testserver.Ledger) {
				want(t, "ok", outcome(r, stats.OK), 20)
				want(t, "conns opened", r.Counts.ConnsOpened, 20)
			}},
		{"F14 chunked-trailers", []string{"-n", "100", "-c", "4", "-k"}, "/chunked?n=5&size=100&ext=a%3Db&trailers=X-T:1", 0, 30 * time.Second,
			func(t *testing.T, r *stats.Result, l testserver.Ledger) {
				want(t, "ok", outcome(r, stats.OK), 100)
				want(t, "body in", r.Counts.BodyIn, 500*100)
				want(t, "conns opened", r.Counts.ConnsOpened, 4)
			}},
		{"F18 1xx", []string{"-n", "20", "-c", "2", "-k"}, "/1xx?codes=100,103", 0, 30 * time.Second,
			func(t *testing.T, r *stats.Result, l testserver.Ledger) {
				want(t, "ok", outcome(r, stats.OK), 20)
				want(t, "info responses", r.Counts.Info, 40)
				if len(r.Counts.Status) != 1 || r.Counts.Status[200] != 20 {
					t.Errorf("status buckets %v", r.Counts.Status)
				}
			}},
		{"F19 too-many-1xx", []string{"-n", "10", "-c", "2"}, "/1xx?n=50", 1, 30 * time.Second,
			func(t *testing.T, r *stats.Result, l testserver.Ledger) {
				want(t, "failed.protocol", outcome(r, stats.FailProtocol), 10)
			}},
		{"F20 head-cl", []string{"-i", "-n", "50", "-c", "2", "-k"}, "/head?cl=1000000000", 0, 30 * time.Second,
			func(t *testing.T, r *stats.Result, l testserver.Ledger) {
				want(t, "ok", outcome(r, stats.OK), 50)
				want(t, "body in", r.Counts.BodyIn, 0)
				want(t, "conns opened", r.Counts.ConnsOpened, 2)
			}},
		{"F21 204-cl", []string{"-n", "50", "-c", "2", "-k"}, "/nobody?code=204&cl=1000", 0, 30 * time.Second,
			func(t *testing.T, r *stats.Result, l testserver.Ledger) {
				want(t, "ok", outcome(r, stats.OK), 50)
				want(t, "status 204", r.Counts.Status[204], 50)
				want(t, "conns opened", r.Counts.ConnsOpened, 2)
			}},
		{"F21 304-te", []string{"-n", "50", "-c", "2", "-k"}, "/nobody?code=304&te=chunked", 0, 30 * time.Second,
			func(t *testing.T, r *stats.Result, l testserver.Ledger) {
				want(t, "non2xx", outcome(r, stats.Non2xx), 50)
				want(t, "conns opened", r.Counts.ConnsOpened, 2)
			}},
		{"F22 http10-close", []string{"-n", "30", "-c", "3", "-k"}, "/http10?ka=0", 0, 30 * time.Second,
			func(t *testing.T, r *stats.Result, l testserver.Ledger) {
				want(t, "ok", outcome(r, stats.OK), 30)
				want(t, "conns opened", r.Counts.ConnsOpened, 30)
			}},
		{"F22 http10-keepalive", []string{"-n", "30", "-c", "3", "-k"}, "/http10?ka=1", 0, 30 * time.Second,
			func(t *testing.T, r *stats.Result, l testserver.Ledger) {
				want(t, "ok", outcome(r, stats.OK), 30)
				want(t, "conns opened", r.Counts.ConnsOpened, 3)
			}},
		{"F23 slow-headers", []string{"-n", "2", "-c", "2", "-s", "1"}, "/slow-headers?interval=200ms&bytes=10240", 1, 60 * time.Second,
			func(t *testing.T, r *stats.Result, l testserver.Ledger) {
				want(t, "failed.timeout.headers", outcome(r, stats.TimeoutHeaders), 2)
			}},
		{"F24 drip-body", []string{"-n", "1", "--idle-timeout", "1", "-s", "2"}, "/drip?interval=100ms&bytes=1000000", 1, 60 * time.Second,
			func(t *testing.T, r *stats.Result, l testserver.Ledger) {
				want(t, "failed.timeout.total", outcome(r, stats.TimeoutTotal), 1)
			}},
		{"F24 idle-body", []string{"-n", "1", "--idle-timeout", "1", "-s", "10"}, "/stall-body?after=10&ms=inf", 1, 60 * time.Second,
			func(t *testing.T, r *stats.Result, l testserver.Ledger) {
				want(t, "failed.timeout.body", outcome(r, stats.TimeoutBody), 1)
			}},
		{"F24 first-byte", []string{"-n", "1", "--first-byte-timeout", "1", "-s", "10"}, "/stall?ms=inf", 1, 60 * time.Second,
			func(t *testing.T, r *stats.Result, l testserver.Ledger) {
				want(t, "failed.timeout.ttfb", outcome(r, stats.TimeoutFirstByte), 1)
			}},
		{"F26 deadline-inflight", []string{"-t", "2", "-c", "10"}, "/delay?ms=500", 0, 60 * time.Second,
			func(t *testing.T, r *stats.Result, l testserver.Ledger) {
				if r.StoppedBy != stats.StopTime || outcome(r, stats.AbortedDeadline) > 10 ||
					r.Counts.Dispatched != outcome(r, stats.OK)+outcome(r, stats.AbortedDeadline) {
					t.Errorf("stopped by %q, outcomes %v, dispatched %d", r.StoppedBy, r.Counts.Outcomes, r.Counts.Dispatched)
				}
			}},
		{"F28 big-headers", []string{"-n", "5", "-c", "1"}, "/big-headers?bytes=1048576", 1, 30 * time.Second,
			func(t *testing.T, r *stats.Result, l testserver.Ledger) {
				want(t, "failed.protocol", outcome(r, stats.FailProtocol), 5)
				if r.Counts.Errors["h1: response header section too large"] != 5 {
					t.Errorf("errors %v", r.Counts.Errors)
				}
			}},
		// 4 GiB in all: under the race detector beside another test run a
		// body took over ab's 30 s timeout, so the timeout and the hang bound
		// are set far above what any machine needs.
		{"F29 big-body", []string{"-n", "4", "-c", "2", "-k", "-s", "600"}, "/big-body?bytes=1g", 0, 10 * time.Minute,
			func(t *testing.T, r *stats.Result, l testserver.Ledger) {
				want(t, "ok", outcome(r, stats.OK), 4)
				want(t, "body in", r.Counts.BodyIn, 4<<30)
			}},
		{"F30 garbage-ssh", []string{"-n", "5", "-c", "1"}, "/garbage?kind=ssh", 1, 30 * time.Second,
			func(t *testing.T, r *stats.Result, l testserver.Ledger) {
				want(t, "failed.protocol", outcome(r, stats.FailProtocol), 5)
			}},
		{"F30 garbage-tls", []string{"-n", "5", "-c", "1"}, "/garbage?kind=tls", 1, 30 * time.Second,
			func(t *testing.T, r *stats.Result, l testserver.Ledger) {
				want(t, "failed.protocol", outcome(r, stats.FailProtocol), 5)
				for msg := range r.Counts.Errors {
					if !strings.Contains(msg, "use https://") {
						t.Errorf("error %q lacks the https hint", msg)
					}
				}
			}},
		{"F30 garbage-empty", []string{"-n", "5", "-c", "1"}, "/garbage?kind=empty", 1, 30 * time.Second,
			func(t *testing.T, r *stats.Result, l testserver.Ledger) {
				want(t, "failed.protocol", outcome(r, stats.FailProtocol), 5)
			}},
		{"F12 cl-invalid", []string{"-n", "5", "-c", "1", "-k"}, "/cl-invalid?v=abc", 1, 30 * time.Second, protocolFailures(5)},
		{"F12 cl-negative", []string{"-n", "5", "-c", "1", "-k"}, "/cl-invalid?v=-1", 1, 30 * time.Second, protocolFailures(5)},
		{"F12 cl-list", []string{"-n", "5", "-c", "1", "-k"}, "/cl-invalid?v=10,20", 1, 30 * time.Second, protocolFailures(5)},
		{"F12 cl-dup", []string{"-n", "5", "-c", "1", "-k"}, "/cl-invalid?v=dup", 1, 30 * time.Second, protocolFailures(5)},
		{"F12 cl-overflow", []string{"-n", "5", "-c", "1", "-k"}, "/cl-invalid?v=99999999999999999999", 1, 30 * time.Second, protocolFailures(5)},
		{"F15 chunked-bad-hex", []string{"-n", "5", "-c", "1"}, "/chunked?bad=bad-hex", 1, 30 * time.Second, protocolFailures(5)},
		{"F15 chunked-overflow", []string{"-n", "5", "-c", "1"}, "/chunked?bad=overflow", 1, 30 * time.Second, protocolFailures(5)},
		{"F15 chunked-no-crlf", []string{"-n", "5", "-c", "1"}, "/chunked?bad=no-crlf", 1, 30 * time.Second, protocolFailures(5)},
		{"F15 chunked-long-line", []string{"-n", "5", "-c", "1"}, "/chunked?bad=long-line", 1, 30 * time.Second, protocolFailures(5)},
		{"F15 chunked-long-ext", []string{"-n", "5", "-c", "1"}, "/chunked?bad=long-ext", 1, 30 * time.Second, protocolFailures(5)},
		{"F15 chunked-missing-final", []string{"-n", "5", "-c", "1"}, "/chunked?bad=missing-final", 1, 30 * time.Second,
			func(t *testing.T, r *stats.Result, l testserver.Ledger) {
				want(t, "failed.truncated", outcome(r, stats.FailTruncated), 5)
			}},
		{"TE gzip close-delimited", []string{"-n", "10", "-c", "2", "-k"}, "/te?v=gzip&size=100", 0, 30 * time.Second,
			func(t *testing.T, r *stats.Result, l testserver.Ledger) {
				want(t, "ok", outcome(r, stats.OK), 10)
				want(t, "body in", r.Counts.BodyIn, 1000)
				want(t, "conns opened", r.Counts.ConnsOpened, 10)
			}},
		{"header oddities", []string{"-n", "10", "-c", "1", "-k"}, "/fold", 0, 30 * time.Second, okResponses(10)},
		{"bare LF", []string{"-n", "10", "-c", "1", "-k"}, "/bare-lf", 0, 30 * time.Second, okResponses(10)},
		{"non-ASCII header", []string{"-n", "10", "-c", "1", "-k"}, "/non-ascii-hdr", 0, 30 * time.Second, okResponses(10)},
		{"space before colon", []string{"-n", "5", "-c", "1"}, "/space-colon", 1, 30 * time.Second, protocolFailures(5)},
		{"unsolicited 101", []string{"-n", "5", "-c", "1"}, "/101", 1, 30 * time.Second, protocolFailures(5)},
		{"row 4 idle-close race", []string{"-n", "20", "-c", "2", "-k", "-R", "20"}, "/idle-close?after=20ms", 0, 30 * time.Second,
			func(t *testing.T, r *stats.Result, l testserver.Ledger) {
				want(t, "ok", outcome(r, stats.OK), 20)
				want(t, "failed", r.Counts.Outcomes.Failed(), 0)
				want(t, "ledger requests", l.Fault.Requests, 20)
			}},
	}
}

// protocolFailures expects n failed.protocol outcomes and no response.
func protocolFailures(n int64) func(*testing.T, *stats.Result, testserver.Ledger) {
	return func(t *testing.T, r *stats.Result, _ testserver.Ledger) {
		want(t, "failed.protocol", outcome(r, stats.FailProtocol), n)
	}
}

// okResponses expects n ok outcomes over one kept-alive connection.
func okResponses(n int64) func(*testing.T, *stats.Result, testserver.Ledger) {
	return func(t *testing.T, r *stats.Result, _ testserver.Ledger) {
		want(t, "ok", outcome(r, stats.OK), n)
		want(t, "conns opened", r.Counts.ConnsOpened, 1)
	}
}

// TestFaults runs every fault case on both engines and both ways of the
// event loops: the default (the loops, which run kept-alive exchanges
// themselves wherever they can), --engine=loop-tasks (every exchange on
// its coroutine) and --engine=goroutine.
func TestFaults(t *testing.T) {
	for _, engine := range []string{"auto", "loop-tasks", "goroutine"} {
		for _, fc := range faultCases() {
			t.Run(engine+"/"+fc.name, func(t *testing.T) {
				t.Parallel()
				runFault(t, fc, engine)
			})
		}
	}
}

// runFault runs one fault case with --engine=engine and checks it.
func runFault(t *testing.T, fc faultCase, engine string) {
	srv := testsupport.Server(t, testserver.Options{})
	js := filepath.Join(t.TempDir(), "r.json")
	start := time.Now()
	r := runGB(t, append(fc.args, "--engine="+engine, "-q", "--json", js, srv.FaultURL()+fc.path)...)
	if took := time.Since(start); took > fc.limit {
		t.Errorf("run took %v, limit %v", took, fc.limit)
	}
	if r.code != fc.code {
		t.Fatalf("exit %d, want %d\n%s", r.code, fc.code, r.stderr)
	}
	res := readResult(t, js)
	for _, err := range res.Check() {
		t.Errorf("invariant: %v", err)
	}
	if strings.Contains(r.stderr, "BUG") || strings.Contains(r.stderr, "panic") {
		t.Errorf("stderr: %s", r.stderr)
	}
	if wantEngine := expectedEngine(engine); res.Client.Engine != wantEngine {
		t.Errorf("engine %q, want %q", res.Client.Engine, wantEngine)
	}
	fc.check(t, res, srv.Ledger())
}

// expectedEngine is the engine gb should pick under --engine=e: auto means
// the event loops (this suite runs on Linux).
func expectedEngine(e string) string {
	if e != "auto" {
		return e
	}
	return "loop"
}
