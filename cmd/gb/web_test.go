package main

import (
	"bytes"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gb-bench/gb/internal/testserver"
	"github.com/gb-bench/gb/internal/testsupport"
)

// TestWebBadInput: a malformed --web is a usage error (22); a port in use
// or an address not on this machine is one line and exit 1, as
// --metrics-addr, before any request.
func TestWebBadInput(t *testing.T) {
	srv := testsupport.Server(t, testserver.Options{})
	listenBadInput(t, srv.URL(), "--web", "8089", false)
	if r := runGB(t, "-n", "5", "--web", ":0", "--web-linger", "soon", srv.URL()+"/"); r.code != exitUsage {
		t.Errorf("--web-linger soon: exit %d, %q", r.code, r.stderr)
	}
	if r := runGB(t, "ramp", "--from", "1", "--to", "2", "--web", ":0", srv.URL()+"/"); r.code != exitUsage || !strings.Contains(r.stderr, "--web is for one run") {
		t.Errorf("gb ramp --web: exit %d, %q; want 22 and a refusal", r.code, r.stderr)
	}
}

// gated is a loopback HTTP server whose requests after the first hold
// wait until release is called: a load that cannot end before the test
// has seen what it wants.
type gated struct {
	*httptest.Server
	hold    int64
	n       atomic.Int64
	release func()
}

func newGated(t *testing.T, hold int64) *gated {
	t.Helper()
	open := make(chan struct{})
	var once sync.Once
	g := &gated{hold: hold, release: func() { once.Do(func() { close(open) }) }}
	g.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if g.n.Add(1) > g.hold {
			<-open
		} else {
			time.Sleep(2 * time.Millisecond)
		}
		fmt.Fprint(w, "ok")
	}))
	t.Cleanup(g.Close)
	t.Cleanup(g.release) // before Close: no handler left waiting
	return g
}

// startRun runs gb with args in this process; the returned function
// waits for its exit code (interrupting it after runLimit).
func startRun(t *testing.T, args ...string) (wait func() int, stderr *lockedBuffer) {
	t.Helper()
	var out lockedBuffer
	stderr = &lockedBuffer{}
	sig := make(chan os.Signal, 1)
	done := make(chan int, 1)
	go func() { done <- run(args, &out, stderr, sig) }()
	var once sync.Once
	code := -1
	wait = func() int {
		once.Do(func() {
			select {
			case code = <-done:
			case <-time.After(runLimit):
				sig <- os.Interrupt
				<-done
				t.Fatalf("gb %q did not finish in %v", args, runLimit)
			}
		})
		return code
	}
	t.Cleanup(func() { wait() })
	return wait, stderr
}

// TestWebStalledWatcher: a client that opens /events and never reads does
// not hold the load up: the run ends with its report and gb exits.
func TestWebStalledWatcher(t *testing.T) {
	g := newGated(t, 50)
	defer g.release() // a failure ends the load too
	addr := freePort(t)
	wait, stderr := startRun(t, "-c", "2", "-n", "300", "--web", addr, "--web-linger", "0", g.URL+"/")
	waitFor(t, "the live page", func() bool { return strings.Contains(stderr.String(), "live page at http://"+addr+"/") })
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "GET /events HTTP/1.1\r\nHost: %s\r\n\r\n", addr)
	g.release()
	if code := wait(); code != exitOK {
		t.Fatalf("gb exited %d: %s", code, stderr.String())
	}
	if got := g.n.Load(); got != 300 {
		t.Errorf("the server saw %d requests, want 300", got)
	}
}

