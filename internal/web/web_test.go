package web

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/gb-bench/gb/stats"
)

// script is a Source whose figures the test sets.
type script struct {
	mu  sync.Mutex
	fig Figures
}

func (s *script) set(f Figures) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fig = f
}

func (s *script) source(f *Figures) {
	s.mu.Lock()
	defer s.mu.Unlock()
	*f = s.fig
	if s.fig.Latency != nil {
		f.Latency = s.fig.Latency.Clone() // a fresh copy, as gb.Live gives
	}
}

// hist returns a latency histogram (µs) holding n values of each of vals.
func hist(t *testing.T, n int64, vals ...int64) *hdrhistogram.Histogram {
	t.Helper()
	h := stats.NewHistogram()
	for _, v := range vals {
		if err := h.RecordValues(v, n); err != nil {
			t.Fatal(err)
		}
	}
	return h
}

// figures is a load at elapsed seconds with ok 2xx, failed connects and
// the latency so far.
func figures(elapsed float64, ok, connFailed int64, lat *hdrhistogram.Histogram) Figures {
	f := Figures{Elapsed: time.Duration(elapsed * float64(time.Second)), ConnsOpen: 7, Latency: lat,
		ClientCPU: time.Duration(elapsed * float64(time.Second) / 2)}
	f.Outcomes[stats.OK] = ok
	f.Outcomes[stats.FailConnect] = connFailed
	return f
}

// TestSampler: a sample's counters are the source's, its rate and
// latency cover the time since the previous sample (the latency of what
// closed in between), and a new run starts over.
func TestSampler(t *testing.T) {
	var sc script
	var s sampler
	s.reset()
	sc.set(figures(1, 100, 0, hist(t, 100, 1000)))
	a := s.sample(sc.source)
	sc.set(figures(3, 700, 5, hist(t, 100, 1000, 5000)))
	b := s.sample(sc.source)
	sc.set(figures(4, 800, 5, hist(t, 100, 1000, 5000)))
	c := s.sample(sc.source)

	if a.Run != 1 || a.OK != 100 || a.Rate != 100 || a.Conns != 7 || a.Latency == nil || a.Latency.N != 100 || a.Latency.P99 != 1 {
		t.Errorf("first sample %+v (latency %+v): want run 1, 100 ok at 100/s, 7 conns, 100 latencies of 1 ms", a, a.Latency)
	}
	if b.Rate != 300 || b.Other["failed.connect"] != 5 || len(b.Other) != 1 || b.ClientGB != 0.5 {
		t.Errorf("second sample %+v: want 300/s, 5 failed.connect, gb at 0.5 cores", b)
	}
	if l := b.Latency; l == nil || l.N != 100 || l.P50 < 4.99 || l.P50 > 5.01 || l.Max < 4.99 || l.Max > 5.01 {
		t.Errorf("second sample's latency %+v: want the 100 new ones, all 5 ms", l)
	}
	if c.Latency != nil || c.Rate != 100 {
		t.Errorf("third sample %+v: want 100/s and no latency (nothing closed)", c)
	}
	s.reset()
	sc.set(figures(1, 50, 0, hist(t, 10, 2000)))
	if d := s.sample(sc.source); d.Run != 2 || d.Rate != 50 || d.Latency == nil || d.Latency.N != 10 {
		t.Errorf("a new run's first sample %+v: want run 2 at 50/s with its own 10 latencies", d)
	}
}

// event is one server-sent event read from a stream.
type sse struct{ name, data string }

// readEvent reads the next event (up to its blank line); fields other
// than event and data (retry) make an event of their own name.
func readEvent(r *bufio.Reader) (sse, error) {
	var e sse
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return e, err
		}
		line = strings.TrimSuffix(line, "\n")
		switch {
		case line == "":
			return e, nil
		case strings.HasPrefix(line, "event: "):
			e.name = line[len("event: "):]
		case strings.HasPrefix(line, "data: "):
			e.data = line[len("data: "):]
		case strings.HasPrefix(line, "retry: "):
			e.name = "retry"
		default:
			return e, fmt.Errorf("unexpected line %q", line)
		}
	}
}

