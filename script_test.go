package gb_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gb-bench/gb"
	"github.com/gb-bench/gb/internal/testserver"
	"github.com/gb-bench/gb/internal/testserver/fault"
	"github.com/gb-bench/gb/stats"
)

// scriptServer starts gb's test server; the scripts' loads go to its
// fault listener, which keeps a row per request (method, target, the
// X-Gb-Seq header, bytes read).
func scriptServer(t *testing.T) *testserver.Server {
	t.Helper()
	srv, err := testserver.Start(testserver.Options{Addr: "127.0.0.1:0", NoPprof: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	return srv
}

// runScript runs cfg with testdata/scripts/name; a hang fails after a
// minute.
func runScript(t *testing.T, name string, cfg gb.Config) *gb.Result {
	t.Helper()
	cfg.Script = filepath.Join("testdata", "scripts", name)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := gb.Run(ctx, cfg)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if res.StoppedBy == stats.StopSignal {
		t.Fatal("the load hung: stopped by the test's timeout")
	}
	return res
}

// rows returns the fault listener's rows.
func rows(srv *testserver.Server) []fault.Exchange { return srv.Ledger().Exchanges }

func hostPort(t *testing.T, raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return u.Host
}

func TestScriptPostSendsTheTableRequest(t *testing.T) {
	srv := scriptServer(t)
	res := runScript(t, "form.lua", gb.Config{URL: srv.FaultURL() + "/ok", Requests: 6, Concurrency: 2, KeepAlive: true})
	want := "POST /ok HTTP/1.1\r\nContent-Type: application/x-www-form-urlencoded\r\nHost: " + hostPort(t, srv.FaultURL()) +
		"\r\nContent-Length: 16\r\n\r\nname=gb&lang=lua"
	got := rows(srv)
	if res.Complete() != 6 || len(got) != 6 {
		t.Fatalf("complete %d, server saw %d requests; want 6 and 6", res.Complete(), len(got))
	}
	for _, r := range got {
		if r.Method != "POST" || r.Target != "/ok" || r.BytesIn != int64(len(want)) {
			t.Errorf("server saw %s %s with %d bytes; want POST /ok with %d", r.Method, r.Target, r.BytesIn, len(want))
		}
	}
	if res.Counts.BytesOut != 6*int64(len(want)) {
		t.Errorf("BytesOut = %d, want %d", res.Counts.BytesOut, 6*len(want))
	}
}

func TestScriptRequestNumbersEachRequest(t *testing.T) {
	srv := scriptServer(t)
	const n = 20
	res := runScript(t, "numbered.lua", gb.Config{URL: srv.FaultURL() + "/", Requests: n, Concurrency: 3, KeepAlive: true, CPUs: 1})
	if res.Complete() != n {
		t.Fatalf("complete %d, want %d", res.Complete(), n)
	}
	var seen []string
	for _, r := range rows(srv) {
		num := strings.TrimPrefix(r.Target, "/ok?n=")
		if r.Tag != "n"+num {
			t.Errorf("target %s came with X-Gb-Seq %q", r.Target, r.Tag)
		}
		seen = append(seen, num)
	}
	// One thread (one core): request() is called once before the load to
	// learn the pipeline depth, as wrk does, so the numbers sent are 2..n+1.
	var want []string
	for i := 2; i <= n+1; i++ {
		want = append(want, fmt.Sprint(i))
	}
	slices.Sort(seen)
	slices.Sort(want)
	if !slices.Equal(seen, want) {
		t.Errorf("numbers sent %v, want %v", seen, want)
	}
}

func TestScriptTakesATokenFromAResponse(t *testing.T) {
	srv := scriptServer(t)
	res := runScript(t, "login.lua", gb.Config{URL: srv.FaultURL() + "/", Requests: 5, Concurrency: 1, KeepAlive: true})
	got := rows(srv)
	if res.Complete() != 5 || len(got) != 5 {
		t.Fatalf("complete %d, server saw %d; want 5 and 5", res.Complete(), len(got))
	}
	if got[0].Target != "/ok?hdr=X-Token:tk-4711" || got[0].Tag != "" {
		t.Errorf("first request %s tag %q, want the login without a token", got[0].Target, got[0].Tag)
	}
	for _, r := range got[1:] {
		if r.Target != "/ok?after=login" || r.Tag != "tk-4711" {
			t.Errorf("later request %s tag %q, want /ok?after=login with the token", r.Target, r.Tag)
		}
	}
}

func TestScriptSetupThreadsAndDone(t *testing.T) {
	srv := scriptServer(t)
	out := filepath.Join(t.TempDir(), "done.txt")
	t.Setenv("GB_SCRIPT_OUT", out)
	const n = 30
	res := runScript(t, "threads.lua", gb.Config{URL: srv.FaultURL() + "/ok", Requests: n, Concurrency: 3, KeepAlive: true, Engine: gb.EngineGoroutine})
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatalf("done() wrote nothing: %v", err)
	}
	perTag := map[string]int{}
	for _, r := range rows(srv) {
		perTag[r.Tag]++
	}
	var sent, got int
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 3 {
		t.Fatalf("done wrote %q, want a line per thread (3)", b)
	}
	for _, l := range lines {
		var id, s, g int
		if _, err := fmt.Sscan(l, &id, &s, &g); err != nil {
			t.Fatalf("line %q: %v", l, err)
		}
		if perTag[fmt.Sprint("thread-", id)] != g {
			t.Errorf("thread %d got %d responses; the server saw %d requests from it", id, g, perTag[fmt.Sprint("thread-", id)])
		}
		sent, got = sent+s, got+g
	}
	// The first thread's request() ran once more, before the load.
	if got != n || sent != n+1 || res.Complete() != n {
		t.Errorf("threads sent %d and got %d, complete %d; want %d, %d, %d", sent, got, res.Complete(), n+1, n, n)
	}
}

func TestScriptDoneSeesTheResultsLatency(t *testing.T) {
	srv := scriptServer(t)
	out := filepath.Join(t.TempDir(), "report.txt")
	t.Setenv("GB_SCRIPT_OUT", out)
	res := runScript(t, "percentiles.lua", gb.Config{URL: srv.FaultURL() + "/ok", Requests: 50, Concurrency: 2, KeepAlive: true})
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	lat := res.Latency[stats.Total]
	want := fmt.Sprintf("p50 %d\np90 %d\np99 %d\nmin %d\nmax %d\nrequests 50\nstatus_errors 0\n",
		lat.Percentile(50), lat.Percentile(90), lat.Percentile(99), lat.Min, lat.Max)
	if got := string(b); !strings.HasPrefix(got, want) || !strings.Contains(got, "\nfirst ") {
		t.Errorf("done wrote\n%s\nwant it to start\n%s", got, want)
	}
}

func TestScriptPipelinesTheRequestsItJoins(t *testing.T) {
	for _, n := range []int64{9, 10} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			srv := scriptServer(t)
			res := runScript(t, "three.lua", gb.Config{URL: srv.FaultURL() + "/", Requests: n, Concurrency: 1, KeepAlive: true})
			got := rows(srv)
			if res.Complete() != n || int64(len(got)) != n || res.Counts.Dispatched != n {
				t.Fatalf("complete %d dispatched %d, server saw %d; want %d each", res.Complete(), res.Counts.Dispatched, len(got), n)
			}
			for i, r := range got {
				name := []string{"first", "second", "third"}[i%3]
				if r.Target != "/ok?part="+name || r.Tag != name {
					t.Errorf("request %d: %s tag %q, want part %s", i, r.Target, r.Tag, name)
				}
			}
		})
	}
}

