package h3

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"math/big"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gb-bench/gb/internal/client"
	"github.com/gb-bench/gb/internal/h1"
	"github.com/gb-bench/gb/internal/load"
	"github.com/gb-bench/gb/stats"
	"github.com/quic-go/quic-go"
	"github.com/quic-go/quic-go/http3"
)

// hang bounds every test's wait: only a real hang reaches it.
const hang = 60 * time.Second

var (
	certOnce sync.Once
	cert     tls.Certificate
	roots    *x509.CertPool
)

// testCert is a self-signed certificate for 127.0.0.1, made once.
func testCert(testing.TB) (tls.Certificate, *x509.CertPool) {
	certOnce.Do(func() {
		key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			panic(err)
		}
		tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "gb h3 test"},
			NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
			IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, IsCA: true, BasicConstraintsValid: true,
			KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
		if err != nil {
			panic(err)
		}
		c, _ := x509.ParseCertificate(der)
		roots = x509.NewCertPool()
		roots.AddCert(c)
		cert = tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
	})
	return cert, roots
}

// server is a hand-written HTTP/3 server on loopback: quic-go's
// http3.Server with the test's handler and QUIC settings. It counts the
// requests its handler was called for.
type server struct {
	addr   string
	served atomic.Int64
	srv    *http3.Server
	udp    *net.UDPConn
}

// connKey is the request context's *quic.Conn.
type connKey struct{}

// startServer serves h on a new UDP port until the test ends.
func startServer(t testing.TB, qc *quic.Config, h func(s *server, w http.ResponseWriter, r *http.Request)) *server {
	t.Helper()
	crt, _ := testCert(t)
	udp, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	s := &server{addr: udp.LocalAddr().String(), udp: udp}
	s.srv = &http3.Server{
		TLSConfig:  http3.ConfigureTLSConfig(&tls.Config{Certificates: []tls.Certificate{crt}}),
		QUICConfig: qc,
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			s.served.Add(1)
			h(s, w, r)
		}),
		ConnContext: func(ctx context.Context, c *quic.Conn) context.Context {
			return context.WithValue(ctx, connKey{}, c)
		},
	}
	go func() { _ = s.srv.Serve(udp) }()
	t.Cleanup(func() {
		_ = s.srv.Close()
		_ = udp.Close()
	})
	return s
}

// hello answers every request with 6 bytes.
func hello(_ *server, w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("hello\n")) }

// newConfig is a client configuration for addr: GET /, streams per
// connection, timeout per request (-s).
func newConfig(t testing.TB, addr string, streams int, timeout time.Duration, tc *tls.Config) *Config {
	t.Helper()
	_, pool := testCert(t)
	if tc == nil {
		tc = &tls.Config{}
	}
	tc.RootCAs, tc.ServerName = pool, "127.0.0.1"
	cc := &client.Config{Addr: addr, TLS: tc, Timeout: timeout, Idempotent: true}
	cfg, err := NewConfig(cc, &h1.Request{Host: addr, Target: "/", UserAgent: "gb-test"}, streams)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// tally is what a drive saw.
type tally struct {
	outcomes       map[stats.Outcome]int
	opened, closed int
	resumed        int
	errs           []error
}

func (t *tally) total() int {
	n := 0
	for _, v := range t.outcomes {
		n += v
	}
	return n
}

// drive runs n requests through c as a worker does (load.Streamer: Room
// streams in flight, Start, Next) and closes it. Every exchange must end
// exactly once; a hang fails the test after the hang bound.
func drive(t *testing.T, c *Client, n int) *tally {
	t.Helper()
	stop := time.AfterFunc(hang, c.Interrupt)
	defer stop.Stop()
	tl := &tally{outcomes: map[stats.Outcome]int{}}
	xs := make([]load.Exchange, n)
	seen := make([]bool, n)
	end := func(x *load.Exchange, o stats.Outcome) {
		i := indexOf(xs, x)
		if seen[i] {
			t.Fatalf("exchange %d ended twice", i)
		}
		seen[i] = true
		tl.outcomes[o]++
		tl.opened += x.Opened
		tl.closed += x.Closed
		if x.Resumed {
			tl.resumed++
		}
		if x.Err != nil && len(tl.errs) < 5 {
			tl.errs = append(tl.errs, x.Err)
		}
	}
	next, inflight := 0, 0
	for next < n || inflight > 0 {
		for next < n && c.Room() > 0 {
			x := &xs[next]
			next++
			if o, done := c.Start(x); done {
				end(x, o)
				continue
			}
			inflight++
		}
		if inflight == 0 {
			continue
		}
		x, o := c.Next(time.Time{})
		if x == nil {
			t.Fatal("Next returned nothing with exchanges in flight")
		}
		inflight--
		end(x, o)
	}
	if c.Close() {
		tl.closed++
	}
	if stopped := !stop.Stop(); stopped {
		t.Fatalf("the drive hung for %v: %+v", hang, tl)
	}
	return tl
}

func indexOf(xs []load.Exchange, x *load.Exchange) int {
	for i := range xs {
		if &xs[i] == x {
			return i
		}
	}
	panic("unknown exchange")
}

// loadExchange wraps a load.Exchange for tests that send one at a time.
type loadExchange struct{ load.Exchange }
