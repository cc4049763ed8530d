package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/gb-bench/gb/internal/testserver"
	"github.com/gb-bench/gb/internal/testsupport"
	"github.com/gb-bench/gb/stats"
)

// TestHTTP3UsageErrors: what --http3 cannot apply to is a usage error
// (exit 22), one line saying why, before any connection.
func TestHTTP3UsageErrors(t *testing.T) {
	body := tempFile(t, "body.json", `{"a":1}`)
	for _, tc := range []struct{ args, msg string }{
		{"--http3 -n 1 http://127.0.0.1:1/", "--http3 needs an https:// URL"},
		{"--http3 -n 1 -X 127.0.0.1:3128 https://127.0.0.1:1/", "-X cannot apply to --http3"},
		{"--http3 -n 1 --unix-socket /tmp/gb-h3.sock https://127.0.0.1:1/", "--unix-socket cannot apply to --http3"},
		{"--http3 -n 1 --engine loop https://127.0.0.1:1/", "--engine loop cannot drive --http3"},
		{"--http3 -n 8 --pipeline 4 https://127.0.0.1:1/", "--pipeline is HTTP/1.1's"},
		{"--http3 -n 1 -f TLS1.2 https://127.0.0.1:1/", "QUIC is TLS 1.3 only"},
		{"--streams 4 -n 1 https://127.0.0.1:1/", "--streams is HTTP/2's and HTTP/3's"},
		{"--http3 -n 1 --script x.lua https://127.0.0.1:1/", "--script speaks HTTP/1.1 only"},
		{"--http3 -n 1 --idle-timeout 1 -p BODY https://127.0.0.1:1/", "cannot apply over --http3 to a request with a body"},
	} {
		r := runGB(t, strings.Fields(strings.Replace(tc.args, "BODY", body, 1))...)
		if r.code != 22 || !strings.Contains(r.stderr, tc.msg) || strings.Count(r.stderr, "\n") != 1 {
			t.Errorf("gb %s: exit %d, stderr %q; want 22 and %q", tc.args, r.code, r.stderr, tc.msg)
		}
	}
}

// TestHTTP3CountsEqualServer: gb --http3 -c 3 --streams 5 against gb
// serve --tls's HTTP/3: gb's ok count equals the server's HTTP/3 ledger,
// the JSON names the protocol and is valid against the schema, and the
// report has its protocol line.
func TestHTTP3CountsEqualServer(t *testing.T) {
	s := testsupport.Server(t, testserver.Options{TLS: true})
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(ca, s.CACertPEM(), 0o600); err != nil {
		t.Fatal(err)
	}
	js := filepath.Join(t.TempDir(), "r.json")
	r := runGB(t, "--http3", "--cacert", ca, "-c", "3", "--streams", "5", "-n", "1501", "--json", js, s.TLSURL()+"/bytes/6")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	res := readResult(t, js)
	l := s.Ledger()
	want(t, "ok", res.Counts.Outcomes[stats.OK], 1501)
	want(t, "served over HTTP/3", l.H3.Protocols["HTTP/3.0"], 1501)
	want(t, "connections", l.H3.Conns, res.Counts.ConnsOpened)
	if res.Load.Engine != "h3" || res.Load.Streams != 5 || len(res.Check()) > 0 {
		t.Errorf("target engine %q streams %d, check %v", res.Load.Engine, res.Load.Streams, res.Check())
	}
	if !strings.Contains(r.stdout, "protocol:             HTTP/3 over QUIC (h3), up to 5 streams per connection") ||
		!strings.Contains(r.stdout, "Complete requests:      1501") {
		t.Errorf("report:\n%s", r.stdout)
	}
	validateSchema(t, js)
}

// TestHTTP3CaddyAccessLog: Caddy (a server no one here wrote) serving
// HTTP/3 with a JSON access log: a closed loop with streams and a
// rate-mode run over --http3, and gb's counts equal the log's HTTP/3
// lines. Skipped without caddy unless GB_REQUIRE_CADDY=1.
func TestHTTP3CaddyAccessLog(t *testing.T) {
	c := testsupport.StartCaddy(t)
	var total int64
	for _, args := range [][]string{
		{"-c", "4", "--streams", "8", "-n", "2000"},
		{"-c", "2", "--streams", "2", "-R", "300", "-t", "1", "--tls-resume"},
	} {
		js := filepath.Join(t.TempDir(), "r.json")
		argv := append([]string{"--http3", "--cacert", c.CertFile, "-q", "--json", js}, args...)
		r := runGB(t, append(argv, c.URL+"/")...)
		if r.code != 0 {
			t.Fatalf("gb %v: exit %d: %s", args, r.code, r.stderr)
		}
		res := readResult(t, js)
		o := res.Counts.Outcomes
		// Requests in flight at -t's end are aborted: caddy may have
		// answered them (and logged them) after gb stopped waiting.
		total += o[stats.OK]
		got := c.Totals(t, total)
		if got.Protocols["HTTP/3.0"] < total || got.Protocols["HTTP/3.0"] > total+o.Aborted() || o.Failed() != 0 ||
			got.Requests != got.Protocols["HTTP/3.0"] {
			t.Errorf("gb %v: ok %d (total %d), outcomes %v; caddy's log %+v", args, o[stats.OK], total, o, got)
		}
		total = got.Protocols["HTTP/3.0"]
	}
}

