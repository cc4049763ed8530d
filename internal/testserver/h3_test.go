package testserver_test

import (
	"crypto/tls"
	"net/http"
	"testing"

	"github.com/gb-bench/gb/internal/testserver"
	"github.com/gb-bench/gb/internal/testsupport"
	"github.com/quic-go/quic-go/http3"
)

// TestHTTP3Ledger: the TLS listener announces HTTP/3 (Alt-Svc) and
// serves it on its port over UDP; the ledger's H3 part counts each
// request with its protocol and the connection, and nothing on the TCP
// listeners.
func TestHTTP3Ledger(t *testing.T) {
	const n = 40
	s := testsupport.Server(t, testserver.Options{TLS: true})
	h1 := protoClient(s, func(p *http.Protocols) { p.SetHTTP1(true) }, nil)
	res, err := h1.Get(s.TLSURL() + "/bytes/6")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if alt := res.Header.Get("Alt-Svc"); alt == "" {
		t.Errorf("no Alt-Svc on the TLS listener's reply")
	}
	s.ResetLedger()
	tr := &http3.Transport{TLSClientConfig: &tls.Config{RootCAs: s.CertPool()}}
	defer tr.Close()
	h3 := &http.Client{Timeout: testsupport.Guard, Transport: tr}
	if p := getAll(t, h3, s.TLSURL()+"/bytes/6", n); p != "HTTP/3.0" {
		t.Errorf("replies over %q, want HTTP/3.0", p)
	}
	l := s.Ledger()
	if l.H3.Requests != n || l.H3.Protocols["HTTP/3.0"] != n || l.H3.Conns != 1 || l.H3.RequestsPerConn[n] != 1 ||
		l.TLS.Requests != 0 || l.HTTP.Requests != 0 {
		t.Errorf("after %d HTTP/3 requests: h3 %+v, tls %+v", n, l.H3, l.TLS)
	}
	s.ResetLedger()
	if l := s.Ledger(); l.H3.Requests != 0 || len(l.H3.Protocols) != 0 {
		t.Errorf("after a reset: %+v", l.H3)
	}
}
