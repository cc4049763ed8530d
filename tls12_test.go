package gb_test

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/gb-bench/gb"
)

// tls12Server is an HTTPS server that speaks TLS 1.2 at most (HTTP/1.1
// and h2 by ALPN) and counts the ClientHellos that offered TLS 1.3, whose
// key shares it ignores.
type tls12Server struct {
	url     string
	hellos  atomic.Int64 // ClientHellos received
	offer13 atomic.Int64 // of which offered TLS 1.3 (and made key shares for it)
}

func startTLS12(t *testing.T) *tls12Server {
	t.Helper()
	s := &tls12Server{}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, "hello\n")
	}))
	srv.EnableHTTP2 = true
	srv.TLS = &tls.Config{MaxVersion: tls.VersionTLS12,
		GetConfigForClient: func(h *tls.ClientHelloInfo) (*tls.Config, error) {
			s.hellos.Add(1)
			if slices.Contains(h.SupportedVersions, tls.VersionTLS13) {
				s.offer13.Add(1)
			}
			return nil, nil
		}}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	s.url = srv.URL
	return s
}

// TestTLS12ServerNoKeyShares: against a server that speaks TLS 1.2 at
// most, once a handshake found so the run's new connections offer TLS 1.2
// only (a ClientHello offering TLS 1.3 makes key shares a TLS 1.2 server
// ignores: most of the CPU of a resumed TLS 1.2 handshake), on both
// engines, HTTP/1.1 without keep-alive and HTTP/2, with and without
// resumption: only the connections opened before the first handshake
// ended offered TLS 1.3, every request succeeded, and resumption still
// resumes. With -f TLS1.3 the run fails as before (nothing is capped).
func TestTLS12ServerNoKeyShares(t *testing.T) {
	s := startTLS12(t)
	for _, engine := range engines {
		for _, proto := range []gb.Protocol{gb.ProtocolHTTP1, gb.ProtocolHTTP2} {
			for _, resume := range []bool{false, true} {
				name := fmt.Sprintf("%s %s resume=%v", engine, proto, resume)
				hellos, offer13 := s.hellos.Load(), s.offer13.Load()
				cfg := gb.Config{URL: s.url + "/", Concurrency: 3, Requests: 60, Engine: engine, Protocol: proto,
					TLS: gb.TLS{Insecure: true, Resume: resume}}
				if proto == gb.ProtocolHTTP2 {
					cfg.Requests = 6 // HTTP/2 keeps its connections: 3 handshakes
				}
				res, err := gb.Run(context.Background(), cfg)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				h, opened := handshakes(res), res.Counts.ConnsOpened
				hellos, offer13 = s.hellos.Load()-hellos, s.offer13.Load()-offer13
				if res.Failed() != 0 || hellos != opened || offer13 > int64(cfg.Concurrency) || offer13 == 0 {
					t.Errorf("%s: failed %d; %d ClientHellos for %d connections, %d offered TLS 1.3 (want 1 to %d: those before the first handshake ended)",
						name, res.Failed(), hellos, opened, offer13, cfg.Concurrency)
				}
				if proto == gb.ProtocolHTTP1 && resume != (h.resumed > 0) {
					t.Errorf("%s: handshakes %+v", name, h)
				}
			}
		}
	}
	res, err := gb.Run(context.Background(), gb.Config{URL: s.url + "/", Concurrency: 1, Requests: 2,
		TLS: gb.TLS{Insecure: true, Protocol: "TLS1.3"}})
	if err == nil && res.Failed() == 0 {
		t.Errorf("-f TLS1.3 against a TLS 1.2 server: no failure")
	}
}