func TestScriptDelay(t *testing.T) {
	srv := scriptServer(t)
	res := runScript(t, "pause.lua", gb.Config{URL: srv.FaultURL() + "/ok", Requests: 10, Concurrency: 2, KeepAlive: true})
	if res.Complete() != 10 || len(rows(srv)) != 10 {
		t.Errorf("complete %d, server saw %d; want 10 and 10", res.Complete(), len(rows(srv)))
	}
}

func TestScriptSetupSetsTheThreadsAddress(t *testing.T) {
	srv := scriptServer(t)
	t.Setenv("GB_SCRIPT_ADDR", hostPort(t, srv.URL()))
	res := runScript(t, "readdress.lua", gb.Config{URL: srv.FaultURL() + "/ok", Requests: 8, Concurrency: 2, KeepAlive: true})
	l := srv.Ledger()
	if res.Complete() != 8 || l.HTTP.Requests != 8 || l.Fault.Requests != 0 {
		t.Errorf("complete %d; main listener saw %d, fault listener %d; want 8, 8, 0", res.Complete(), l.HTTP.Requests, l.Fault.Requests)
	}
}

func TestScriptThreadStopEndsTheLoad(t *testing.T) {
	srv := scriptServer(t)
	res := runScript(t, "enough.lua", gb.Config{URL: srv.FaultURL() + "/ok", Requests: 100000, Concurrency: 1, KeepAlive: true})
	if res.StoppedBy != stats.StopTime || res.Complete() < 3 || res.Complete() >= 100000 {
		t.Errorf("stopped by %s after %d responses; want the script's stop after 3 or a few more", res.StoppedBy, res.Complete())
	}
	if int64(len(rows(srv))) < res.Complete() {
		t.Errorf("complete %d > server's %d", res.Complete(), len(rows(srv)))
	}
}

