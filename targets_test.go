package gb_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gb-bench/gb"
	"github.com/gb-bench/gb/internal/report"
	"github.com/gb-bench/gb/internal/testserver"
	"github.com/gb-bench/gb/internal/testsupport"
	"github.com/gb-bench/gb/stats"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

var engines = []gb.Engine{gb.EngineLoop, gb.EngineGoroutine}

// writeTargets writes a targets file in dir and returns its path.
func writeTargets(t *testing.T, dir, content string) string {
	t.Helper()
	path := filepath.Join(dir, "targets.txt")
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestTargetsFileAgainstNginx: a three-target file (two files and a
// missing one, a header on one, comments and blank lines) against nginx,
// round-robin, on both engines: each target gets exactly a third of -n,
// the targets' requests sum to the run's, and each target's requests,
// statuses, body bytes and request bytes equal what nginx's access log
// says for its path. The JSON, with its targets array, matches the schema.
func TestTargetsFileAgainstNginx(t *testing.T) {
	for _, engine := range engines {
		t.Run(string(engine), func(t *testing.T) {
			ng := testsupport.StartNginx(t, testsupport.NginxOptions{})
			path := writeTargets(t, t.TempDir(), fmt.Sprintf(`# three paths
GET %[1]s/small.txt

GET %[1]s/10k.dat
X-Test: yes
# a comment inside a target

HEAD %[1]s/missing
`, ng.URL))
			targets, err := gb.ReadTargets(path)
			if err != nil {
				t.Fatal(err)
			}
			const n = 300
			res, err := gb.Run(context.Background(), gb.Config{Targets: targets, Requests: n, Concurrency: 3,
				KeepAlive: true, Engine: engine})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Targets) != 3 || res.Load.Order != string(gb.OrderRoundRobin) || res.Load.Path != "/small.txt" {
				t.Fatalf("targets %+v, order %q, first path %q", res.Targets, res.Load.Order, res.Load.Path)
			}
			// nginx logs a request after its response: wait for the last lines.
			testsupport.WaitFor(t, "nginx's log", func() bool { return len(ng.Entries(t)) == n })
			log := ng.Entries(t)
			uris := []string{"/small.txt", "/10k.dat", "/missing"}
			var sum int64
			for i, tg := range res.Targets {
				var reqs, body, reqBytes, status int64
				for _, e := range log {
					if e.URI == uris[i] {
						reqs++
						body += e.Body
						reqBytes += e.RequestLength
						status = int64(e.Status)
					}
				}
				sum += tg.Requests
				if tg.Requests != n/3 || reqs != n/3 {
					t.Errorf("%s: gb sent %d, nginx logged %d, want %d each", uris[i], tg.Requests, reqs, n/3)
				}
				if tg.BodyIn != body || tg.BytesOut != reqBytes {
					t.Errorf("%s: gb body %d, request bytes %d; nginx body %d, request bytes %d", uris[i], tg.BodyIn, tg.BytesOut, body, reqBytes)
				}
				wantOK, wantNon2xx := int64(n/3), int64(0)
				if status == 404 {
					wantOK, wantNon2xx = 0, n/3
				}
				if tg.Outcomes[stats.OK] != wantOK || tg.Outcomes[stats.Non2xx] != wantNon2xx || tg.Failed() != 0 {
					t.Errorf("%s (status %d): outcomes %v", uris[i], status, tg.Outcomes)
				}
				if tg.Latency == nil || tg.Latency.Count != n/3 || tg.LengthMismatch != 0 {
					t.Errorf("%s: latency %+v, length mismatches %d", uris[i], tg.Latency, tg.LengthMismatch)
				}
			}
			if sum != res.Counts.Dispatched || res.Counts.LengthMismatch != 0 || res.Failed() != 0 {
				t.Errorf("targets sum to %d, dispatched %d; length mismatches %d", sum, res.Counts.Dispatched, res.Counts.LengthMismatch)
			}
			if res.Targets[2].Method != "HEAD" || res.Targets[2].BodyIn != 0 {
				t.Errorf("HEAD target: %+v", res.Targets[2])
			}
			checkTargetsSchema(t, res)
			if errs := res.Check(); len(errs) > 0 {
				t.Errorf("invariants: %v", errs)
			}
		})
	}
}

// checkTargetsSchema: r's JSON, as gb writes it, matches the schema.
func checkTargetsSchema(t *testing.T, r *gb.Result) {
	t.Helper()
	c := *r
	c.Command = []string{"gb"} // a library run has none, which the schema refuses
	var b bytes.Buffer
	if err := report.JSON(&b, &c); err != nil {
		t.Fatal(err)
	}
	sch, err := jsonschema.NewCompiler().Compile("stats/result.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	inst, err := jsonschema.UnmarshalJSON(&b)
	if err != nil {
		t.Fatal(err)
	}
	if err := sch.Validate(inst); err != nil {
		t.Errorf("a many-target result does not match the schema: %v", err)
	}
}

// TestTargetsRandomOrderIsSeeded: the random order sends the same
// sequence of targets for the same seed (nginx's log, one connection, in
// order) and another for another seed, and each target gets some.
func TestTargetsRandomOrderIsSeeded(t *testing.T) {
	ng := testsupport.StartNginx(t, testsupport.NginxOptions{})
	run := func(seed int64) []string {
		before := len(ng.Entries(t))
		res, err := gb.Run(context.Background(), gb.Config{URL: ng.URL + "/small.txt",
			Targets: []gb.Target{{URL: ng.URL + "/10k.dat"}, {URL: ng.URL + "/missing"}},
			Order:   gb.OrderRandom, Seed: seed, Requests: 90, KeepAlive: true})
		if err != nil {
			t.Fatal(err)
		}
		if res.Load.Order != string(gb.OrderRandom) || res.Load.Seed != seed {
			t.Errorf("order %q seed %d", res.Load.Order, res.Load.Seed)
		}
		var seq []string
		counts := map[string]int64{}
		testsupport.WaitFor(t, "nginx's log", func() bool { return len(ng.Entries(t)) == before+90 })
		for _, e := range ng.Entries(t)[before:] {
			seq = append(seq, e.URI)
			counts[e.URI]++
		}
		for _, tg := range res.Targets {
			if path := strings.TrimPrefix(tg.URL, ng.URL); tg.Requests == 0 || counts[path] != tg.Requests {
				t.Errorf("target %s: %d requests, %d in the log", tg.URL, tg.Requests, counts[path])
			}
		}
		return seq
	}
	a, b, c := run(5), run(5), run(6)
	if len(a) != 90 || !slices.Equal(a, b) {
		t.Errorf("seed 5 twice: %d and %d requests, same sequence %v", len(a), len(b), slices.Equal(a, b))
	}
	if slices.Equal(a, c) {
		t.Error("seeds 5 and 6 sent the same sequence")
	}
}

// TestTargetsOnTwoServers: targets on two addresses (two on one gb test
// server, one on another over https, which the first's -k and
// --insecure also serve) each get their share, and connections are
// pooled per address: each server sees one connection per worker, the
// first server's two targets sharing it. Both engines.
func TestTargetsOnTwoServers(t *testing.T) {
	for _, engine := range engines {
		t.Run(string(engine), func(t *testing.T) {
			s1 := testsupport.Server(t, testserver.Options{})
			s2 := testsupport.Server(t, testserver.Options{TLS: true})
			const n, c = 600, 4
			res, err := gb.Run(context.Background(), gb.Config{URL: s1.URL() + "/hello",
				Targets:  []gb.Target{{URL: s1.URL() + "/json"}, {URL: s2.TLSURL() + "/bytes/100"}},
				Requests: n, Concurrency: c, KeepAlive: true, Engine: engine, TLS: gb.TLS{Insecure: true}})
			if err != nil {
				t.Fatal(err)
			}
			for _, tg := range res.Targets {
				if tg.Requests != n/3 || tg.Outcomes[stats.OK] != n/3 {
					t.Errorf("%s: %d requests, outcomes %v", tg.URL, tg.Requests, tg.Outcomes)
				}
			}
			l1, l2 := s1.Ledger(), s2.Ledger()
			if l1.HTTP.Requests != 2*n/3 || l2.TLS.Requests != n/3 {
				t.Errorf("server 1 saw %d requests, server 2 %d over TLS; want %d and %d", l1.HTTP.Requests, l2.TLS.Requests, 2*n/3, n/3)
			}
			if l1.HTTP.Conns != c || l2.TLS.Conns != c || l2.HTTP.Conns != 0 {
				t.Errorf("connections: server 1 %d, server 2 %d (TLS) and %d (http); want %d, %d, 0", l1.HTTP.Conns, l2.TLS.Conns, l2.HTTP.Conns, c, c)
			}
			if res.Counts.ConnsOpened != 2*c || res.Counts.ConnsClosed != 2*c {
				t.Errorf("gb opened %d and closed %d connections, want %d", res.Counts.ConnsOpened, res.Counts.ConnsClosed, 2*c)
			}
			if errs := res.Check(); len(errs) > 0 {
				t.Errorf("invariants: %v", errs)
			}
			if res.Server.TLSProtocol != "" {
				t.Errorf("TLS details %q from the https target, the first is plain http", res.Server.TLSProtocol)
			}
		})
	}
}

// TestTargetsRateMode: with -R, the targets share the schedule: each gets
// its third of -n, and the run's corrected latency is there.
func TestTargetsRateMode(t *testing.T) {
	srv := testsupport.Server(t, testserver.Options{})
	res, err := gb.Run(context.Background(), gb.Config{URL: srv.URL() + "/hello",
		Targets:  []gb.Target{{URL: srv.URL() + "/json"}, {URL: srv.URL() + "/ok", Method: "POST", Body: []byte("x=1")}},
		Requests: 90, Concurrency: 3, KeepAlive: true, Rate: gb.Rate{Freq: 300}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tg := range res.Targets {
		if tg.Requests != 30 || tg.Outcomes[stats.OK] != 30 {
			t.Errorf("%s %s: %d requests, outcomes %v", tg.Method, tg.URL, tg.Requests, tg.Outcomes)
		}
	}
	if res.Targets[2].Method != "POST" || res.Latency[stats.Corrected] == nil || res.Counts.Scheduled != 90 {
		t.Errorf("method %q, corrected %v, scheduled %d", res.Targets[2].Method, res.Latency[stats.Corrected], res.Counts.Scheduled)
	}
	if errs := res.Check(); len(errs) > 0 {
		t.Errorf("invariants: %v", errs)
	}
	if l := srv.Ledger(); l.HTTP.Requests != 90 {
		t.Errorf("server saw %d requests", l.HTTP.Requests)
	}
}

// TestTargetsMerge: the shards of a many-target load combine into one
// result whose targets hold the sum of the shards' counts.
func TestTargetsMerge(t *testing.T) {
	srv := testsupport.Server(t, testserver.Options{})
	cfg := gb.Config{URL: srv.URL() + "/hello", Targets: []gb.Target{{URL: srv.URL() + "/json"}},
		Requests: 100, Concurrency: 2, KeepAlive: true}
	var parts []*gb.Result
	for i := range 2 {
		cfg.Shard = gb.Shard{Index: i, Count: 2}
		r, err := gb.Run(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		parts = append(parts, r)
	}
	m, err := gb.Merge(parts...)
	if err != nil {
		t.Fatal(err)
	}
	for i, tg := range m.Targets {
		if tg.Requests != 50 || tg.Latency.Count != 50 || tg.Requests != parts[0].Targets[i].Requests+parts[1].Targets[i].Requests {
			t.Errorf("merged target %s: %d requests, %d latencies", tg.URL, tg.Requests, tg.Latency.Count)
		}
	}
}

// TestTargetsFileErrors: a malformed targets file is one *ConfigError
// naming the file and line, found before any load.
func TestTargetsFileErrors(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ content, msg string }{
		{"GET http://127.0.0.1:1/a\n\nGETT\n", `targets.txt:3: want "METHOD URL", got "GETT"`},
		{"get http://127.0.0.1:1/a\n", `targets.txt:1: want "METHOD URL", got "get http://127.0.0.1:1/a"`},
		{"# only\nGET http://127.0.0.1:1/a\nNoColon\n", `targets.txt:3: want a "Name: value" header, an @body line or a blank line, got "NoColon"`},
		{"GET http://127.0.0.1:1/a\nGET\n", `targets.txt:2: want a "Name: value" header, an @body line or a blank line, got "GET"`},
		{"POST http://127.0.0.1:1/a\n@/dev/zero\n", `targets.txt:2: body file "/dev/zero" is not a regular file`},
		{"POST http://127.0.0.1:1/a\n@" + dir + "\n", `targets.txt:2: body file "` + dir + `" is not a regular file`},
		{"POST http://127.0.0.1:1/a\n@/nonexistent/body.json\n", `targets.txt:2: cannot read body file "/nonexistent/body.json": no such file or directory`},
		{"GET ftp://127.0.0.1/a\n", `targets.txt:1: unsupported URL scheme "ftp" (supported: http, https, http+unix, https+unix)`},
		{"\n\nGET http://\n", `targets.txt:3: invalid URL "http://"`},
		{"# nothing\n\n", `targets.txt: no targets (want "METHOD URL" lines)`},
	} {
		_, err := gb.ReadTargets(writeTargets(t, dir, tc.content))
		var ce *gb.ConfigError
		if !errors.As(err, &ce) || err.Error() != dir+"/"+tc.msg {
			t.Errorf("%q:\n got %v\nwant %s/%s", tc.content, err, dir, tc.msg)
		}
	}
	// Checks only NewPlan makes (the header against the request framing,
	// pipelining) name the target, or say what cannot be combined.
	ts, err := gb.ParseTargets("t.txt", strings.NewReader("GET http://127.0.0.1:1/a\n\nPOST http://127.0.0.1:1/b\nTransfer-Encoding: chunked\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		cfg gb.Config
		msg string
	}{
		{gb.Config{Targets: ts, Requests: 1}, "t.txt:3: Config.Headers Transfer-Encoding conflicts with the request framing gb sets"},
		{gb.Config{Targets: ts[1:], Requests: 1}, "t.txt:3: Config.Headers Transfer-Encoding conflicts with the request framing gb sets"},
		{gb.Config{URL: "http://127.0.0.1:1/", Targets: ts[:1], Requests: 2, Pipeline: 2},
			"Config.Pipeline with several targets is not supported: pipeline one URL at a time"},
		{gb.Config{URL: "http://127.0.0.1:1/", Targets: []gb.Target{{URL: "http://"}}, Requests: 1}, `target 2: invalid URL "http://"`},
		{gb.Config{URL: "http://127.0.0.1:1/", Targets: ts[:1], Requests: 1, Order: "sideways"}, `unknown Config.Order "sideways" (want round-robin or random)`},
	} {
		_, err := gb.NewPlan(tc.cfg)
		var ce *gb.ConfigError
		if !errors.As(err, &ce) || err.Error() != tc.msg {
			t.Errorf("got %v, want %s", err, tc.msg)
		}
	}
}

// TestTargetsUnresolvedHost: a targets-file host that does not resolve
// is named by its file and line, first target or not.
func TestTargetsUnresolvedHost(t *testing.T) {
	for _, tc := range []struct{ content, where string }{
		{"GET http://nonexistent.invalid/a\nGET http://127.0.0.1:1/b\n", "t.txt:1: "},
		{"GET http://127.0.0.1:1/b\nGET http://nonexistent.invalid/a\n", "t.txt:2: "},
		{"GET http://nonexistent.invalid/a\n", "t.txt:1: "},
	} {
		ts, err := gb.ParseTargets("t.txt", strings.NewReader(tc.content))
		if err != nil {
			t.Fatal(err)
		}
		_, err = gb.NewPlan(gb.Config{Targets: ts, Requests: 2})
		if err == nil || !strings.HasPrefix(err.Error(), tc.where+`cannot resolve host "nonexistent.invalid"`) {
			t.Errorf("%q: %v, want it to start with %s", tc.content, err, tc.where)
		}
	}
}

// TestOneTargetUnchanged: a load of one URL has no targets array and no
// order, as before targets existed.
func TestOneTargetUnchanged(t *testing.T) {
	srv := testsupport.Server(t, testserver.Options{})
	res, err := gb.Run(context.Background(), gb.Config{URL: srv.URL() + "/hello", Requests: 10, KeepAlive: true,
		Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if res.Targets != nil || res.Load.Order != "" {
		t.Errorf("one target: targets %v, order %q", res.Targets, res.Load.Order)
	}
}

// TestPlanTargets: Plan.Targets lists the load's targets as "METHOD URL",
// without credentials: the URL's first (with the Config's method and
// body), then Targets'.
func TestPlanTargets(t *testing.T) {
	p, err := gb.NewPlan(gb.Config{URL: "http://u:secret@127.0.0.1:1/a", Body: []byte("x"), Requests: 1,
		Targets: []gb.Target{{URL: "https://127.0.0.1:2/b", Method: "DELETE"}, {URL: "127.0.0.1:3/c"}}})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"POST http://127.0.0.1:1/a", "DELETE https://127.0.0.1:2/b", "GET http://127.0.0.1:3/c"}
	if got := p.Targets(); !slices.Equal(got, want) {
		t.Errorf("Targets() = %q, want %q", got, want)
	}
	one, err := gb.NewPlan(gb.Config{URL: "http://127.0.0.1:1/a", Method: "HEAD", Requests: 1})
	if err != nil {
		t.Fatal(err)
	}
	if got := one.Targets(); !slices.Equal(got, []string{"HEAD http://127.0.0.1:1/a"}) {
		t.Errorf("one target: %q", got)
	}
}

// recorder is a loopback HTTP/1.1 server that answers 200 to every
// request and keeps each request's header section, in arrival order.
type recorder struct {
	ln   net.Listener
	mu   sync.Mutex
	reqs []string
}

func startRecorder(t *testing.T) *recorder {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	r := &recorder{ln: ln}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go r.serve(c)
		}
	}()
	return r
}

func (r *recorder) serve(c net.Conn) {
	defer c.Close()
	br := bufio.NewReader(c)
	for {
		req, err := http.ReadRequest(br)
		if err != nil {
			return
		}
		var head bytes.Buffer
		_ = req.Header.Write(&head)
		_, _ = io.Copy(io.Discard, req.Body)
		r.mu.Lock()
		r.reqs = append(r.reqs, req.Method+" "+req.URL.Path+"\n"+head.String())
		r.mu.Unlock()
		if _, err := c.Write([]byte("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")); err != nil {
			return
		}
	}
}

// requests returns the recorded requests whose first line is prefix.
func (r *recorder) requests(prefix string) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, q := range r.reqs {
		if strings.HasPrefix(q, prefix+"\n") {
			out = append(out, q)
		}
	}
	return out
}

// TestTargetsFileVegetaFormat: vegeta's simplest targets file, one
// "GET URL" line per target with no blank lines, is a list of targets,
// and so is a target's header lines followed directly by the next
// "METHOD URL" line. On the wire (a recording server): an @file body goes
// with its Content-Length and no Content-Type unless the file sets one
// (vegeta sends none), and a bodyless POST, PUT or PATCH says
// Content-Length: 0.
func TestTargetsFileVegetaFormat(t *testing.T) {
	rec := startRecorder(t)
	base := "http://" + rec.ln.Addr().String()
	dir := t.TempDir()
	body := filepath.Join(dir, "body.json")
	if err := os.WriteFile(body, []byte(`{"a":1}`), 0o600); err != nil {
		t.Fatal(err)
	}
	simple, err := gb.ReadTargets(writeTargets(t, dir, fmt.Sprintf("GET %[1]s/a\nGET %[1]s/b\nGET %[1]s/c\n", base)))
	if err != nil {
		t.Fatalf("vegeta's simplest file: %v", err)
	}
	if len(simple) != 3 || simple[2].URL != base+"/c" || simple[1].Source != filepath.Join(dir, "targets.txt")+":2" {
		t.Fatalf("vegeta's simplest file: %+v", simple)
	}
	ts, err := gb.ReadTargets(writeTargets(t, dir, fmt.Sprintf(`GET %[1]s/h
X-Account: 8675309
POST %[1]s/bare
@%[2]s
POST %[1]s/typed
Content-Type: application/json
@%[2]s
POST %[1]s/empty
PUT %[1]s/empty
PATCH %[1]s/empty
`, base, body)))
	if err != nil {
		t.Fatal(err)
	}
	if len(ts) != 6 || len(ts[0].Headers) != 1 || ts[0].Headers[0] != "X-Account: 8675309" {
		t.Fatalf("targets %+v", ts)
	}
	res, err := gb.Run(context.Background(), gb.Config{Targets: ts, Requests: 6, Concurrency: 1, KeepAlive: true,
		Timeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if res.Counts.Outcomes[stats.OK] != 6 {
		t.Fatalf("outcomes %v, errors %v", res.Counts.Outcomes, res.Counts.Errors)
	}
	for _, tc := range []struct {
		first      string
		want, nots []string
	}{
		{"GET /h", []string{"X-Account: 8675309"}, []string{"Content-Length", "Content-Type"}},
		{"POST /bare", []string{"Content-Length: 7"}, []string{"Content-Type"}},
		{"POST /typed", []string{"Content-Length: 7", "Content-Type: application/json"}, []string{"text/plain"}},
		{"POST /empty", []string{"Content-Length: 0"}, []string{"Content-Type"}},
		{"PUT /empty", []string{"Content-Length: 0"}, []string{"Content-Type"}},
		{"PATCH /empty", []string{"Content-Length: 0"}, []string{"Content-Type"}},
	} {
		got := rec.requests(tc.first)
		if len(got) != 1 {
			t.Errorf("%s: %d requests recorded", tc.first, len(got))
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(got[0], w+"\r\n") {
				t.Errorf("%s: no %q in\n%s", tc.first, w, got[0])
			}
		}
		for _, n := range tc.nots {
			if strings.Contains(got[0], n) {
				t.Errorf("%s: %q sent:\n%s", tc.first, n, got[0])
			}
		}
	}
}

// TestManyTargetsMemory: per-target accounts are cheap: a run of 5000
// targets of one request each keeps less than 32 MiB live after the run
// (a dense latency histogram per target, as before, kept 26 KiB twice per
// target: 250 MiB), and its JSON is written and read back.
func TestManyTargetsMemory(t *testing.T) {
	srv := testsupport.Server(t, testserver.Options{})
	const n = 5000
	ts := make([]gb.Target, n)
	for i := range ts {
		ts[i] = gb.Target{URL: fmt.Sprintf("%s/hello?i=%d", srv.URL(), i)}
	}
	before := liveHeap()
	res, err := gb.Run(context.Background(), gb.Config{Targets: ts, Requests: n, Concurrency: 4, KeepAlive: true,
		Timeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	grown := liveHeap() - before
	t.Logf("%d targets: %d KiB live after the run", n, grown>>10)
	if grown > 32<<20 {
		t.Errorf("%d targets keep %d MiB live, want under 32 MiB", n, grown>>20)
	}
	var b bytes.Buffer
	if err := report.JSON(&b, res); err != nil {
		t.Fatal(err)
	}
	back, err := stats.ReadResult(&b)
	if err != nil {
		t.Fatal(err)
	}
	if len(back.Targets) != n || back.Targets[n-1].Latency == nil || back.Targets[n-1].Latency.Count != 1 ||
		back.Targets[7].Latency.Percentile(99) != res.Targets[7].Latency.Percentile(99) {
		t.Errorf("targets read back: %d, last %+v", len(back.Targets), back.Targets[n-1].Latency)
	}
	if errs := back.Check(); len(errs) > 0 {
		t.Errorf("invariants after reading back: %v", errs)
	}
	runtime.KeepAlive(res)
}

// liveHeap returns the bytes of live heap objects after a collection.
func liveHeap() int64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc)
}

// TestTargetBodyH2C: over HTTP/2 (h2c), a targets file's @body goes with
// no Content-Type of gb's own either, as over HTTP/1.1.
func TestTargetBodyH2C(t *testing.T) {
	var mu sync.Mutex
	var types [][]string
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		mu.Lock()
		types = append(types, r.Header["Content-Type"])
		mu.Unlock()
	}))
	srv.Config.Protocols = new(http.Protocols)
	srv.Config.Protocols.SetUnencryptedHTTP2(true)
	srv.Start()
	defer srv.Close()
	dir := t.TempDir()
	body := filepath.Join(dir, "b.json")
	if err := os.WriteFile(body, []byte(`{}`), 0o600); err != nil {
		t.Fatal(err)
	}
	ts, err := gb.ReadTargets(writeTargets(t, dir, "POST "+srv.URL+"/\n@"+body+"\n"))
	if err != nil {
		t.Fatal(err)
	}
	res, err := gb.Run(context.Background(), gb.Config{Targets: ts, Requests: 3, Protocol: gb.ProtocolH2C, Timeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if res.Counts.Outcomes[stats.OK] != 3 || len(types) != 3 || types[0] != nil {
		t.Errorf("outcomes %v, errors %v; Content-Types %q, want none", res.Counts.Outcomes, res.Counts.Errors, types)
	}
}
