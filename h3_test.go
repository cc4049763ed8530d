package gb_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gb-bench/gb"
	"github.com/gb-bench/gb/internal/testserver"
	"github.com/gb-bench/gb/internal/testsupport"
	"github.com/gb-bench/gb/stats"
)

// TestHTTP3Config: what HTTP/3 cannot run is a *ConfigError from NewPlan
// that says why, before any connection.
func TestHTTP3Config(t *testing.T) {
	const u = "https://127.0.0.1:1/"
	for _, tc := range []struct {
		cfg gb.Config
		msg string
	}{
		{gb.Config{URL: "http://127.0.0.1:1/"}, "Config.Protocol \"h3\" needs an https:// URL"},
		{gb.Config{URL: u, Proxy: "127.0.0.1:3128"}, "Config.Proxy cannot apply to Config.Protocol \"h3\""},
		{gb.Config{URL: u, UnixSocket: "/tmp/x.sock"}, "Config.UnixSocket cannot apply to Config.Protocol \"h3\""},
		{gb.Config{URL: u, Pipeline: 2}, "Config.Pipeline is HTTP/1.1's"},
		{gb.Config{URL: u, TLS: gb.TLS{Protocol: "TLS1.2"}}, "QUIC is TLS 1.3 only"},
		{gb.Config{URL: u, Engine: gb.EngineLoop}, "cannot drive Config.Protocol \"h3\""},
		{gb.Config{URL: u, Script: "function request() return nil end"}, "HTTP/1.1 only"},
		{gb.Config{Targeter: func(*gb.Target) error { return nil }}, "Config.Targeter is not supported over HTTP/3: it builds each worker's next request"},
	} {
		tc.cfg.Requests, tc.cfg.Protocol = 10, gb.ProtocolHTTP3
		_, err := gb.NewPlan(tc.cfg)
		var ce *gb.ConfigError
		if !errors.As(err, &ce) || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%+v: %v, want a ConfigError with %q", tc.cfg, err, tc.msg)
		}
	}
}

// h3Server is gb's test server with TLS (and so HTTP/3 on its TLS port)
// and its CA certificate in a file.
func h3Server(t *testing.T) (*testserver.Server, string) {
	s := testsupport.Server(t, testserver.Options{TLS: true})
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(ca, s.CACertPEM(), 0o600); err != nil {
		t.Fatal(err)
	}
	return s, ca
}

// TestHTTP3Ledger: gb --http3 -c 3 --streams 4 against gb serve --tls: the
// server's HTTP/3 ledger counts exactly the requests and connections gb
// reports, all over HTTP/3, and the Result names the protocol.
func TestHTTP3Ledger(t *testing.T) {
	s, ca := h3Server(t)
	res, err := gb.Run(context.Background(), gb.Config{URL: s.TLSURL() + "/bytes/6", Protocol: gb.ProtocolHTTP3,
		Streams: 4, Concurrency: 3, Requests: 600, TLS: gb.TLS{CAFile: ca}})
	if err != nil {
		t.Fatal(err)
	}
	l := s.Ledger()
	c := res.Counts
	if c.Outcomes[stats.OK] != 600 || l.H3.Requests != 600 || l.H3.Protocols["HTTP/3.0"] != 600 ||
		l.H3.Conns != c.ConnsOpened || c.ConnsOpened != 3 || l.TLS.Requests != 0 {
		t.Errorf("ok %d opened %d; ledger %+v (tls %+v)", c.Outcomes[stats.OK], c.ConnsOpened, l.H3, l.TLS)
	}
	if res.Load.Engine != "h3" || res.Load.Streams != 4 || !res.Load.KeepAlive || res.Server.TLSProtocol != "TLSv1.3" ||
		res.Counts.BodyIn != 600*6 {
		t.Errorf("target %+v, server %+v, body %d", res.Load, res.Server, res.Counts.BodyIn)
	}
}

// TestHTTP3RateWarmup: -R with a warm-up over HTTP/3: the warm-up's and
// the measured requests together are exactly the server's count, all ok,
// and the rate-mode latency (from the intended send times) is recorded.
func TestHTTP3RateWarmup(t *testing.T) {
	s, ca := h3Server(t)
	rate, err := gb.ParseRate("200")
	if err != nil {
		t.Fatal(err)
	}
	res, err := gb.Run(context.Background(), gb.Config{URL: s.TLSURL() + "/bytes/6", Protocol: gb.ProtocolHTTP3,
		Streams: 2, Concurrency: 2, Rate: rate, Duration: 2 * time.Second, Warmup: time.Second, // wide enough for a handshake on a busy machine
		TLS: gb.TLS{CAFile: ca}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Warmup == nil {
		t.Fatal("no warm-up account")
	}
	// Requests in flight at the time limit end as aborted: the server may
	// have served them; every other one is ok.
	ok, warm := res.Counts.Outcomes[stats.OK], res.Warmup.Counts.Outcomes[stats.OK]
	aborted := res.Counts.Outcomes.Aborted() + res.Warmup.Counts.Outcomes.Aborted()
	total := res.Counts.Outcomes.Sum() + res.Warmup.Counts.Outcomes.Sum()
	l := s.Ledger()
	if ok == 0 || warm == 0 || l.H3.Requests < ok+warm || l.H3.Requests > ok+warm+aborted ||
		total != ok+warm+aborted+res.Counts.Outcomes[stats.Dropped] {
		t.Errorf("ok %d + warm-up %d, outcomes %v + %v, ledger %d", ok, warm, res.Counts.Outcomes, res.Warmup.Counts.Outcomes, l.H3.Requests)
	}
	if res.Latency[stats.Corrected] == nil {
		t.Error("no corrected latency in rate mode")
	}
	// The measured part's first response came on a connection the
	// warm-up opened: its Server field is still the server's.
	if res.Server.Software != "gb-serve" {
		t.Errorf("server software %q, want gb-serve", res.Server.Software)
	}
}
