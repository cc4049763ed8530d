package gb_test

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gb-bench/gb"
	"github.com/gb-bench/gb/internal/report"
	"github.com/gb-bench/gb/internal/testserver"
	"github.com/gb-bench/gb/internal/testsupport"
	"github.com/gb-bench/gb/stats"
)

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
	proxy := testsupport.StartRelay(t, &testsupport.Relay{Connect: true, Auth: "user:s3cret"})
	host := strings.TrimPrefix(srv.TLSURL(), "https://")
	for _, engine := range []gb.Engine{gb.EngineLoop, gb.EngineGoroutine} {
		for _, ka := range []bool{true, false} {
			before := srv.Ledger().TLS
			targets0, _ := proxy.Seen()
			cfg := gb.Config{URL: srv.TLSURL() + "/hello", Proxy: proxy.Addr, ProxyAuth: "user:s3cret",
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
			targets, _ := proxy.Seen()
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
		proxy *testsupport.Relay
		want  string
	}{
		{testsupport.StartRelay(t, &testsupport.Relay{Connect: true, Auth: "user:s3cret"}), "proxy refused CONNECT: 407 Proxy Authentication Required"},
		{testsupport.StartRelay(t, &testsupport.Relay{Connect: true, HangUp: true}), "proxy closed the connection before answering CONNECT"},
	} {
		for _, engine := range []gb.Engine{gb.EngineLoop, gb.EngineGoroutine} {
			res, err := gb.Run(context.Background(), gb.Config{URL: srv.TLSURL() + "/hello", Proxy: tc.proxy.Addr,
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

// TestProxyHostileReason: a proxy whose 407 reason phrase carries
// terminal control sequences (retitle the window, clear the screen)
// reaches neither the run's error, its error tally nor ab's report raw:
// they show the bytes escaped.
func TestProxyHostileReason(t *testing.T) {
	const reason = "Denied\x1b]2;pwned\x07\x1b[2J\x9b"
	addr := testsupport.Serve(t, func(c net.Conn) {
		buf := make([]byte, 4096)
		if _, err := c.Read(buf); err == nil {
			_, _ = c.Write([]byte("HTTP/1.1 407 " + reason + "\r\nContent-Length: 0\r\n\r\n"))
		}
	})
	res, err := gb.Run(context.Background(), gb.Config{URL: "https://example.test/", Proxy: addr,
		Concurrency: 1, Requests: 20})
	if err != nil {
		t.Fatal(err)
	}
	want := `proxy refused CONNECT: 407 Denied\x1b]2;pwned\x07\x1b[2J\x9b`
	if !strings.HasSuffix(res.StopError, want) || res.Counts.Errors[want] == 0 {
		t.Errorf("stop error %q, errors %v; want them to end with %s", res.StopError, res.Counts.Errors, want)
	}
	var b strings.Builder
	if err := report.Text(&b, res, report.Options{}); err != nil {
		t.Fatal(err)
	}
	if i := strings.IndexFunc(b.String()+res.StopError, func(r rune) bool { return r < ' ' && r != '\n' || r == 0x7f || r == 0x9b }); i >= 0 {
		t.Errorf("a control byte in the report at %d:\n%q", i, b.String())
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
	fwd := testsupport.StartRelay(t, &testsupport.Relay{To: "127.0.0.1:" + port})
	proxy := testsupport.StartRelay(t, &testsupport.Relay{Connect: true})
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
		{cfg: gb.Config{ConnectTo: []string{testserver.TestName + "::127.0.0.1:" + port}, Proxy: proxy.Addr}, name: testserver.TestName,
			target: "127.0.0.1:" + port},
	} {
		desc := fmt.Sprintf("--connect-to %v --sni %q -X %q", tc.cfg.ConnectTo, tc.cfg.TLS.ServerName, tc.cfg.Proxy)
		for _, engine := range []gb.Engine{gb.EngineLoop, gb.EngineGoroutine} {
			before := srv.Ledger().TLS.Requests
			_, seenBefore := fwd.Seen()
			_, proxiedBefore := proxy.Seen()
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
				targets, n := proxy.Seen()
				names = n[len(proxiedBefore):]
				if targets[len(targets)-1] != tc.target {
					t.Errorf("%s: CONNECT %s, want %s", desc, targets[len(targets)-1], tc.target)
				}
			} else {
				_, n := fwd.Seen()
				names = n[len(seenBefore):]
			}
			if got := helloNames(names); len(got) != 1 || got[0] != tc.name {
				t.Errorf("%s %s: the ClientHellos named %q, want %q", engine, desc, got, tc.name)
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
func fwdPort(r *testsupport.Relay) string {
	_, port, _ := net.SplitHostPort(r.Addr)
	return port
}

// helloNames is the distinct server names of the ClientHellos a relay saw,
// leaving out the connections that ended before one (a connection the run's
// end closed before its handshake began records an empty name).
func helloNames(seen []string) []string {
	var out []string
	for _, n := range seen {
		if n != "" && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

// TestProxyTunnelHTTP2: with -X and --http2 an https:// URL goes through
// CONNECT, then speaks h2 (ALPN) inside the tunnel, on both engines: one
// tunnel per connection, every request gb counts is one the server counts
// over HTTP/2. With --h2c (http://) -X is refused: gb tunnels only https.
func TestProxyTunnelHTTP2(t *testing.T) {
	srv, ca := tlsServer(t)
	proxy := testsupport.StartRelay(t, &testsupport.Relay{Connect: true})
	for _, engine := range []gb.Engine{gb.EngineLoop, gb.EngineGoroutine} {
		before := srv.Ledger().TLS
		targets0, _ := proxy.Seen()
		res, err := gb.Run(context.Background(), gb.Config{URL: srv.TLSURL() + "/hello", Proxy: proxy.Addr, Protocol: gb.ProtocolHTTP2,
			Streams: 4, TLS: gb.TLS{CAFile: ca}, Engine: engine, KeepAlive: true, Concurrency: 2, Requests: 80})
		if err != nil {
			t.Fatal(err)
		}
		after := srv.Ledger().TLS
		targets, _ := proxy.Seen()
		if res.Counts.Outcomes[stats.OK] != 80 || after.Requests-before.Requests != 80 || after.Protocols["HTTP/2.0"]-before.Protocols["HTTP/2.0"] != 80 {
			t.Errorf("%s: gb ok=%d errors=%v; the server counted %d, %d over HTTP/2", engine, res.Counts.Outcomes[stats.OK],
				res.Counts.Errors, after.Requests-before.Requests, after.Protocols["HTTP/2.0"]-before.Protocols["HTTP/2.0"])
		}
		if c := res.Counts.ConnsOpened; c != int64(len(targets)-len(targets0)) || c != after.Conns-before.Conns || c != 2 {
			t.Errorf("%s: gb opened %d connections, the proxy tunnelled %d, the server accepted %d", engine, c,
				len(targets)-len(targets0), after.Conns-before.Conns)
		}
		if len(res.Check()) > 0 {
			t.Errorf("%s: invariants %v", engine, res.Check())
		}
	}
	_, err := gb.Run(context.Background(), gb.Config{URL: "http://127.0.0.1:1/", Proxy: proxy.Addr, Protocol: gb.ProtocolH2C, Requests: 1})
	if err == nil || !strings.Contains(err.Error(), "gb tunnels (CONNECT) only https:// URLs") {
		t.Errorf("-X with --h2c: %v", err)
	}
}
