package gb_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gb-bench/gb"
	"github.com/gb-bench/gb/internal/testserver"
	"github.com/gb-bench/gb/internal/testsupport"
	"github.com/gb-bench/gb/stats"
)

// bodyRecorder is a server that keeps every request's method, target,
// headers and body.
type bodyRecorder struct {
	*httptest.Server
	mu   sync.Mutex
	reqs []recorded
}

type recorded struct {
	method, uri string
	header      http.Header
	body        string
}

func startBodyRecorder(t *testing.T) *bodyRecorder {
	r := &bodyRecorder{}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, q *http.Request) {
		b, _ := io.ReadAll(q.Body)
		r.mu.Lock()
		r.reqs = append(r.reqs, recorded{q.Method, q.RequestURI, q.Header, string(b)})
		r.mu.Unlock()
		_, _ = io.WriteString(w, "ok")
	}))
	t.Cleanup(r.Close)
	return r
}

func (r *bodyRecorder) find(method, uri string) []recorded {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []recorded
	for _, q := range r.reqs {
		if q.method == method && q.uri == uri {
			out = append(out, q)
		}
	}
	return out
}

// jsonTargets is a file in vegeta's JSON format for the server at base.
func jsonTargets(base string) string {
	return fmt.Sprintf(`{"method":"GET","url":"%[1]s/a?q=1","header":{"X-Gb-Seq":["7"],"X-Two":["one","two"]}}

{"method":"POST","url":"%[1]s/things","header":{"Content-Type":["application/json"]},"body":"eyJhIjoxfQ=="}
{"method":"PUT","url":"%[1]s/bare","body":"aGVsbG8=","extra":"ignored"}
{"method":"DELETE","url":"%[1]s/gone"}
`, base)
}

