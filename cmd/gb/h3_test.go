package main

import (
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
	for _, tc := range []struct{ args, msg string }{
		{"--http3 -n 1 http://127.0.0.1:1/", "--http3 needs an https:// URL"},
		{"--http3 -n 1 -X 127.0.0.1:3128 https://127.0.0.1:1/", "-X cannot apply to --http3"},
		{"--http3 -n 1 --unix-socket /tmp/gb-h3.sock https://127.0.0.1:1/", "--unix-socket cannot apply to --http3"},
		{"--http3 -n 1 --engine loop https://127.0.0.1:1/", "--engine loop cannot drive --http3"},
		{"--http3 -n 8 --pipeline 4 https://127.0.0.1:1/", "--pipeline is HTTP/1.1's"},
		{"--http3 -n 1 -f TLS1.2 https://127.0.0.1:1/", "QUIC is TLS 1.3 only"},
		{"--streams 4 -n 1 https://127.0.0.1:1/", "--streams is HTTP/2's and HTTP/3's"},
	} {
		r := runGB(t, strings.Fields(tc.args)...)
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
	if res.Target.Engine != "h3" || res.Target.Streams != 5 || len(res.Check()) > 0 {
		t.Errorf("target engine %q streams %d, check %v", res.Target.Engine, res.Target.Streams, res.Check())
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
	deadline := time.Now().Add(10 * time.Second)
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