// TestScriptThreadStopStopsThatThread: as in wrk, thread:stop() stops
// the thread that calls it; the others send the rest of the requests.
func TestScriptThreadStopStopsThatThread(t *testing.T) {
	// The other threads' requests wait at the server until thread 1's
	// third has arrived, so thread 1 gets its three responses however the
	// machine schedules the threads (without the gate, threads 2 and 3 could
	// spend the whole budget first on a busy machine).
	var mu sync.Mutex
	perTag := map[string]int{}
	gate := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tag := r.Header.Get("X-Gb-Seq")
		mu.Lock()
		perTag[tag]++
		if tag == "thread-1" && perTag[tag] == 3 {
			close(gate)
		}
		mu.Unlock()
		if tag != "thread-1" {
			select {
			case <-gate:
			case <-time.After(30 * time.Second): // a hang fails below, it does not block the test
			}
		}
		_, _ = w.Write([]byte("ok"))
	}))
	t.Cleanup(srv.Close)
	const n = 40
	res := runScript(t, "stopone.lua", gb.Config{URL: srv.URL + "/ok", Requests: n, Concurrency: 3, KeepAlive: true, Engine: gb.EngineGoroutine})
	mu.Lock()
	defer mu.Unlock()
	if res.StoppedBy != stats.StopCount || res.Complete() != n || perTag["thread-1"]+perTag["thread-2"]+perTag["thread-3"] != n {
		t.Errorf("stopped by %s, complete %d, server saw %v; want the count, %d, %d", res.StoppedBy, res.Complete(), perTag, n, n)
	}
	if perTag["thread-1"] != 3 || perTag["thread-2"]+perTag["thread-3"] != n-3 {
		t.Errorf("requests per thread %v; want 3 from thread-1, the other %d from threads 2 and 3", perTag, n-3)
	}
}

func TestScriptRequestNotAStringIsFailedScript(t *testing.T) {
	srv := scriptServer(t)
	res := runScript(t, "number.lua", gb.Config{URL: srv.FaultURL() + "/ok", Requests: 5, Concurrency: 1, KeepAlive: true})
	if got := res.Counts.Outcomes[stats.FailScript]; got != 5 || res.Complete() != 0 || len(rows(srv)) != 0 {
		t.Errorf("failed.script %d complete %d, server saw %d; want 5, 0, 0", got, res.Complete(), len(rows(srv)))
	}
	if res.Counts.Dispatched != res.Counts.Outcomes.Sum() {
		t.Errorf("dispatched %d but %d outcomes", res.Counts.Dispatched, res.Counts.Outcomes.Sum())
	}
}

func TestScriptRuntimeErrorStopsTheLoad(t *testing.T) {
	srv := scriptServer(t)
	res := runScript(t, "raising.lua", gb.Config{URL: srv.FaultURL() + "/ok", Requests: 1000, Concurrency: 1, KeepAlive: true})
	if res.StoppedBy != stats.StopError || !strings.HasPrefix(res.StopError, filepath.Join("testdata", "scripts", "raising.lua")+":7: second response seen") {
		t.Errorf("stopped by %s (%q); want an error at raising.lua:7", res.StoppedBy, res.StopError)
	}
	if res.Counts.Outcomes[stats.FailScript] != 1 || res.Complete() != 1 {
		t.Errorf("failed.script %d complete %d; want 1 and 1", res.Counts.Outcomes[stats.FailScript], res.Complete())
	}
}

func TestScriptConfigErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.lua")
	if err := os.WriteFile(bad, []byte("function request()\n  return = 1\nend\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		cfg  gb.Config
		want string
	}{
		{gb.Config{Script: bad}, bad + ":2: "},
		{gb.Config{Script: filepath.Join(dir, "none.lua")}, "cannot read Config.Script"},
		{gb.Config{Script: bad, Protocol: gb.ProtocolH2C}, "HTTP/1.1 only"},
		{gb.Config{Script: bad, Pipeline: 2}, "Config.Pipeline and Config.Script"},
	} {
		tc.cfg.URL, tc.cfg.Requests = "http://127.0.0.1:9/", 1
		_, err := gb.NewPlan(tc.cfg)
		var ce *gb.ConfigError
		if !errors.As(err, &ce) || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%+v: err = %v, want a one-line ConfigError with %q", tc.cfg, err, tc.want)
		}
	}
}

func TestScriptFollowsTheRate(t *testing.T) {
	srv := scriptServer(t)
	res := runScript(t, "numbered.lua", gb.Config{URL: srv.FaultURL() + "/", Requests: 10, Concurrency: 2, KeepAlive: true, Rate: gb.Rate{Freq: 500}})
	if res.Complete() != 10 || len(rows(srv)) != 10 || res.Latency[stats.Corrected] == nil {
		t.Errorf("complete %d, server saw %d, corrected latency %v; want 10, 10 and a corrected latency", res.Complete(), len(rows(srv)), res.Latency[stats.Corrected])
	}
}
