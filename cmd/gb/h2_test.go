package main

import (
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/gb-bench/gb/internal/testsupport"
	"github.com/gb-bench/gb/stats"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// h2Server is a Go net/http server on loopback speaking HTTP/2 over TLS
// and HTTP/1.1 (only HTTP/1.1 with h1Only),
// or h2c with prior knowledge; it counts the HTTP/2 requests it served.
func h2Server(t *testing.T, tlsOn, h1Only bool) (string, *atomic.Int64) {
	t.Helper()
	var served atomic.Int64
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ProtoMajor == 2 {
			served.Add(1)
		}
		_, _ = io.WriteString(w, "hello!")
	}))
	var p http.Protocols
	p.SetHTTP1(true)
	p.SetHTTP2(!h1Only)
	p.SetUnencryptedHTTP2(!h1Only && !tlsOn)
	srv.Config.Protocols = &p
	if tlsOn {
		srv.EnableHTTP2 = !h1Only
		srv.StartTLS()
	} else {
		srv.Start()
	}
	t.Cleanup(srv.Close)
	return srv.URL, &served
}

// TestHTTP2CountsEqualServer: --http2 (both engines) and --h2c with 10
// streams on 4 connections: gb's ok count equals the requests the server
// served over HTTP/2, the JSON says which protocol ran and is valid
// against the schema, and the report has its protocol line.
func TestHTTP2CountsEqualServer(t *testing.T) {
	for _, tc := range []struct {
		flag, engine string
		tls          bool
	}{{"--http2", "loop", true}, {"--http2", "goroutine", true}, {"--h2c", "loop", false}} {
		url, served := h2Server(t, tc.tls, false)
		js := filepath.Join(t.TempDir(), "r.json")
		r := runGB(t, tc.flag, "--insecure", "--engine", tc.engine, "-c", "4", "--streams", "10", "-n", "3001", "-q", "--json", js, url+"/")
		if r.code != 0 {
			t.Fatalf("%s: exit %d: %s", tc.flag, r.code, r.stderr)
		}
		res := readResult(t, js)
		want(t, tc.flag+" ok", res.Counts.Outcomes[stats.OK], 3001)
		want(t, tc.flag+" served", served.Load(), 3001)
		proto := strings.TrimPrefix(tc.flag, "--")
		if proto == "http2" {
			proto = "h2"
		}
		if res.Load.Engine != proto || res.Load.Streams != 10 || !res.Load.KeepAlive || len(res.Check()) > 0 {
			t.Errorf("%s: target engine %q streams %d keep-alive %v, check %v", tc.flag, res.Load.Engine,
				res.Load.Streams, res.Load.KeepAlive, res.Check())
		}
		if !strings.Contains(r.stdout, "protocol:             HTTP/2 over") || !strings.Contains(r.stdout, "up to 10 streams per connection") {
			t.Errorf("%s: no protocol line in the report:\n%s", tc.flag, r.stdout)
		}
		validateSchema(t, js)
	}
}

// validateSchema checks a --json file against stats/result.schema.json.
func validateSchema(t *testing.T, path string) {
	t.Helper()
	sch, err := jsonschema.NewCompiler().Compile("../../stats/result.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	inst, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	if err := sch.Validate(inst); err != nil {
		t.Errorf("%s: %v", path, err)
	}
}

// TestHTTP2NotNegotiated: a TLS server that speaks only HTTP/1.1, and an
// HTTP/1.1 server given h2c: gb stops at once with one line saying so and
// exits 1.
func TestHTTP2NotNegotiated(t *testing.T) {
	tlsURL, _ := h2Server(t, true, true)
	r := runGB(t, "--http2", "--insecure", "-c", "2", "-n", "100", "-q", tlsURL+"/")
	if r.code != 1 || !strings.Contains(r.stderr, `Test aborted: the server did not negotiate HTTP/2 (ALPN gave "http/1.1")`+"\n") {
		t.Errorf("exit %d, stderr:\n%s", r.code, r.stderr)
	}
	plainURL, _ := h2Server(t, false, true)
	r = runGB(t, "--h2c", "-n", "100", "-q", plainURL+"/")
	if r.code != 1 || !strings.Contains(r.stderr, `Test aborted: the server does not speak HTTP/2: its first bytes are "HTTP/1.1 `) {
		t.Errorf("exit %d, stderr:\n%s", r.code, r.stderr)
	}
}

