package gb_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gb-bench/gb"
	"github.com/gb-bench/gb/internal/testserver"
	"github.com/gb-bench/gb/internal/testsupport"
	"github.com/gb-bench/gb/stats"
)

// relay is a test's man in the middle on loopback: an HTTP CONNECT proxy
// (connect) or a plain TCP forwarder to a fixed address. Either way it
// reads the TLS ClientHello that passes through and notes its server name.
type relay struct {
	addr    string
	connect bool   // answer CONNECT, then tunnel; false = forward to to
	to      string // forwarder's destination
	auth    string // CONNECT must carry Proxy-Authorization: Basic of this; "" = none asked
	socket  string // listen on this unix socket; "" = a free loopback TCP port
	hangUp  bool   // close each connection right after reading CONNECT

	mu      sync.Mutex
	targets []string // CONNECT request targets, in order
	names   []string // ClientHello server names, in order ("" = none sent)
}

// startRelay listens on a free loopback port until the test ends.
func startRelay(t *testing.T, r *relay) *relay {
	t.Helper()
	network, addr := "tcp", "127.0.0.1:0"
	if r.socket != "" {
		network, addr = "unix", r.socket
	}
	ln, err := net.Listen(network, addr)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	t.Cleanup(func() { ln.Close(); wg.Wait() })
	r.addr = ln.Addr().String()
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Add(1)
			go func() { defer wg.Done(); r.serve(c) }()
		}
	}()
	return r
}

// serve handles one client connection.
func (r *relay) serve(c net.Conn) {
	defer c.Close()
	br := bufio.NewReader(c)
	to := r.to
	if r.connect {
		req, err := http.ReadRequest(br)
		if err != nil {
			return
		}
		r.mu.Lock()
		r.targets = append(r.targets, req.RequestURI)
		r.mu.Unlock()
		switch {
		case r.hangUp:
			return
		case req.Method != http.MethodConnect:
			io.WriteString(c, "HTTP/1.1 405 Method Not Allowed\r\nContent-Length: 0\r\n\r\n")
			return
		case r.auth != "" && req.Header.Get("Proxy-Authorization") != "Basic "+base64.StdEncoding.EncodeToString([]byte(r.auth)):
			io.WriteString(c, "HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm=\"t\"\r\nContent-Length: 0\r\n\r\n")
			return
		}
		to = req.RequestURI
	}
	up, err := net.Dial("tcp", to)
	if err != nil {
		io.WriteString(c, "HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n")
		return
	}
	defer up.Close()
	if r.connect {
		io.WriteString(c, "HTTP/1.1 200 Connection established\r\n\r\n")
	}
	name, hello := serverName(br)
	r.mu.Lock()
	r.names = append(r.names, name)
	r.mu.Unlock()
	if _, err := up.Write(hello); err != nil {
		return
	}
	go func() { io.Copy(up, br); up.(*net.TCPConn).CloseWrite() }()
	io.Copy(c, up)
}

// seen returns copies of what the relay saw so far.
func (r *relay) seen() (targets, names []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.targets...), append([]string(nil), r.names...)
}

// serverName reads the TLS ClientHello from rd, with crypto/tls's own
// parser, and returns its server name and the bytes it read.
func serverName(rd io.Reader) (string, []byte) {
	var got bytes.Buffer
	var name string
	stop := errors.New("hello read")
	srv := tls.Server(helloConn{r: io.TeeReader(rd, &got)}, &tls.Config{
		GetConfigForClient: func(h *tls.ClientHelloInfo) (*tls.Config, error) { name = h.ServerName; return nil, stop },
	})
	_ = srv.Handshake()
	return name, got.Bytes()
}

// helloConn is the read side of a connection; what is written to it is
// dropped (the aborted handshake's alert).
type helloConn struct {
	net.Conn
	r io.Reader
}

func (c helloConn) Read(p []byte) (int, error)       { return c.r.Read(p) }
func (c helloConn) Write(p []byte) (int, error)      { return len(p), nil }
func (c helloConn) SetDeadline(time.Time) error      { return nil }
func (c helloConn) SetReadDeadline(time.Time) error  { return nil }
func (c helloConn) SetWriteDeadline(time.Time) error { return nil }