// startServer serves on a free loopback port, sampling only when the
// test says; closed when the test ends.
func startServer(t *testing.T) *Server {
	t.Helper()
	s, err := listen("127.0.0.1:0", 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// openEvents opens s's event stream.
func openEvents(t *testing.T, s *Server) (*http.Response, *bufio.Reader) {
	t.Helper()
	resp, err := http.Get(s.URL() + "events")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("/events: %s, %q", resp.Status, resp.Header.Get("Content-Type"))
	}
	return resp, bufio.NewReader(resp.Body)
}

// next reads the next event, which must be named name, and decodes its
// data into v.
func next(t *testing.T, r *bufio.Reader, name string, v any) {
	t.Helper()
	e, err := readEvent(r)
	if err != nil {
		t.Fatalf("reading the %s event: %v", name, err)
	}
	if e.name != name {
		t.Fatalf("event %q (%s), want %q", e.name, e.data, name)
	}
	if v != nil {
		if err := json.Unmarshal([]byte(e.data), v); err != nil {
			t.Fatalf("%s event's data %q: %v", name, e.data, err)
		}
	}
}

// TestEventStream: /events sends the samples so far, then each new one,
// then the end with the final figures and where the report is, and
// closes; /report then serves the report under the report's CSP, and the
// server settles once the watching page fetched it. A watcher that comes
// after the end gets the whole run and the end at once.
func TestEventStream(t *testing.T) {
	s := startServer(t)
	var sc script
	s.SetSource(sc.source)
	sc.set(figures(1, 100, 0, hist(t, 100, 1000)))
	s.sampleNow()

	_, r := openEvents(t, s)
	next(t, r, "retry", nil)
	var a, b Sample
	next(t, r, "sample", &a)
	if a.T != 1 || a.OK != 100 || a.Run != 1 {
		t.Errorf("first sample %+v", a)
	}
	sc.set(figures(2, 300, 0, hist(t, 100, 1000, 3000)))
	s.sampleNow()
	next(t, r, "sample", &b)
	if b.T != 2 || b.OK != 300 || b.Rate != 200 || b.Latency == nil || b.Latency.N != 100 {
		t.Errorf("second sample %+v", b)
	}

	select {
	case <-s.Settled():
		t.Fatal("settled before the run ended")
	default:
	}
	report := []byte("<!DOCTYPE html><title>the report</title>")
	sc.set(figures(2.5, 400, 1, hist(t, 100, 1000, 3000)))
	s.Finish(func() []byte { return report })
	var end End
	next(t, r, "end", &end)
	if end.Report != "/report" || end.Final.OK != 400 || end.Final.Other["failed.connect"] != 1 {
		t.Errorf("end %+v", end)
	}
	if _, err := readEvent(r); err != io.EOF {
		t.Errorf("after the end: %v, want the stream closed", err)
	}
	select {
	case <-s.Settled():
		t.Fatal("settled before the watching page fetched the report")
	default:
	}

	resp, err := http.Get(s.URL() + "report")
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !bytes.Equal(got, report) || resp.Header.Get("Content-Security-Policy") != ReportCSP {
		t.Errorf("/report: %q under CSP %q", got, resp.Header.Get("Content-Security-Policy"))
	}
	select {
	case <-s.Settled():
	case <-time.After(time.Minute):
		t.Fatal("not settled after the page fetched the report")
	}

	_, late := openEvents(t, s)
	next(t, late, "retry", nil)
	next(t, late, "sample", &a)
	next(t, late, "sample", &b)
	next(t, late, "end", &end)
	if a.T != 1 || b.T != 2 || end.Final.OK != 400 {
		t.Errorf("a late watcher got %v, %v, %+v", a.T, b.T, end)
	}
}

// TestPage: / is the embedded page under the page's CSP, which is the
// HTML report's (internal/htmlreport's template) plus the page's script and
// event stream; the page's script is its own file.
func TestPage(t *testing.T) {
	tmpl, err := os.ReadFile("../htmlreport/page.html.tmpl")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(tmpl, []byte(`content="`+ReportCSP+`"`)) {
		t.Errorf("the HTML report's CSP is no longer %q", ReportCSP)
	}
	s := startServer(t)
	for path, want := range map[string]string{"": `<script src="/app.js"></script>`, "app.js": "new EventSource('/events')"} {
		resp, err := http.Get(s.URL() + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || resp.Header.Get("Content-Security-Policy") != PageCSP || !bytes.Contains(body, []byte(want)) {
			t.Errorf("/%s: %s, CSP %q, body without %q", path, resp.Status, resp.Header.Get("Content-Security-Policy"), want)
		}
		if path == "" && !bytes.Contains(body, []byte(`content="`+PageCSP+`"`)) {
			t.Errorf("the page's meta CSP is not %q", PageCSP)
		}
		for _, ext := range []string{"http://", "https://", "//cdn"} {
			if bytes.Contains(body, []byte(ext)) {
				t.Errorf("/%s refers to %s", path, ext)
			}
		}
	}
	resp, err := http.Get(s.URL() + "report")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("/report before the end: %s, want 404", resp.Status)
	}
}

// TestSlowWatcher: a client that opens /events and never reads holds
// nothing up: publishing 20 MB of events ends, the server keeps a bounded
// amount of them (its history and one queue), drops the client and
// closes its connection.
func TestSlowWatcher(t *testing.T) {
	s := startServer(t)
	conn, err := net.Dial("tcp", s.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "GET /events HTTP/1.1\r\nHost: %s\r\n\r\n", s.Addr())
	waitWatchers(t, s, 1)
	if s.Watching() != 1 {
		t.Errorf("Watching() = %d, want 1", s.Watching())
	}

	const n, size = 20000, 1 << 10
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range n {
			ev := bytes.Repeat([]byte{'x'}, size)
			copy(ev, fmt.Sprintf("event: sample\ndata: %d", i))
			ev[size-2], ev[size-1] = '\n', '\n'
			s.hub.publish(ev)
		}
	}()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("publishing waited on the client that does not read")
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	held := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	bound := int64((historyLen+64)*size + 4<<20) // the history, a queue of at most 64 events, and slack
	t.Logf("published %d MB; heap grew by %d kB (bound %d kB)", n*size>>20, held>>10, bound>>10)
	if held > bound {
		t.Errorf("the heap grew by %d bytes after %d bytes of events, want at most %d", held, n*size, bound)
	}
	waitWatchers(t, s, 0)

	// Its connection closes: what it can read ends, well short of all.
	_ = conn.SetReadDeadline(time.Now().Add(time.Minute))
	got, err := io.Copy(io.Discard, conn)
	if err != nil {
		t.Fatalf("reading the dropped client's connection: %v after %d bytes", err, got)
	}
	if got >= n*size {
		t.Errorf("the dropped client read %d bytes, all of them", got)
	}
}