// TestHTTP2UsageErrors: combinations HTTP/2 cannot run are usage errors
// (exit 22), each one line, before any connection.
func TestHTTP2UsageErrors(t *testing.T) {
	for _, tc := range []struct{ args, msg string }{
		{"--http2 -n 1 http://127.0.0.1:1/", "--http2 needs an https:// URL"},
		{"--h2c -n 1 https://127.0.0.1:1/", "--h2c needs an http:// URL"},
		{"--streams 4 -n 1 http://127.0.0.1:1/", "--streams is HTTP/2's"},
		{"--h2c --pipeline 4 -n 8 http://127.0.0.1:1/", "--pipeline is HTTP/1.1's"},
		{"--h2c --streams 2000 -n 8 http://127.0.0.1:1/", "--streams 2000 is out of range"},
	} {
		r := runGB(t, strings.Fields(tc.args)...)
		if r.code != 22 || !strings.Contains(r.stderr, tc.msg) || strings.Count(r.stderr, "\n") != 1 {
			t.Errorf("gb %s: exit %d, stderr %q; want 22 and %q", tc.args, r.code, r.stderr, tc.msg)
		}
	}
}

// TestHTTP2NginxAccessLog: nginx with an HTTP/2 TLS listener ("listen …
// ssl http2", as nginx 1.22 spells it; later versions accept it too): the
// certificate verified with --cacert, a closed loop and a rate-mode run,
// and gb's counts equal nginx's access log.
func TestHTTP2NginxAccessLog(t *testing.T) {
	dir := t.TempDir()
	cert, key := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	writeLocalhostCert(t, cert, key)
	port := testsupport.FreePort(t)
	ngx := testsupport.StartNginx(t, testsupport.NginxOptions{
		Extra: fmt.Sprintf("listen 127.0.0.1:%d ssl http2; ssl_certificate %s; ssl_certificate_key %s;", port, cert, key)})
	url := fmt.Sprintf("https://127.0.0.1:%d/small.txt", port)
	js := filepath.Join(dir, "r.json")
	r := runGB(t, "--http2", "--cacert", cert, "-c", "10", "--streams", "10", "-n", "20000", "-q", "--json", js, url)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	res := readResult(t, js)
	want(t, "ok", res.Counts.Outcomes[stats.OK], 20000)
	want(t, "nginx log", ngx.Settled(t, testsupport.LogTotals{}, 20000).Requests, 20000)
	want(t, "connections", res.Counts.ConnsOpened, 10)
	r = runGB(t, "--http2", "--cacert", cert, "-c", "2", "--streams", "8", "-R", "2000", "-n", "1000", "-q", "--json", js, url)
	if r.code != 0 {
		t.Fatalf("rate mode: exit %d: %s", r.code, r.stderr)
	}
	res = readResult(t, js)
	want(t, "rate mode ok", res.Counts.Outcomes[stats.OK], 1000)
	want(t, "rate mode corrected latencies", res.Latency[stats.Corrected].Count, 1000)
	want(t, "nginx log after both", ngx.Settled(t, testsupport.LogTotals{}, 21000).Requests, 21000)
}

// writeLocalhostCert writes httptest's certificate for 127.0.0.1 and its
// key as PEM files.
func writeLocalhostCert(t *testing.T, certFile, keyFile string) {
	t.Helper()
	srv := httptest.NewUnstartedServer(nil)
	srv.StartTLS()
	c := srv.TLS.Certificates[0]
	srv.Close()
	der, err := x509.MarshalPKCS8PrivateKey(c.PrivateKey)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: c.Certificate[0]}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
}
