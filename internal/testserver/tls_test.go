package testserver_test

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"net/http"
	"strings"
	"testing"

	"github.com/gb-bench/gb/internal/testserver"
	"github.com/gb-bench/gb/internal/testsupport"
)

func TestTLS(t *testing.T) {
	s := testsupport.Server(t, testserver.Options{TLS: true})
	if !strings.HasPrefix(s.TLSURL(), "https://127.0.0.1:") {
		t.Fatalf("TLSURL %q", s.TLSURL())
	}
	tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: s.CertPool()}, ForceAttemptHTTP2: true}
	c := &http.Client{Timeout: testsupport.Guard, Transport: tr}
	resp, body := get(t, c, s.TLSURL()+"/hello")
	if body != "Hello, World!" || resp.ProtoMajor != 2 {
		t.Errorf("%s %q", resp.Proto, body)
	}
	h1 := &http.Client{Timeout: testsupport.Guard, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: s.CertPool()}}}
	if resp, _ := get(t, h1, s.TLSURL()+"/bytes/10"); resp.ProtoMajor != 1 {
		t.Errorf("HTTP/1.1 over TLS: %s", resp.Proto)
	}
	l := s.Ledger()
	if l.TLS.Requests != 2 || l.TLS.Conns != 2 || l.TLS.BytesIn == 0 || l.HTTP.Requests != 0 {
		t.Errorf("ledger TLS %+v HTTP %+v", l.TLS, l.HTTP)
	}

	block, _ := pem.Decode(s.CACertPEM())
	ca, err := x509.ParseCertificate(block.Bytes)
	if err != nil || !ca.IsCA {
		t.Errorf("CA certificate: %v", err)
	}
	if _, err := client().Get(s.TLSURL() + "/hello"); err == nil || !strings.Contains(err.Error(), "certificate") {
		t.Errorf("an unverified client got %v", err)
	}
}

func TestNoTLS(t *testing.T) {
	s := testsupport.Server(t, testserver.Options{})
	if s.TLSURL() != "" || s.CACertPEM() != nil || s.CertPool() == nil {
		t.Errorf("TLSURL %q, CA %v", s.TLSURL(), s.CACertPEM())
	}
	if !strings.HasPrefix(s.URL(), "http://127.0.0.1:") || !strings.HasPrefix(s.FaultURL(), "http://127.0.0.1:") || s.URL() == s.FaultURL() {
		t.Errorf("URL %q, FaultURL %q", s.URL(), s.FaultURL())
	}
}

func TestIPv6(t *testing.T) {
	s, err := testserver.Start(testserver.Options{Addr: "[::1]:0", TLS: true})
	if err != nil {
		t.Skipf("no IPv6 loopback: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	if !strings.HasPrefix(s.URL(), "http://[::1]:") {
		t.Fatalf("URL %q", s.URL())
	}
	c := &http.Client{Timeout: testsupport.Guard, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: s.CertPool()}}}
	for _, u := range []string{s.URL(), s.TLSURL(), s.FaultURL()} {
		if resp, _ := get(t, c, u+"/ok"); resp.StatusCode != 200 {
			t.Errorf("%s: %d", u, resp.StatusCode)
		}
	}
}
