package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gb-bench/gb/internal/testserver"
	"github.com/gb-bench/gb/internal/testsupport"
	"github.com/gb-bench/gb/stats"
)

// TestTLSVerifiedByDefault: a self-signed server fails verification with a
// hint; --cacert and --insecure both work, and the report shows ab's TLS lines.
func TestTLSVerifiedByDefault(t *testing.T) {
	srv := testsupport.Server(t, testserver.Options{TLS: true})
	url := srv.TLSURL() + "/hello"
	r := runGB(t, "-n", "50", "-c", "2", url)
	if r.code != 1 || !strings.Contains(r.stderr, "certificate") || !strings.Contains(r.stderr, "--insecure") {
		t.Errorf("unverifiable certificate: exit %d, stderr:\n%s", r.code, r.stderr)
	}
	if !strings.Contains(r.stdout, "Failed requests:") {
		t.Errorf("no report after the aborted run:\n%s", r.stdout)
	}
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(ca, srv.CACertPEM(), 0o600); err != nil {
		t.Fatal(err)
	}
	js := filepath.Join(t.TempDir(), "r.json")
	for _, engine := range []string{"auto", "goroutine"} {
		for _, args := range [][]string{{"--cacert", ca}, {"--insecure"}} {
			r := runGB(t, append(args, "--engine="+engine, "-k", "-n", "50", "-c", "2", "--json", js, url)...)
			if r.code != 0 || number(t, r.stdout, "Complete requests") != 50 {
				t.Fatalf("%v: exit %d\n%s%s", args, r.code, r.stdout, r.stderr)
			}
			if p := field(t, r.stdout, "SSL/TLS Protocol"); !strings.HasPrefix(p, "TLSv1.3,TLS_") {
				t.Errorf("SSL/TLS Protocol %q", p)
			}
			res := readResult(t, js)
			if res.Load.TLSVerify != (args[0] == "--cacert") || res.Counts.ConnsOpened != 2 {
				t.Errorf("%v: tls_verify %v, conns %d", args, res.Load.TLSVerify, res.Counts.ConnsOpened)
			}
			if want := expectedEngine(engine); res.Client.Engine != want {
				t.Errorf("engine %q, want %q", res.Client.Engine, want)
			}
		}
	}
}

// TestProxy sends absolute-form requests to the -X address; nginx serves
// them from its own root whatever the URL's host, which need not resolve.
func TestProxy(t *testing.T) {
	ngx := testsupport.StartNginx(t, testsupport.NginxOptions{})
	proxy := strings.TrimPrefix(ngx.URL, "http://")
	js := filepath.Join(t.TempDir(), "r.json")
	r := runGB(t, "-X", proxy, "-n", "20", "--json", js, "http://origin.invalid/small.txt")
	if r.code != 0 || !strings.Contains(r.stdout, "Benchmarking origin.invalid [through "+proxy+"] (be patient)") {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	entries := ngx.Entries(t)
	if len(entries) != 20 || entries[0].URI != "/small.txt" {
		t.Errorf("nginx saw %d requests, first %+v", len(entries), entries[0])
	}
	if res := readResult(t, js); res.Counts.Outcomes[stats.OK] != 20 {
		t.Errorf("outcomes %v", res.Counts.Outcomes)
	}
}

// TestTLSResumeFlag: --tls-resume makes new connections resume (the
// "tls handshakes" line, target.tls_resume in the JSON); against a
// server that refuses resumption the run still exits 0, with the note.
func TestTLSResumeFlag(t *testing.T) {
	js := filepath.Join(t.TempDir(), "r.json")
	for _, refuse := range []bool{false, true} {
		srv := testsupport.Server(t, testserver.Options{TLS: true, NoResume: refuse})
		r := runGB(t, "--tls-resume", "--insecure", "-n", "30", "-c", "2", "--json", js, srv.TLSURL()+"/hello")
		line := field(t, r.stdout, "  tls handshakes")
		var full, resumed int64
		if _, err := fmt.Sscanf(line, "full=%d resumed=%d", &full, &resumed); err != nil || r.code != 0 || full+resumed != 30 {
			t.Fatalf("refused=%v: exit %d, line %q (%v)\n%s", refuse, r.code, line, err, r.stderr)
		}
		if refused := strings.Contains(line, "it refuses resumption"); (resumed == 0) != refuse || refused != refuse {
			t.Errorf("refused=%v: %q", refuse, line)
		}
		if !readResult(t, js).Load.TLSResume {
			t.Errorf("target.tls_resume not set")
		}
	}
}