// tlsServer starts gb's test server with TLS and writes its CA for --cacert.
func tlsServer(t *testing.T) (*testserver.Server, string) {
	t.Helper()
	srv := testsupport.Server(t, testserver.Options{TLS: true, NoPprof: true})
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(ca, srv.CACertPEM(), 0o600); err != nil {
		t.Fatal(err)
	}
	return srv, ca
}

// TestProxyTunnel: with -X an https:// URL goes through CONNECT (with -P's
// credentials on CONNECT only), one tunnel per connection, on both engines
// with keep-alive and without; every request gb counts is one the server
// counts, the requests are origin-form and carry no proxy credentials.
func TestProxyTunnel(t *testing.T) {
	srv, ca := tlsServer(t)
	proxy := startRelay(t, &relay{connect: true, auth: "user:s3cret"})
	host := strings.TrimPrefix(srv.TLSURL(), "https://")
	for _, engine := range []string{gb.EngineLoop, gb.EngineGoroutine} {
		for _, ka := range []bool{true, false} {
			before := srv.Ledger().TLS
			targets0, _ := proxy.seen()
			cfg := gb.Config{URL: srv.TLSURL() + "/hello", Proxy: proxy.addr, ProxyAuth: "user:s3cret",
				TLS: gb.TLS{CAFile: ca}, Engine: engine, KeepAlive: ka, Concurrency: 3, Requests: 90}
			p, err := gb.NewPlan(cfg)
			if err != nil {
				t.Fatal(err)
			}
			if req := string(p.Request()); !strings.HasPrefix(req, "GET /hello HTTP/1.1\r\n") || strings.Contains(req, "Proxy-Authorization") {
				t.Errorf("tunnelled request:\n%s", req)
			}
			res, err := p.Run(context.Background())
			p.Close()
			if err != nil {
				t.Fatal(err)
			}
			after := srv.Ledger().TLS
			targets, _ := proxy.seen()
			tunnels := int64(len(targets) - len(targets0))
			if res.Counts.Outcomes[stats.OK] != 90 || after.Requests-before.Requests != 90 {
				t.Errorf("%s keep-alive=%v: gb ok=%d errors=%v; the server counted %d", engine, ka,
					res.Counts.Outcomes[stats.OK], res.Counts.Errors, after.Requests-before.Requests)
			}
			if c := res.Counts.ConnsOpened; c != tunnels || c != after.Conns-before.Conns || (ka && c != 3) || (!ka && c != 90) {
				t.Errorf("%s keep-alive=%v: gb opened %d connections, the proxy tunnelled %d, the server accepted %d",
					engine, ka, c, tunnels, after.Conns-before.Conns)
			}
			if targets[len(targets)-1] != host {
				t.Errorf("CONNECT %s, want %s", targets[len(targets)-1], host)
			}
			if res.Latency[stats.TLS] == nil || len(res.Check()) > 0 {
				t.Errorf("%s: no tls phase or invariants broken: %v", engine, res.Check())
			}
		}
	}
}

// TestProxyTunnelRefused: a proxy that answers CONNECT with 407, or that
// hangs up, fails every connection as failed.connect, and the run stops
// by the connect-failure rule with the proxy's answer in its error.
func TestProxyTunnelRefused(t *testing.T) {
	srv, ca := tlsServer(t)
	for _, tc := range []struct {
		proxy *relay
		want  string
	}{
		{startRelay(t, &relay{connect: true, auth: "user:s3cret"}), "proxy refused CONNECT: 407 Proxy Authentication Required"},
		{startRelay(t, &relay{connect: true, hangUp: true}), "proxy closed the connection before answering CONNECT"},
	} {
		for _, engine := range []string{gb.EngineLoop, gb.EngineGoroutine} {
			res, err := gb.Run(context.Background(), gb.Config{URL: srv.TLSURL() + "/hello", Proxy: tc.proxy.addr,
				TLS: gb.TLS{CAFile: ca}, Engine: engine, KeepAlive: true, Concurrency: 2, Requests: 1000})
			if err != nil {
				t.Fatal(err)
			}
			o := res.Counts.Outcomes
			if res.StoppedBy != stats.StopError || !strings.HasSuffix(res.StopError, tc.want) ||
				o[stats.FailConnect] == 0 || o[stats.FailConnect] != res.Failed() || res.Counts.Errors[tc.want] != o[stats.FailConnect] {
				t.Errorf("%s: stopped by %s (%q), outcomes %v, errors %v; want the run stopped on %q", engine,
					res.StoppedBy, res.StopError, o, res.Counts.Errors, tc.want)
			}
			if res.Counts.ConnsOpened != res.Counts.ConnsClosed || len(res.Check()) > 0 {
				t.Errorf("%s: opened %d closed %d, invariants %v", engine, res.Counts.ConnsOpened, res.Counts.ConnsClosed, res.Check())
			}
		}
	}
	if srv.Ledger().TLS.Requests != 0 {
		t.Errorf("the server counted %d requests through refusing proxies", srv.Ledger().TLS.Requests)
	}
}