// TestWebPageInBrowser: headless Chromium watches a run on its live page.
// The page updates while the load runs (two screenshots and its figures
// differ), turns to the final report after it (the --html report's
// sections), and requests nothing but its own server's pages; gb then
// exits by itself (the default linger ends once the page has the
// report). The load cannot end before the page updated twice: the
// server holds its requests until then.
func TestWebPageInBrowser(t *testing.T) {
	b := testsupport.StartChromium(t)
	if err := b.Viewport(1280, 900); err != nil {
		t.Fatal(err)
	}
	g := newGated(t, 100)
	defer g.release() // a failure ends the load too
	addr := freePort(t)
	wait, stderr := startRun(t, "-c", "2", "-n", "400", "--web", addr, g.URL+"/hello")
	origin := "http://" + addr + "/"
	waitFor(t, "the live page", func() bool { return strings.Contains(stderr.String(), "live page at "+origin) })
	if err := b.Navigate(origin); err != nil {
		t.Fatal(err)
	}

	type state struct {
		Samples string `json:"samples"`
		Elapsed string `json:"elapsed"`
		Done    string `json:"done"`
		Path    string `json:"path"`
		Title   string `json:"title"`
		Text    string `json:"text"`
	}
	const stateJS = `JSON.stringify({samples: document.body && document.body.dataset.samples || "",
		elapsed: (document.getElementById('c-elapsed') || {}).textContent || "",
		done: (document.getElementById('c-done') || {}).textContent || "",
		path: location.pathname, title: document.title, text: document.body ? document.body.innerText : ""})`
	read := func() state {
		var s state
		if err := b.Eval(stateJS, &s); err != nil {
			t.Logf("reading the page: %v", err) // e.g. between documents
			return state{}
		}
		return s
	}
	var first, second state
	waitFor(t, "the page's first sample", func() bool { first = read(); return first.Samples != "" })
	shot1, err := b.Screenshot()
	if err != nil {
		t.Fatal(err)
	}
	// A later sample can show the same whole second as the first (a tick
	// that came late, then one on time): wait for one that does not.
	waitFor(t, "a later sample showing a new elapsed time", func() bool {
		second = read()
		return second.Samples != "" && second.Samples != first.Samples && second.Elapsed != first.Elapsed
	})
	shot2, err := b.Screenshot()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("page at %s samples: elapsed %s, %s ended; then at %s: %s, %s", first.Samples, first.Elapsed, first.Done, second.Samples, second.Elapsed, second.Done)
	if bytes.Equal(shot1, shot2) {
		t.Error("two screenshots of the page, a sample apart, are the same")
	}

	g.release()
	var final state
	waitFor(t, "the final report", func() bool {
		final = read()
		return final.Path == "/report" && strings.Contains(final.Text, "ab's report")
	})
	for _, want := range []string{"Throughput over time", "Latency by percentile", "Complete requests:"} {
		if !strings.Contains(final.Text, want) {
			t.Errorf("the final page %q does not show %q", final.Title, want)
		}
	}
	if code := wait(); code != exitOK {
		t.Fatalf("gb exited %d: %s", code, stderr.String())
	}
	seen := map[string]bool{}
	for _, u := range b.Requests() {
		if strings.HasPrefix(u, "data:") { // the report's embedded font
			continue
		}
		if !strings.HasPrefix(u, origin) {
			t.Errorf("the page requested %.200s, not from %s", u, origin)
		}
		seen[strings.TrimPrefix(u, origin)] = true
	}
	for _, p := range []string{"", "app.js", "events", "report"} {
		if !seen[p] {
			t.Errorf("the page did not request /%s (requests: %v)", p, keys(seen))
		}
	}
	if d := os.Getenv("GB_HTML_SHOTS"); d != "" { // for people to look at
		os.WriteFile(d+"/web-1.png", shot1, 0o644)
		os.WriteFile(d+"/web-2.png", shot2, 0o644)
	}
}

// keys returns m's keys.
func keys(m map[string]bool) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	return ks
}

// listenBadInput runs a load with flag (an address gb listens on: --web,
// --metrics-addr) set to a malformed address (a usage error, 22), a port
// in use and an address not on this machine (one line, exit 1), and checks
// that no load ran. With oneLine, the usage error is one line too.
func listenBadInput(t *testing.T, url, flag, port string, oneLine bool) {
	t.Helper()
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	for _, tc := range []struct {
		addr, want string
		code       int
	}{
		{port, "want host:port", exitUsage},
		{busy.Addr().String(), "address already in use", exitFailure},
		{"192.0.2.1:" + port, "cannot assign requested address", exitFailure}, // TEST-NET-1: on no machine
	} {
		r := runGB(t, "-n", "5", flag, tc.addr, url+"/")
		lines := strings.Count(r.stderr, "\n")
		if r.code != tc.code || !strings.Contains(r.stderr, tc.want) || (oneLine || tc.code == exitFailure) && lines != 1 {
			t.Errorf("%s %s: exit %d, stderr %q; want %d and one line with %q", flag, tc.addr, r.code, r.stderr, tc.code, tc.want)
		}
		if strings.Contains(r.stdout, "Complete requests") {
			t.Errorf("%s %s: the load ran", flag, tc.addr)
		}
	}
}
