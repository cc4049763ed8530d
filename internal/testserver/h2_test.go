package testserver_test

import (
	"context"
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"sync"
	"testing"

	"github.com/gb-bench/gb/internal/testserver"
	"github.com/gb-bench/gb/internal/testsupport"
)

// protoClient returns a client that speaks only the protocols set by set,
// trusting s's CA; dial, if not nil, replaces TCP dialing.
func protoClient(s *testserver.Server, set func(*http.Protocols), dial func(context.Context, string, string) (net.Conn, error)) *http.Client {
	p := new(http.Protocols)
	set(p)
	tr := &http.Transport{Protocols: p, TLSClientConfig: &tls.Config{RootCAs: s.CertPool()}, DialContext: dial}
	return &http.Client{Timeout: testsupport.Guard, Transport: tr}
}

// getAll makes one GET of url, then n-1 at once (over the first one's
// connection, if the protocol multiplexes), checks every reply and returns
// the protocol they came over.
func getAll(t *testing.T, c *http.Client, url string, n int) string {
	t.Helper()
	first := getSix(t, c, url)
	var wg sync.WaitGroup
	protos := make(chan string, n)
	for range n - 1 {
		wg.Go(func() { protos <- getSix(t, c, url) })
	}
	wg.Wait()
	close(protos)
	for p := range protos {
		if p != first {
			t.Errorf("replies over %s and %s", first, p)
		}
	}
	return first
}

// getSix GETs url, checks for a 200 with body "abcdef" and returns the
// reply's protocol ("" on error).
func getSix(t *testing.T, c *http.Client, url string) string {
	resp, err := c.Get(url)
	if err != nil {
		t.Error(err)
		return ""
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || resp.StatusCode != 200 || string(b) != "abcdef" {
		t.Errorf("%s: %d %q %v", url, resp.StatusCode, b, err)
	}
	return resp.Proto
}

// TestHTTP2Ledger makes N concurrent requests over h2 (TLS, ALPN) and h2c
// (prior knowledge), then over HTTP/1.1 on both listeners, and checks that
// the ledger counts each exactly, with its protocol, per listener.
func TestHTTP2Ledger(t *testing.T) {
	const n = 40
	s := testsupport.Server(t, testserver.Options{TLS: true})
	h2 := protoClient(s, func(p *http.Protocols) { p.SetHTTP2(true) }, nil)
	h2c := protoClient(s, func(p *http.Protocols) { p.SetUnencryptedHTTP2(true) }, nil)
	h1 := protoClient(s, func(p *http.Protocols) { p.SetHTTP1(true) }, nil)
	if p := getAll(t, h2, s.TLSURL()+"/bytes/6", n); p != "HTTP/2.0" {
		t.Errorf("TLS listener: %s, want HTTP/2.0 by ALPN", p)
	}
	if p := getAll(t, h2c, s.URL()+"/bytes/6", n); p != "HTTP/2.0" {
		t.Errorf("main listener with prior knowledge: %s, want HTTP/2.0", p)
	}
	l := s.Ledger()
	// Every request on one connection. On a busy machine Go's client may
	// also dial connections it then leaves unused (no request on them):
	// the ledger counts those as connections with 0 requests.
	for name, tr := range map[string]testserver.Traffic{"tls": l.TLS, "http": l.HTTP} {
		if tr.Requests != n || tr.Conns != 1+tr.RequestsPerConn[0] || tr.Protocols["HTTP/2.0"] != n || len(tr.Protocols) != 1 || tr.RequestsPerConn[n] != 1 {
			t.Errorf("%s listener after %d h2 requests on one connection: %+v", name, n, tr)
		}
	}

	getAll(t, h1, s.TLSURL()+"/bytes/6", 3)
	getAll(t, h1, s.URL()+"/bytes/6", 3)
	l = s.Ledger()
	for name, tr := range map[string]testserver.Traffic{"tls": l.TLS, "http": l.HTTP} {
		if tr.Requests != n+3 || tr.Protocols["HTTP/1.1"] != 3 || tr.Protocols["HTTP/2.0"] != n {
			t.Errorf("%s listener after 3 more HTTP/1.1 requests: %+v", name, tr)
		}
	}
	s.ResetLedger()
	if l := s.Ledger(); len(l.TLS.Protocols)+len(l.HTTP.Protocols) != 0 {
		t.Errorf("protocols after a reset: %v %v", l.TLS.Protocols, l.HTTP.Protocols)
	}
}