// TestTargetsJSONFormat: a targets file in vegeta's JSON format (a blank
// line, an unknown field among them) sends each target's method, URL,
// headers (a header with two values as two lines) and body as written:
// gb's test server's ledger sees the methods, request targets and the
// X-Gb-Seq header; a recording server sees the headers and the bodies,
// decoded from base64, with no Content-Type unless the line gives one.
func TestTargetsJSONFormat(t *testing.T) {
	srv := testsupport.Server(t, testserver.Options{})
	dir := t.TempDir()
	path := filepath.Join(dir, "targets.json")
	if err := os.WriteFile(path, []byte(jsonTargets(srv.FaultURL())), 0o600); err != nil {
		t.Fatal(err)
	}
	ts, err := gb.ReadTargetsFormat(path, gb.TargetsJSON)
	if err != nil {
		t.Fatal(err)
	}
	if len(ts) != 4 || ts[1].Source != path+":3" {
		t.Fatalf("targets %+v", ts)
	}
	res, err := gb.Run(context.Background(), gb.Config{Targets: ts, Requests: 4, Concurrency: 1, KeepAlive: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Counts.Outcomes[stats.Non2xx]+res.Counts.Outcomes[stats.OK] != 4 {
		t.Fatalf("outcomes %v", res.Counts.Outcomes)
	}
	var got []string
	for _, x := range srv.Ledger().Exchanges {
		got = append(got, x.Method+" "+x.Target+" "+x.Tag)
	}
	want := []string{"GET /a?q=1 7", "POST /things ", "PUT /bare ", "DELETE /gone "}
	if !slices.Equal(got, want) {
		t.Errorf("the ledger saw %q, want %q", got, want)
	}

	rec := startBodyRecorder(t)
	ts, err = gb.ParseTargetsFormat("t.json", strings.NewReader(jsonTargets(rec.URL)), gb.TargetsJSON)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := gb.Run(context.Background(), gb.Config{Targets: ts, Requests: 4, Concurrency: 1, KeepAlive: true}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		method, uri, body, ctype string
		header                   string
		values                   []string
	}{
		{"GET", "/a?q=1", "", "", "X-Two", []string{"one", "two"}},
		{"POST", "/things", `{"a":1}`, "application/json", "", nil},
		{"PUT", "/bare", "hello", "", "", nil},
		{"DELETE", "/gone", "", "", "", nil},
	} {
		rs := rec.find(c.method, c.uri)
		if len(rs) != 1 {
			t.Errorf("%s %s: %d requests", c.method, c.uri, len(rs))
			continue
		}
		r := rs[0]
		if r.body != c.body || r.header.Get("Content-Type") != c.ctype {
			t.Errorf("%s %s: body %q content-type %q, want %q %q", c.method, c.uri, r.body, r.header.Get("Content-Type"), c.body, c.ctype)
		}
		if c.header != "" && !slices.Equal(r.header.Values(c.header), c.values) {
			t.Errorf("%s %s: %s %q, want %q", c.method, c.uri, c.header, r.header.Values(c.header), c.values)
		}
	}
}

// TestTargetsJSONFormatErrors: a bad line of a JSON targets file is one
// *ConfigError (the command line's exit 22) naming the file and line,
// before any load.
func TestTargetsJSONFormatErrors(t *testing.T) {
	for _, c := range []struct{ content, want string }{
		{`{"method":"GET","url":"http://h/"}` + "\n" + `{"method":"GET","url":`, "t.json:2: want a JSON object"},
		{`{"url":"http://h/"}`, `t.json:1: want a "method"`},
		{`{"method":"GET"}`, `t.json:1: want a "url"`},
		{`{"method":"GET","url":"ftp://h/"}`, `t.json:1: unsupported URL scheme "ftp"`},
		{`{"method":"GET","url":"http://h/","body":"!!"}`, "t.json:1: want a JSON object"},
		{"\n\n", "t.json: no targets (want one JSON object a line)"},
	} {
		_, err := gb.ParseTargetsFormat("t.json", strings.NewReader(c.content), gb.TargetsJSON)
		var ce *gb.ConfigError
		if !errors.As(err, &ce) || !strings.HasPrefix(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: error %v, want a ConfigError starting %q", c.content, err, c.want)
		}
	}
	if _, err := gb.ParseTargetsFormat("t", strings.NewReader(""), "yaml"); err == nil {
		t.Error("format yaml accepted")
	}
}

// pipeTargets starts a goroutine writing n targets to a pipe, line(i)
// each, and returns the pipe's reading end as a TargetReader.
func pipeTargets(t *testing.T, format string, n int, line func(i int) string) *gb.TargetReader {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	go func() { // as a generator writes: through a buffer
		defer w.Close()
		bw := bufio.NewWriter(w)
		defer bw.Flush()
		for i := range n {
			if _, err := bw.WriteString(line(i)); err != nil {
				return // the reader stopped
			}
		}
	}()
	tr, err := gb.NewTargetReader("pipe", r, format)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// TestLazyFromPipe: targets read from a pipe as the load needs them
// (Config.Targeter, gb --lazy), in both formats and on both engines:
// with no count or time limit the pipe's end ends the load (stopped by
// its count), every target is sent once, as the ledger of gb's test
// server shows, and the per-target rows count the URL template.
func TestLazyFromPipe(t *testing.T) {
	srv := testsupport.Server(t, testserver.Options{})
	const n = 500
	lines := map[string]func(int) string{
		gb.TargetsHTTP: func(i int) string { return fmt.Sprintf("GET %s/ok?id=%d\n", srv.FaultURL(), i) },
		gb.TargetsJSON: func(i int) string {
			return fmt.Sprintf(`{"method":"GET","url":"%s/ok?id=%d","header":{"X-Gb-Seq":["%d"]}}`+"\n", srv.FaultURL(), i, i)
		},
	}
	for _, engine := range engines {
		for _, format := range []string{gb.TargetsHTTP, gb.TargetsJSON} {
			t.Run(string(engine)+"/"+format, func(t *testing.T) {
				srv.ResetLedger()
				tr := pipeTargets(t, format, n, lines[format])
				res, err := gb.Run(context.Background(), gb.Config{Targeter: tr.Next, Concurrency: 4, KeepAlive: true,
					Engine: engine})
				if err != nil {
					t.Fatal(err)
				}
				if res.StoppedBy != stats.StopCount || res.Counts.Dispatched != n || res.Counts.Outcomes[stats.OK] != n {
					t.Fatalf("stopped by %s, dispatched %d, outcomes %v", res.StoppedBy, res.Counts.Dispatched, res.Counts.Outcomes)
				}
				seen := map[string]int{}
				for _, x := range srv.Ledger().Exchanges {
					seen[x.Target]++
				}
				for i := range n {
					if k := fmt.Sprintf("/ok?id=%d", i); seen[k] != 1 {
						t.Fatalf("%s sent %d times", k, seen[k])
					}
				}
				if res.Load.Order != gb.OrderStream || len(res.Targets) != 1 || res.Targets[0].Requests != n ||
					res.Targets[0].URL != srv.FaultURL()+"/ok?*" {
					t.Errorf("order %q, rows %+v", res.Load.Order, res.Targets)
				}
				if errs := res.Check(); len(errs) > 0 {
					t.Errorf("invariants: %v", errs)
				}
			})
		}
	}
}

// TestLazyRate: at a fixed rate with a time limit, a lazy stream longer
// than the schedule is read only as far as the schedule goes, and one
// shorter ends the load early with nothing dropped.
func TestLazyRate(t *testing.T) {
	srv := testsupport.Server(t, testserver.Options{})
	line := func(i int) string { return fmt.Sprintf("GET %s/hello?id=%d\n", srv.URL(), i) }
	tr := pipeTargets(t, gb.TargetsHTTP, 1000, line)
	res, err := gb.Run(context.Background(), gb.Config{Targeter: tr.Next, Concurrency: 2, KeepAlive: true,
		Rate: gb.Rate{Freq: 100, Per: time.Second}, Duration: 500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if res.Counts.Scheduled != 50 || res.Counts.Dispatched+res.Counts.Outcomes[stats.Dropped] != 50 {
		t.Errorf("long stream: scheduled %d, dispatched %d, outcomes %v", res.Counts.Scheduled, res.Counts.Dispatched, res.Counts.Outcomes)
	}
	tr = pipeTargets(t, gb.TargetsHTTP, 10, line)
	res, err = gb.Run(context.Background(), gb.Config{Targeter: tr.Next, Concurrency: 2, KeepAlive: true,
		Rate: gb.Rate{Freq: 100, Per: time.Second}, Duration: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if res.StoppedBy != stats.StopCount || res.Counts.Dispatched != 10 || res.Counts.Outcomes[stats.Dropped] != 0 {
		t.Errorf("short stream: stopped by %s, dispatched %d, outcomes %v", res.StoppedBy, res.Counts.Dispatched, res.Counts.Outcomes)
	}
	if errs := res.Check(); len(errs) > 0 {
		t.Errorf("invariants: %v", errs)
	}
}

// TestLazyBadLine: a bad line in the middle of a lazy stream stops the
// load (StopError, the command line's exit 1) with the result of what
// ran, the error naming the stream and line; so do a target on an
// address beyond MaxStreamAddresses and a Targeter's own error. An empty stream, or a Targeter with
// a URL, HTTP/2 or pipelining, is a ConfigError before any load.
func TestLazyBadLine(t *testing.T) {
	srv := testsupport.Server(t, testserver.Options{})
	for _, c := range []struct {
		bad, want string
		sent      int64
	}{
		// The target before a bad header line is not whole: 19 are sent.
		{"not a target\n", `pipe:21: want a "Name: value" header`, 19},
		// Targets 2 to 64 go to closed ports of 127.0.0.2 (failed.connect),
		// the 65th address is one too many.
		{"", fmt.Sprintf("pipe:%d: http://127.0.0.2:%d: a stream of targets may go to %d addresses at most", gb.MaxStreamAddresses+1, gb.MaxStreamAddresses, gb.MaxStreamAddresses), gb.MaxStreamAddresses},
	} {
		tr := pipeTargets(t, gb.TargetsHTTP, 100, func(i int) string {
			switch {
			case c.bad == "" && i > 0:
				return fmt.Sprintf("GET http://127.0.0.2:%d/x\n", i)
			case i == 20:
				return c.bad
			}
			return fmt.Sprintf("GET %s/hello?id=%d\n", srv.URL(), i)
		})
		res, err := gb.Run(context.Background(), gb.Config{Targeter: tr.Next, Concurrency: 1, KeepAlive: true})
		if err != nil {
			t.Fatal(err)
		}
		if res.StoppedBy != stats.StopError || !strings.HasPrefix(res.StopError, c.want) || res.Counts.Dispatched != c.sent {
			t.Errorf("stopped by %s (%q), dispatched %d; want the error %q after %d", res.StoppedBy, res.StopError, res.Counts.Dispatched, c.want, c.sent)
		}
		if errs := res.Check(); len(errs) > 0 {
			t.Errorf("invariants: %v", errs)
		}
	}
	calls := 0
	res, err := gb.Run(context.Background(), gb.Config{Concurrency: 1, Targeter: func(tg *gb.Target) error {
		if calls++; calls > 3 {
			return errors.New("the generator broke")
		}
		tg.URL = srv.URL() + "/hello"
		return nil
	}})
	if err != nil || res.StopError != "the Targeter failed: the generator broke" || res.Counts.Dispatched != 3 {
		t.Errorf("a Targeter's error: %v, %q, dispatched %d", err, res.StopError, res.Counts.Dispatched)
	}
	_, err = gb.Run(context.Background(), gb.Config{Targeter: pipeTargets(t, gb.TargetsHTTP, 0, nil).Next})
	var ce *gb.ConfigError
	if !errors.As(err, &ce) || err.Error() != `pipe: no targets (want "METHOD URL" lines)` {
		t.Errorf("empty stream: %v", err)
	}
	one := func(tg *gb.Target) error { tg.URL = srv.URL(); return nil }
	for name, cfg := range map[string]gb.Config{
		"URL":      {URL: srv.URL(), Targeter: one},
		"HTTP/2":   {Protocol: gb.ProtocolH2C, Targeter: one},
		"Pipeline": {Pipeline: 2, Requests: 2, Targeter: one},
	} {
		if _, err = gb.Run(context.Background(), cfg); !errors.As(err, &ce) {
			t.Errorf("Targeter with %s: %v, want a ConfigError", name, err)
		}
	}
}

// TestLazyRowsCapped: a stream of more distinct URL templates than
// MaxTargetRows counts the first ones apart and the rest in one row; the
// rows' requests sum to the run's, and its JSON matches the schema.
func TestLazyRowsCapped(t *testing.T) {
	srv := testsupport.Server(t, testserver.Options{})
	const n = gb.MaxTargetRows + 50
	tr := pipeTargets(t, gb.TargetsHTTP, n, func(i int) string {
		return fmt.Sprintf("GET %s/hello/%s\n", srv.URL(), strings.Repeat("x", i+1)) // no digit: a template each
	})
	res, err := gb.Run(context.Background(), gb.Config{Targeter: tr.Next, Concurrency: 1, KeepAlive: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Targets) != gb.MaxTargetRows+1 || res.Targets[gb.MaxTargetRows].Requests != 50 ||
		!strings.HasPrefix(res.Targets[gb.MaxTargetRows].URL, "(the other URLs") {
		t.Fatalf("%d rows, last %+v", len(res.Targets), res.Targets[len(res.Targets)-1])
	}
	checkTargetsSchema(t, res)
	if errs := res.Check(); len(errs) > 0 {
		t.Errorf("invariants: %v", errs)
	}
}

// TestLazyMemoryBounded: a lazy stream of 200 000 distinct URLs keeps
// the live heap flat: sampled every 20 000 targets (after a collection)
// and at the end, it never grows more than 8 MiB over the heap before
// the load. A list of as many targets holds them all (about 40 MiB).
func TestLazyMemoryBounded(t *testing.T) {
	srv := testsupport.Server(t, testserver.Options{})
	const n = 200_000
	tr := pipeTargets(t, gb.TargetsHTTP, n, func(i int) string {
		return fmt.Sprintf("GET %s/hello?id=%d&pad=%040d\n", srv.URL(), i, i)
	})
	before := liveHeap()
	var peak int64
	read := 0
	next := func(tg *gb.Target) error {
		if read%20_000 == 0 {
			peak = max(peak, liveHeap()-before)
		}
		read++
		return tr.Next(tg)
	}
	res, err := gb.Run(context.Background(), gb.Config{Targeter: next, Concurrency: 4, KeepAlive: true})
	if err != nil {
		t.Fatal(err)
	}
	peak = max(peak, liveHeap()-before)
	t.Logf("%d targets: live heap grew at most %d KiB", res.Counts.Dispatched, peak>>10)
	if res.Counts.Dispatched != n || len(res.Targets) != 1 {
		t.Fatalf("dispatched %d, %d rows", res.Counts.Dispatched, len(res.Targets))
	}
	if peak > 8<<20 {
		t.Errorf("the live heap grew %d KiB over %d lazy targets, want under 8 MiB", peak>>10, n)
	}
}

// TestLazyOnTwoHosts: a stream whose targets alternate between two
// servers (127.0.0.1 and 127.0.0.2, each on its own port) sends each its
// own, on both engines, and counts a row per server.
func TestLazyOnTwoHosts(t *testing.T) {
	a := testsupport.Server(t, testserver.Options{})
	b := testsupport.Server(t, testserver.Options{Addr: "127.0.0.2:0"})
	const n = 200
	for _, engine := range engines {
		t.Run(string(engine), func(t *testing.T) {
			a.ResetLedger()
			b.ResetLedger()
			tr := pipeTargets(t, gb.TargetsHTTP, n, func(i int) string {
				return fmt.Sprintf("GET %s/ok?id=%d\n", []string{a.FaultURL(), b.FaultURL()}[i%2], i)
			})
			res, err := gb.Run(context.Background(), gb.Config{Targeter: tr.Next, Concurrency: 3, KeepAlive: true, Engine: engine})
			if err != nil {
				t.Fatal(err)
			}
			if res.StoppedBy != stats.StopCount || res.Counts.Outcomes[stats.OK] != n {
				t.Fatalf("stopped by %s (%s), outcomes %v", res.StoppedBy, res.StopError, res.Counts.Outcomes)
			}
			for i, srv := range []*testserver.Server{a, b} {
				if got := len(srv.Ledger().Exchanges); got != n/2 {
					t.Errorf("server %d saw %d requests, want %d", i+1, got, n/2)
				}
				url := srv.FaultURL() + "/ok?*"
				if !slices.ContainsFunc(res.Targets, func(r stats.TargetStats) bool { return r.URL == url && r.Requests == n/2 }) {
					t.Errorf("no row of %d requests for %s: %+v", n/2, url, res.Targets)
				}
			}
			if errs := res.Check(); len(errs) > 0 {
				t.Errorf("invariants: %v", errs)
			}
		})
	}
}