// TestHTTP3NoLeaks (I10 for HTTP/3): after --http3 runs inside this
// process (streams, rate mode, and a port where nothing answers over
// UDP), goroutines and open file descriptors return to their baseline:
// every QUIC connection, socket and stream goroutine ended.
func TestHTTP3NoLeaks(t *testing.T) {
	s := testsupport.Server(t, testserver.Options{TLS: true})
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(ca, s.CACertPEM(), 0o600); err != nil {
		t.Fatal(err)
	}
	url := s.TLSURL() + "/bytes/6"
	silent := "https://" + strings.TrimPrefix(s.URL(), "http://") + "/" // TCP only: no UDP listener there
	run([]string{"-q", "--http3", "--cacert", ca, "-n", "10", url}, io.Discard, io.Discard, nil)
	time.Sleep(100 * time.Millisecond)
	g0, f0 := runtime.NumGoroutine(), openFDs(t)
	for _, tc := range []struct {
		args []string
		code int
	}{
		{[]string{"-c", "4", "--streams", "8", "-n", "2000", url}, 0},
		{[]string{"-c", "2", "--streams", "2", "-t", "1", "-R", "300", url}, 0},
		{[]string{"-c", "2", "-n", "4", "-s", "1", silent}, 1}, // no QUIC handshake: nothing got a response
	} {
		args := append([]string{"-q", "--http3", "--cacert", ca}, tc.args...)
		if code := run(args, io.Discard, io.Discard, nil); code != tc.code {
			t.Fatalf("gb %s: exit %d, want %d", strings.Join(args, " "), code, tc.code)
		}
	}
	deadline := time.Now().Add(time.Minute) // a hang guard: the server's goroutines end when they are scheduled
	for {
		g, f := runtime.NumGoroutine(), openFDs(t)
		if g <= g0 && f <= f0 {
			return
		}
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<16)
			t.Fatalf("goroutines %d (baseline %d), fds %d (baseline %d)\n%s", g, g0, f, f0, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// h3Server is gb serve --tls (HTTP/3 on its TLS port) and a file with
// its CA for --cacert.
func h3Server(t *testing.T) (*testserver.Server, string) {
	t.Helper()
	s := testsupport.Server(t, testserver.Options{TLS: true, NoPprof: true})
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(ca, s.CACertPEM(), 0o600); err != nil {
		t.Fatal(err)
	}
	return s, ca
}

// TestHTTP3Check: --check over --http3 against gb serve's /wrong (every
// 100th body wrong, with X-Wrong: 1): status, header and body checks each
// see every response; the 10 wrong ones end as failed.check, the others
// ok, and the server's HTTP/3 ledger served exactly -n.
func TestHTTP3Check(t *testing.T) {
	s, ca := h3Server(t)
	js := filepath.Join(t.TempDir(), "r.json")
	r := runGB(t, "--http3", "--cacert", ca, "-q", "-c", "5", "--streams", "4", "-n", "1000", "--json", js,
		"--check", "status==200", "--check", "header[Content-Type] contains json", "--check", "header[X-Wrong]!=1",
		"--check", `body contains "ok"`, s.TLSURL()+"/wrong")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	res := readResult(t, js)
	want(t, "ok", res.Counts.Outcomes[stats.OK], 990)
	want(t, "failed.check", res.Counts.Outcomes[stats.FailCheck], 10)
	want(t, "served over HTTP/3", s.Ledger().H3.Protocols["HTTP/3.0"], 1000)
	got := map[string][2]int64{}
	for _, c := range res.Checks {
		got[c.Expr] = [2]int64{c.Passes, c.Fails}
	}
	for expr, w := range map[string][2]int64{"status==200": {1000, 0}, "header[Content-Type] contains json": {1000, 0},
		"header[X-Wrong]!=1": {990, 10}, `body contains "ok"`: {990, 10}} {
		if got[expr] != w {
			t.Errorf("check %s: passed, failed %v, want %v", expr, got[expr], w)
		}
	}
	if !strings.Contains(r.stdout, "ok=990 non2xx=0 failed.check=10") {
		t.Errorf("report:\n%s", r.stdout)
	}
}

// TestHTTP3SeveralTargets: --http3 with several targets. On one address
// (two URLs and a POST with a body from --targets): each target gets its
// third, its own row (status, method, URL) and its bytes, over one
// connection per worker, and gb serve's HTTP/3 ledger served them all.
// On two addresses (two servers): each worker keeps a connection to
// each, and each server served its half.
func TestHTTP3SeveralTargets(t *testing.T) {
	srv, ca := h3Server(t)
	dir := t.TempDir()
	body := filepath.Join(dir, "body.json")
	if err := os.WriteFile(body, []byte(`{"a":1}`), 0o600); err != nil {
		t.Fatal(err)
	}
	base := srv.TLSURL()
	file := tempFile(t, "targets.txt", fmt.Sprintf("POST %s/ok?status=201\nContent-Type: application/json\n@%s\n", base, body))
	js := filepath.Join(dir, "out.json")
	r := runGB(t, "--http3", "--cacert", ca, "-q", "-m", "PUT", "--streams", "4", "-n", "300", "-c", "3", "--targets", file,
		"--json", js, base+"/hello", base+"/status?s=503")
	if r.code != 0 {
		t.Fatalf("exit %d:\n%s", r.code, r.stderr)
	}
	rows := targetLine.FindAllStringSubmatch(r.stdout, -1)
	wantRows := [][]string{{"100", "0.333", "0", "0", "PUT", base + "/hello"},
		{"100", "0.333", "0", "100", "PUT", base + "/status?s=503"},
		{"100", "0.333", "0", "0", "POST", base + "/ok?status=201"}}
	if len(rows) != 3 {
		t.Fatalf("gb section:\n%s", r.stdout)
	}
	for i, row := range rows {
		if strings.Join(row[1:], " ") != strings.Join(wantRows[i], " ") {
			t.Errorf("target %d: %q, want %q", i+1, row[1:], wantRows[i])
		}
	}
	res := readResult(t, js)
	if len(res.Targets) != 3 || res.Targets[0].BodyIn != 100*13 || res.Counts.ConnsOpened != 3 || res.Load.Engine != "h3" {
		t.Errorf("engine %s, connections %d, JSON targets %+v", res.Load.Engine, res.Counts.ConnsOpened, res.Targets)
	}
	want(t, "ok", res.Counts.Outcomes[stats.OK], 200)
	want(t, "non2xx", res.Counts.Outcomes[stats.Non2xx], 100)
	l := srv.Ledger().H3
	want(t, "server's HTTP/3 requests", l.Protocols["HTTP/3.0"], 300)
	want(t, "server's HTTP/3 connections", l.Conns, 3)

	other, _ := h3Server(t)
	if err := os.WriteFile(ca, append(srv.CACertPEM(), other.CACertPEM()...), 0o600); err != nil {
		t.Fatal(err)
	}
	r = runGB(t, "--http3", "--cacert", ca, "-q", "--streams", "2", "-n", "200", "-c", "2", "--json", js,
		srv.TLSURL()+"/hello", other.TLSURL()+"/bytes/6")
	if r.code != 0 {
		t.Fatalf("two servers: exit %d:\n%s", r.code, r.stderr)
	}
	res = readResult(t, js)
	want(t, "two servers: ok", res.Counts.Outcomes[stats.OK], 200)
	want(t, "two servers: connections", res.Counts.ConnsOpened, 4)
	want(t, "first server's requests", srv.Ledger().H3.Protocols["HTTP/3.0"]-300, 100)
	want(t, "second server's requests", other.Ledger().H3.Protocols["HTTP/3.0"], 100)
	if len(res.Targets) != 2 || res.Targets[0].BodyIn != 100*13 || res.Targets[1].BodyIn != 100*6 {
		t.Errorf("two servers: JSON targets %+v", res.Targets)
	}
}

// TestHTTP3Compressed: --compressed over --http3 against gb serve's
// /compressed: every coding decodes to the size the server coded, the
// body bytes are the coded ones, and the counts equal the server's HTTP/3
// ledger; bodies that do not decode end as failed.decode, each of them,
// with the connections kept (one per worker).
func TestHTTP3Compressed(t *testing.T) {
	s, ca := h3Server(t)
	const n, size = 60, 50000
	served := int64(0)
	for _, enc := range []string{"gzip", "br", "zstd"} {
		url := fmt.Sprintf("%s/compressed?enc=%s&size=%d", s.TLSURL(), enc, size)
		wire := codedLength(t, strings.Replace(url, s.TLSURL(), s.URL(), 1))
		r := compressedRun(t, 0, url, "--http3", "--cacert", ca, "--compressed", "-n", fmt.Sprint(n), "-c", "2", "--streams", "4")
		c := &r.Counts
		if c.Outcomes[stats.OK] != n || c.DecodedIn != n*size || c.BodyIn != n*wire || !r.Load.Compressed || r.Load.Engine != "h3" {
			t.Errorf("%s: outcomes %v, decoded %d (want %d), body %d (want %d)", enc, c.Outcomes, c.DecodedIn, n*size, c.BodyIn, n*wire)
		}
		served += n
		want(t, enc+": server's HTTP/3 requests", s.Ledger().H3.Protocols["HTTP/3.0"], served)
		want(t, enc+": connections", c.ConnsOpened, 2)
	}
	for _, tc := range []struct{ query, arg, err string }{
		{"enc=gzip&break=corrupt", "", "gzip body corrupt"},
		{"enc=zstd", "Accept-Encoding: gzip, br", "content-encoding zstd not asked for"},
		{"enc=deflate", "", "unknown content-encoding"},
		{"enc=br&break=cut", "", "br body ends inside the compressed stream"},
	} {
		args := []string{"--http3", "--cacert", ca, "--compressed", "-n", "40", "-c", "2", "--streams", "4"}
		if tc.arg != "" {
			args = append(args, "-H", tc.arg)
		}
		r := compressedRun(t, 1, s.TLSURL()+"/compressed?"+tc.query+"&size=20000", args...)
		want(t, tc.query+": failed.decode", r.Counts.Outcomes[stats.FailDecode], 40)
		want(t, tc.query+": connections", r.Counts.ConnsOpened, 2)
		found := false
		for msg := range r.Counts.Errors {
			found = found || strings.Contains(msg, tc.err)
		}
		if !found {
			t.Errorf("%s: errors %v, want one with %q", tc.query, r.Counts.Errors, tc.err)
		}
		served += 40
	}
	want(t, "server's HTTP/3 requests", s.Ledger().H3.Protocols["HTTP/3.0"], served)
}

// TestHTTP3PhaseTimeouts: --http3 with --first-byte-timeout far below -s
// against gb serve's /delay answering after 3 s: every stream ends at its
// own deadline as failed.timeout.ttfb and is cancelled, on the one
// connection (-c 1), and the run ends by its count; no response, so exit
// 1 saying why. With --idle-timeout and --header-timeout too, a quick
// route is all ok: the limits end nothing that keeps to them.
func TestHTTP3PhaseTimeouts(t *testing.T) {
	s, ca := h3Server(t)
	js := filepath.Join(t.TempDir(), "r.json")
	r := runGB(t, "--http3", "--cacert", ca, "--first-byte-timeout", "0.2", "-s", "60", "-t", "30", "-n", "6", "-c", "1",
		"--streams", "3", "-q", "--json", js, s.TLSURL()+"/delay?d=3s")
	if r.code != 1 || r.stderr != "gb: no request got a response: http3: stream timed out\n" {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	res := readResult(t, js)
	want(t, "failed.timeout.ttfb", res.Counts.Outcomes[stats.TimeoutFirstByte], 6)
	want(t, "connections", res.Counts.ConnsOpened, 1)
	want(t, "server's HTTP/3 requests", s.Ledger().H3.Protocols["HTTP/3.0"], 6)
	if res.StoppedBy != stats.StopCount {
		t.Errorf("stopped by %s, want the count", res.StoppedBy)
	}
	r = runGB(t, "--http3", "--cacert", ca, "--first-byte-timeout", "30", "--header-timeout", "30", "--idle-timeout", "30",
		"-n", "200", "-c", "2", "--streams", "4", "-q", "--json", js, s.TLSURL()+"/bytes/100k")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	res = readResult(t, js)
	want(t, "ok", res.Counts.Outcomes[stats.OK], 200)
	want(t, "body bytes", res.Counts.BodyIn, 200*100<<10)
	want(t, "server's HTTP/3 requests", s.Ledger().H3.Protocols["HTTP/3.0"], 206)
}

// TestHTTP3Bind: -B with --http3 binds each connection's UDP socket to
// the given address, and -b sizes its buffers (internal/h3's
// TestLocalAddrs sees the server's side, TestSockBuf the socket's):
// the run against gb serve --tls is all ok and its HTTP/3 ledger served
// exactly -n.
func TestHTTP3Bind(t *testing.T) {
	s, ca := h3Server(t)
	r := runGB(t, "--http3", "--cacert", ca, "-B", "127.0.0.2,127.0.0.3", "-b", "65536", "-c", "2", "--streams", "2", "-n", "50", "-q",
		s.TLSURL()+"/bytes/6")
	if r.code != 0 || number(t, r.stdout, "Complete requests") != 50 {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	want(t, "server's HTTP/3 requests", s.Ledger().H3.Protocols["HTTP/3.0"], 50)
	want(t, "server's HTTP/3 connections", s.Ledger().H3.Conns, 2)
}

// TestRampHTTP3CarriesConnections: gb ramp over --http3, concurrency 2 to
// 6 with --compressed: the QUIC connections carry from step to step
// (each step opens only its new ones, and gb serve's HTTP/3 ledger counts
// 6 connections in all), every body decodes, and the server served
// exactly the steps' requests.
func TestRampHTTP3CarriesConnections(t *testing.T) {
	srv, ca := h3Server(t)
	js := filepath.Join(t.TempDir(), "ramp.json")
	r := gbProcess(t, "ramp", "--http3", "--cacert", ca, "--streams", "4", "--compressed",
		"--from", "2", "--to", "6", "--step", "2", "--per-user", "20", "--pause", "0", "--json", js,
		srv.TLSURL()+"/compressed?enc=gzip&size=1000")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	rp := readRamp(t, js)
	if len(rp.Steps) != 3 {
		t.Fatalf("%d steps, want 3", len(rp.Steps))
	}
	var total int64
	for i, s := range rp.Steps {
		c := 2 * (i + 1)
		if s.Complete() != int64(20*c) || s.Counts.Outcomes[stats.OK] != int64(20*c) || s.StoppedBy != stats.StopCount ||
			s.Load.Engine != "h3" || s.Counts.DecodedIn != int64(20*c*1000) {
			t.Errorf("step %d: complete %d, outcomes %v, stopped by %s, engine %s, decoded %d", i+1, s.Complete(),
				s.Counts.Outcomes, s.StoppedBy, s.Load.Engine, s.Counts.DecodedIn)
		}
		want(t, fmt.Sprintf("step %d: connections opened", i+1), s.Counts.ConnsOpened, 2) // the others carried over
		total += s.Complete()
	}
	l := srv.Ledger().H3
	want(t, "server's HTTP/3 requests", l.Protocols["HTTP/3.0"], total)
	want(t, "server's HTTP/3 connections", l.Conns, 6)
}

// TestHTTP3CaddyOptions: the options lifted for --http3, against Caddy
// (a server no one here wrote; it answers "hello"): two targets,
// --compressed, the phase timeouts and checks on the status, a header
// and the size all hold on every response, each target gets its half; a
// body check that cannot hold fails every response as failed.check.
// Each run's count equals the HTTP/3 lines of Caddy's access log.
// Skipped without caddy unless GB_REQUIRE_CADDY=1.
func TestHTTP3CaddyOptions(t *testing.T) {
	c := testsupport.StartCaddy(t)
	js := filepath.Join(t.TempDir(), "r.json")
	r := runGB(t, "--http3", "--cacert", c.CertFile, "-q", "--json", js, "-c", "2", "--streams", "4", "-n", "400",
		"--compressed", "--first-byte-timeout", "30", "--header-timeout", "30", "--idle-timeout", "30",
		"--check", "status==200", "--check", "header[Server]==Caddy", "--check", "size==5", c.URL+"/a", c.URL+"/b")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	res := readResult(t, js)
	want(t, "ok", res.Counts.Outcomes[stats.OK], 400)
	if len(res.Targets) != 2 || res.Targets[0].Requests != 200 || res.Targets[1].Requests != 200 {
		t.Errorf("targets %+v", res.Targets)
	}
	got := c.Totals(t, 400)
	want(t, "caddy's HTTP/3 lines", got.Protocols["HTTP/3.0"], 400)
	want(t, "caddy's lines", got.Requests, 400)

	r = runGB(t, "--http3", "--cacert", c.CertFile, "-q", "--json", js, "-c", "2", "--streams", "2", "-n", "100",
		"--check", "body contains nope", c.URL+"/")
	if r.code != 0 { // responses came, as with HTTP/1.1: a failed check is the response's verdict
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	res = readResult(t, js)
	want(t, "failed.check", res.Counts.Outcomes[stats.FailCheck], 100)
	got = c.Totals(t, 500)
	want(t, "caddy's HTTP/3 lines", got.Protocols["HTTP/3.0"], 500)
}
