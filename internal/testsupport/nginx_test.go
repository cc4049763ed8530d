package testsupport

import (
	"context"
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// fetch GETs url n times with c (concurrently, after a first request) and
// checks each reply's status, body length and protocol.
func fetch(t *testing.T, c *http.Client, url string, n, size, proto int) {
	t.Helper()
	get := func() {
		resp, err := c.Get(url)
		if err != nil {
			t.Error(err)
			return
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != 200 || len(b) != size || resp.ProtoMajor != proto {
			t.Errorf("%s: %s %d, %d bytes, %v", url, resp.Proto, resp.StatusCode, len(b), err)
		}
	}
	get()
	var wg sync.WaitGroup
	for range n - 1 {
		wg.Go(get)
	}
	wg.Wait()
}

// client returns a client speaking only the protocols set turns on.
func client(set func(*http.Protocols), tc *tls.Config, dial func(context.Context, string, string) (net.Conn, error)) *http.Client {
	p := new(http.Protocols)
	set(p)
	return &http.Client{Timeout: Guard, Transport: &http.Transport{Protocols: p, TLSClientConfig: tc, DialContext: dial}}
}

// waitLogged waits until the access log holds n requests (nginx logs a
// request after its reply is sent) and returns its totals.
func waitLogged(t *testing.T, ngx *Nginx, n int64) LogTotals {
	WaitFor(t, "nginx's access log", func() bool { return ngx.Totals(t).Requests >= n })
	return ngx.Totals(t)
}

// TestNginxUnixSocket: nginx answers on its unix socket and on TCP, and
// the access log counts each path and protocol.
func TestNginxUnixSocket(t *testing.T) {
	n := StartNginx(t, NginxOptions{Unix: true})
	if !strings.HasSuffix(n.Unix, "/nginx.sock") {
		t.Fatalf("Unix %q", n.Unix)
	}
	unix := client(func(p *http.Protocols) { p.SetHTTP1(true) }, nil, func(ctx context.Context, _, _ string) (net.Conn, error) {
		return new(net.Dialer).DialContext(ctx, "unix", n.Unix)
	})
	fetch(t, unix, "http://localhost/small.txt?x=1", 5, 6, 1)
	fetch(t, unix, "http://localhost/10k.dat", 3, 10240, 1)
	fetch(t, http.DefaultClient, n.URL+"/small.txt", 2, 6, 1)
	tot := waitLogged(t, n, 10)
	if tot.Paths["/small.txt"] != 7 || tot.Paths["/10k.dat"] != 3 || tot.Protocols["HTTP/1.1"] != 10 {
		t.Errorf("totals %+v", tot)
	}
}

// TestNginxHTTP2: nginx's TLS port offers h2 and http/1.1 by ALPN with a
// certificate the client trusts through CertFile, and logs each protocol.
func TestNginxHTTP2(t *testing.T) {
	n := StartNginx(t, NginxOptions{HTTP2: true})
	if !strings.HasPrefix(n.TLSURL, "https://127.0.0.1:") || n.TLSURL == strings.Replace(n.URL, "http:", "https:", 1) {
		t.Fatalf("TLSURL %q, URL %q", n.TLSURL, n.URL)
	}
	tc := &tls.Config{RootCAs: n.CertPool(t)}
	fetch(t, client(func(p *http.Protocols) { p.SetHTTP2(true) }, tc, nil), n.TLSURL+"/10k.dat", 20, 10240, 2)
	// A config of its own: the h2 transport added "h2" to tc.NextProtos.
	tc1 := &tls.Config{RootCAs: tc.RootCAs}
	fetch(t, client(func(p *http.Protocols) { p.SetHTTP1(true) }, tc1, nil), n.TLSURL+"/small.txt", 4, 6, 1)
	tot := waitLogged(t, n, 24)
	if tot.Protocols["HTTP/2.0"] != 20 || tot.Protocols["HTTP/1.1"] != 4 || tot.Paths["/10k.dat"] != 20 {
		t.Errorf("totals %+v", tot)
	}
	if _, err := http.Get(n.TLSURL + "/small.txt"); err == nil || !strings.Contains(err.Error(), "certificate") {
		t.Errorf("a client without the certificate: %v", err)
	}
	if out, err := exec.Command("curl", "-sS", "--http2", "--cacert", n.CertFile, "-o", os.DevNull, "-w", "%{http_version}",
		n.TLSURL+"/small.txt").CombinedOutput(); err == nil && string(out) != "2" {
		t.Errorf("curl --cacert CertFile: http version %q", out)
	}
}

// TestNginxTLSWithoutHTTP2: TLS alone offers only http/1.1.
func TestNginxTLSWithoutHTTP2(t *testing.T) {
	n := StartNginx(t, NginxOptions{TLS: true})
	fetch(t, client(func(p *http.Protocols) { p.SetHTTP1(true); p.SetHTTP2(true) }, &tls.Config{RootCAs: n.CertPool(t)}, nil),
		n.TLSURL+"/small.txt", 3, 6, 1)
}

// TestHTTP2Listen reads nginx -V: the directive from 1.25.1 on, the listen
// parameter before, an error without the module.
func TestHTTP2Listen(t *testing.T) {
	for _, tc := range []struct {
		v, args   string
		directive bool
		err       string
	}{
		{"1.22.1", "--with-http_ssl_module --with-http_v2_module", false, ""},
		{"1.25.1", "--with-http_v2_module", true, ""},
		{"1.27.0", "--with-http_v2_module", true, ""},
		{"2.0.0", "--with-http_v2_module", true, ""},
		{"1.24.9", "--with-http_ssl_module", false, "without the http_v2 module"},
	} {
		bin := filepath.Join(t.TempDir(), "nginx")
		script := "#!/bin/sh\necho 'nginx version: nginx/" + tc.v + "'\necho 'configure arguments: " + tc.args + "'\n"
		if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
		d, err := HTTP2Listen(bin)
		if d != tc.directive || (err == nil) != (tc.err == "") || err != nil && !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%s %s: %v, %v", tc.v, tc.args, d, err)
		}
	}
}