// waitWatchers waits until s streams to n watchers.
func waitWatchers(t *testing.T, s *Server, n int) {
	t.Helper()
	for range 6000 {
		s.hub.mu.Lock()
		got := len(s.hub.watchers)
		s.hub.mu.Unlock()
		if got == n {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("never %d watchers", n)
}

// TestTooManyWatchers: MaxWatchers streams are served; one more is
// refused with one line, and served again once one closed.
func TestTooManyWatchers(t *testing.T) {
	s := startServer(t)
	var open []*http.Response
	for range MaxWatchers {
		resp, r := openEvents(t, s)
		next(t, r, "retry", nil)
		open = append(open, resp)
	}
	resp, err := http.Get(s.URL() + "events")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(body), "too many watchers") {
		t.Errorf("watcher %d: %s %q, want 503", MaxWatchers+1, resp.Status, body)
	}
	open[0].Body.Close()
	waitWatchers(t, s, MaxWatchers-1)
	_, r := openEvents(t, s)
	next(t, r, "retry", nil)
}

// TestListen: an empty host is loopback; a port in use and an address
// not on this machine are one-line errors; an unspecified address is
// public.
func TestListen(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	for _, tc := range []struct{ addr, want string }{
		{busy.Addr().String(), "address already in use"},
		{"192.0.2.1:8089", "cannot assign requested address"}, // TEST-NET-1: on no machine
		{"8089", "want host:port"},
	} {
		s, err := Listen(tc.addr)
		if err == nil {
			s.Close()
			t.Errorf("Listen(%q) served", tc.addr)
			continue
		}
		if !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("Listen(%q): %q, want one line with %q", tc.addr, err, tc.want)
		}
	}
	s, err := Listen(":0")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if !strings.HasPrefix(s.Addr(), "127.0.0.1:") || s.Public() {
		t.Errorf("Listen(\":0\") serves %s (public %v), want 127.0.0.1 only", s.Addr(), s.Public())
	}
	all, err := Listen("0.0.0.0:0")
	if err != nil {
		t.Fatal(err)
	}
	defer all.Close()
	if !all.Public() {
		t.Errorf("Listen(\"0.0.0.0:0\") is not public")
	}
}

// TestHostCheck: a loopback server answers requests naming it by a
// loopback address or localhost, and refuses others (a page elsewhere
// that rebound its name to 127.0.0.1).
func TestHostCheck(t *testing.T) {
	s := startServer(t)
	_, port, _ := net.SplitHostPort(s.Addr())
	for host, want := range map[string]int{
		"127.0.0.1:" + port: 200, "localhost:" + port: 200, "[::1]:" + port: 200, "LOCALHOST": 200,
		"attacker.example:" + port: http.StatusMisdirectedRequest, "192.0.2.1": http.StatusMisdirectedRequest,
	} {
		req, _ := http.NewRequest("GET", s.URL(), nil)
		req.Host = host
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("Host %s: %s, want %d", host, resp.Status, want)
		}
	}
}

// BenchmarkSample is the sampler's work once a second (without the
// source's own copy of the latency): the cost of --web beside the load.
func BenchmarkSample(b *testing.B) {
	h := stats.NewHistogram()
	for v := int64(100); v < 200000; v += 37 {
		_ = h.RecordValue(v)
	}
	src := func(f *Figures) { f.Elapsed, f.Latency = time.Second, h }
	var s sampler
	s.reset()
	b.ReportAllocs()
	for b.Loop() {
		s.counts = nil // all of it new: the percentiles are computed
		s.sample(src)
	}
}