// TestConnectToAndSNI: an https:// URL for a name no resolver knows
// reaches the server through --connect-to, the TLS name (sent, and
// verified against the test CA) staying the URL's; --sni sends and
// verifies another name, which the wire shows; --connect-to through a
// CONNECT proxy changes what is asked of the proxy.
func TestConnectToAndSNI(t *testing.T) {
	srv, ca := tlsServer(t)
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(srv.TLSURL(), "https://"))
	fwd := startRelay(t, &relay{to: "127.0.0.1:" + port})
	proxy := startRelay(t, &relay{connect: true})
	url := "https://" + testserver.TestName + ":8443/hello"
	for _, tc := range []struct {
		cfg      gb.Config
		name     string // the server name the wire must show
		target   string // the CONNECT target the proxy must see; "" = no proxy
		failWith string // the TLS error all requests fail with; "" = none
	}{
		{cfg: gb.Config{ConnectTo: []string{"other.test::127.0.0.1:1", testserver.TestName + ":8443:127.0.0.1:" + fwdPort(fwd)}}, name: testserver.TestName},
		{cfg: gb.Config{ConnectTo: []string{":8443:127.0.0.1:" + fwdPort(fwd)}, TLS: gb.TLS{ServerName: "localhost"}}, name: "localhost"},
		{cfg: gb.Config{ConnectTo: []string{"::[127.0.0.1]:" + fwdPort(fwd)}, TLS: gb.TLS{ServerName: "other.test"}}, name: "other.test",
			failWith: "x509: certificate is valid for localhost, example.test, not other.test"},
		{cfg: gb.Config{ConnectTo: []string{testserver.TestName + "::127.0.0.1:" + port}, Proxy: proxy.addr}, name: testserver.TestName,
			target: "127.0.0.1:" + port},
	} {
		desc := fmt.Sprintf("--connect-to %v --sni %q -X %q", tc.cfg.ConnectTo, tc.cfg.TLS.ServerName, tc.cfg.Proxy)
		for _, engine := range []string{gb.EngineLoop, gb.EngineGoroutine} {
			before := srv.Ledger().TLS.Requests
			cfg := tc.cfg
			cfg.URL, cfg.Engine, cfg.KeepAlive, cfg.Concurrency, cfg.Requests = url, engine, true, 2, 20
			cfg.TLS.CAFile = ca
			res, err := gb.Run(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			served := srv.Ledger().TLS.Requests - before
			var names []string
			if tc.target != "" {
				targets, n := proxy.seen()
				names = n
				if targets[len(targets)-1] != tc.target {
					t.Errorf("%s: CONNECT %s, want %s", desc, targets[len(targets)-1], tc.target)
				}
			} else {
				_, names = fwd.seen()
			}
			if got := names[len(names)-1]; got != tc.name {
				t.Errorf("%s %s: the ClientHello named %q, want %q", engine, desc, got, tc.name)
			}
			if tc.failWith != "" {
				if res.Complete() != 0 || res.Counts.Errors["tls: failed to verify certificate: "+tc.failWith] == 0 {
					t.Errorf("%s %s: complete %d, errors %v; want TLS failures %q", engine, desc, res.Complete(), res.Counts.Errors, tc.failWith)
				}
				continue
			}
			if res.Counts.Outcomes[stats.OK] != 20 || served != 20 || res.Server.TLSServerName != tc.name {
				t.Errorf("%s %s: ok=%d errors=%v server counted %d, TLS name %q", engine, desc,
					res.Counts.Outcomes[stats.OK], res.Counts.Errors, served, res.Server.TLSServerName)
			}
		}
	}
}

// fwdPort is a relay's port.
func fwdPort(r *relay) string {
	_, port, _ := net.SplitHostPort(r.addr)
	return port
}
