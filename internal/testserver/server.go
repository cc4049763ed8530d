package testserver

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gb-bench/gb/internal/testserver/fault"
	"github.com/gb-bench/gb/internal/testserver/shape"
	"github.com/quic-go/quic-go/http3"
)

// closeWait bounds how long Close waits for handlers to return after it has
// closed every connection: a hang bound, long enough for a busy machine.
const closeWait = 60 * time.Second

// Options configures a Server. The zero value serves plain HTTP on
// 127.0.0.1:0 with pprof and expvar mounted.
type Options struct {
	Addr    string // listen address of the main HTTP listener; "" = "127.0.0.1:0"
	TLS     bool   // also start an HTTPS listener (self-signed cert from a CA generated at start)
	NoPprof bool   // do not mount /debug/pprof/ and /debug/vars
	// NoResume makes the HTTPS listener refuse TLS session resumption: it
	// issues no session tickets (tls.Config.SessionTicketsDisabled), so
	// every handshake is full.
	NoResume bool
	// Unix, when set, also serves the main listener's handlers (HTTP/1.1
	// and h2c) on a unix domain socket at this path. A stale socket file
	// there is removed first; any other file, or a socket a server still
	// answers on, is an error. Close removes the socket file.
	Unix string
}

// Server is a running test server. The TLS and fault listeners listen on
// the host of Options.Addr with ports chosen by the system. All methods are
// safe for concurrent use.
type Server struct {
	opts  Options
	start time.Time     // monotonic origin of Exchange.Arrival
	done  chan struct{} // closed by Close; ends stalls, delays and holds
	slow  slowState     // the /slow/ endpoints' lock and leak count

	ids                    atomic.Uint64 // connection ids, all listeners
	httpLn, tlsLn, faultLn net.Listener
	unixLn                 net.Listener // nil without Options.Unix
	httpSrv, tlsSrv        *http.Server
	unixSrv                *http.Server // nil without Options.Unix
	mux                    *http.ServeMux
	httpT, tlsT, faultT    *tally
	unixT                  *tally // nil without Options.Unix
	h3Ln                   *net.UDPConn
	h3Srv                  *http3.Server // HTTP/3 on the TLS port; nil without TLS
	h3T                    *tally
	fault                  *fault.Server
	ca                     *authority // nil without TLS
	stall                  stall
	dice                   shape.Dice
	wg                     sync.WaitGroup // the net/http Serve loops
	httpConns              sync.WaitGroup // net/http connections from StateNew to StateClosed
	timerMu                sync.Mutex
	timers                 map[*time.Timer]struct{} // scheduled stalls (/__ctl?at=); guarded by timerMu
	closeOnce              sync.Once
	closeErr               error
}

// Start listens and serves until Close.
func Start(o Options) (*Server, error) {
	addr := o.Addr
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("testserver: address %q: %w", addr, err)
	}
	s := &Server{opts: o, start: time.Now(), done: make(chan struct{})}
	s.stall.init()
	s.mux = s.newMux()
	if err := s.listen(addr, host); err != nil {
		for _, ln := range []net.Listener{s.httpLn, s.tlsLn, s.faultLn, s.unixLn} {
			if ln != nil {
				ln.Close()
			}
		}
		if s.h3Ln != nil {
			s.h3Ln.Close()
		}
		return nil, err
	}
	s.serve()
	return s, nil
}

// listen opens the listeners and builds the net/http servers.
func (s *Server) listen(addr, host string) error {
	var err error
	if s.httpLn, s.httpT, err = s.listenCounted("tcp", addr); err != nil {
		return err
	}
	if s.faultLn, s.faultT, err = s.listenCounted("tcp", net.JoinHostPort(host, "0")); err != nil {
		return err
	}
	s.httpSrv = s.newHTTPServer(cleartext())
	if s.opts.Unix != "" {
		if err := removeStaleSocket(s.opts.Unix); err != nil {
			return err
		}
		if s.unixLn, s.unixT, err = s.listenCounted("unix", s.opts.Unix); err != nil {
			return err
		}
		s.unixSrv = s.newHTTPServer(cleartext())
	}
	if !s.opts.TLS {
		return nil
	}
	if s.ca, err = newAuthority(host); err != nil {
		return err
	}
	if s.tlsLn, s.tlsT, err = s.listenCounted("tcp", net.JoinHostPort(host, "0")); err != nil {
		return err
	}
	p := new(http.Protocols)
	p.SetHTTP1(true)
	p.SetHTTP2(true) // offered by ALPN: h2, then http/1.1
	s.tlsSrv = s.newHTTPServer(p)
	s.tlsSrv.TLSConfig = &tls.Config{Certificates: []tls.Certificate{s.ca.leaf}, MinVersion: tls.VersionTLS12,
		SessionTicketsDisabled: s.opts.NoResume}
	return s.listenH3()
}

// cleartext returns the protocols of the plain listeners: HTTP/1.1, and
// HTTP/2 with prior knowledge (h2c).
func cleartext() *http.Protocols {
	p := new(http.Protocols)
	p.SetHTTP1(true)
	p.SetUnencryptedHTTP2(true)
	return p
}

// listenCounted listens on addr ("tcp" or "unix") and wraps the listener
// so that its connections count into a new tally.
func (s *Server) listenCounted(network, addr string) (net.Listener, *tally, error) {
	ln, err := net.Listen(network, addr)
	if err != nil {
		return nil, nil, fmt.Errorf("testserver: %w", err)
	}
	t := newTally()
	return &listener{Listener: ln, tally: t, ids: &s.ids}, t, nil
}

// newHTTPServer returns a net/http server for the main, unix or TLS
// listener, speaking the protocols p.
func (s *Server) newHTTPServer(p *http.Protocols) *http.Server {
	return &http.Server{
		Protocols:         p,
		Handler:           http.HandlerFunc(s.serveHTTP),
		ReadHeaderTimeout: 30 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          log.New(io.Discard, "", 0),
		ConnContext: func(ctx context.Context, nc net.Conn) context.Context {
			return context.WithValue(ctx, connKey{}, connOf(nc))
		},
		ConnState: s.connState,
	}
}

// serve starts the serving goroutines.
func (s *Server) serve() {
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		s.httpSrv.Serve(s.httpLn)
	}()
	s.fault = fault.Serve(s.faultLn, fault.Options{Origin: s.start, Dice: &s.dice, Gate: &s.stall})
	if s.unixSrv != nil {
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			s.unixSrv.Serve(s.unixLn)
		}()
	}
	if s.tlsSrv != nil {
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			s.tlsSrv.ServeTLS(s.tlsLn, "", "")
		}()
	}
	s.serveH3()
}

// connKey is the request context key of the serving *conn.
type connKey struct{}

// connOf returns the counting conn under nc, or nil.
func connOf(nc net.Conn) *conn {
	switch v := nc.(type) {
	case *conn:
		return v
	case *tls.Conn:
		c, _ := v.NetConn().(*conn)
		return c
	}
	return nil
}

// connState tracks net/http connections, so that Close can wait for their
// handlers.
func (s *Server) connState(nc net.Conn, st http.ConnState) {
	c := connOf(nc)
	if c == nil {
		return
	}
	switch st {
	case http.StateNew:
		if c.served.CompareAndSwap(false, true) {
			s.httpConns.Add(1)
		}
	case http.StateClosed, http.StateHijacked:
		if c.served.CompareAndSwap(true, false) {
			s.httpConns.Done()
		}
	}
}

// URL returns "http://HOST:PORT" (no trailing slash) of the main listener.
// An unspecified listen host is reported as the loopback address.
func (s *Server) URL() string { return baseURL("http", s.httpLn) }

// TLSURL returns "https://HOST:PORT" of the HTTPS listener, or "" without
// TLS. It serves the same handlers as URL.
func (s *Server) TLSURL() string { return baseURL("https", s.tlsLn) }

// UnixPath returns the path of the unix socket listener (Options.Unix), or
// "" without one. Clients address it with any host, e.g.
// curl --unix-socket PATH http://localhost/hello.
func (s *Server) UnixPath() string {
	if s.unixLn == nil {
		return ""
	}
	return s.opts.Unix
}

// FaultURL returns "http://HOST:PORT" of the raw fault listener.
func (s *Server) FaultURL() string { return baseURL("http", s.faultLn) }

// baseURL formats ln's address, replacing an unspecified IP by loopback.
func baseURL(scheme string, ln net.Listener) string {
	if ln == nil {
		return ""
	}
	a, ok := ln.Addr().(*net.TCPAddr)
	if !ok {
		return scheme + "://" + ln.Addr().String()
	}
	ip := a.IP
	if ip.IsUnspecified() {
		ip = net.IPv4(127, 0, 0, 1)
		if a.IP.To4() == nil {
			ip = net.IPv6loopback
		}
	}
	return fmt.Sprintf("%s://%s", scheme, net.JoinHostPort(ip.String(), fmt.Sprint(a.Port)))
}

// CACertPEM returns a copy of the PEM CA certificate that signed the TLS
// certificate, or nil without TLS.
func (s *Server) CACertPEM() []byte {
	if s.ca == nil {
		return nil
	}
	return append([]byte(nil), s.ca.caPEM...)
}

// CertPool returns a pool holding only the CA certificate (an empty pool
// without TLS), for a client's tls.Config.RootCAs.
func (s *Server) CertPool() *x509.CertPool {
	if s.ca == nil {
		return x509.NewCertPool()
	}
	return s.ca.pool.Clone()
}

// Stall makes every response on every listener that has not started yet
// wait until now+d before answering (the coordinated-omission test).
// Stall(0) cancels and releases the waiting responses. Control and /debug/
// requests are never stalled.
func (s *Server) Stall(d time.Duration) { s.stall.set(d) }

// Ledger returns a snapshot copy of what the server saw so far.
func (s *Server) Ledger() Ledger {
	l := Ledger{HTTP: s.httpT.snapshot(), TLS: s.tlsT.snapshot(), Unix: s.unixT.snapshot(), Fault: s.faultT.snapshot(),
		H3: s.h3T.snapshot()}
	l.Exchanges, l.DroppedExchanges = s.fault.Exchanges()
	return l
}

// ResetLedger zeroes the ledger and restarts every seeded sequence.
// Connections open at the reset keep being served; their later requests
// and bytes are counted, but they are not counted in Traffic.Conns.
func (s *Server) ResetLedger() {
	s.httpT.reset()
	s.tlsT.reset()
	s.unixT.reset()
	s.h3T.reset()
	s.faultT.reset()
	s.fault.ResetExchanges()
	s.dice.Reset()
}

// Close closes the listeners and every open connection, ends stalls,
// delays and drips, and waits for the handler goroutines to return. It is
// safe to call more than once; later calls return the first result.
func (s *Server) Close() error {
	s.closeOnce.Do(func() { s.closeErr = s.shutdown() })
	return s.closeErr
}

func (s *Server) shutdown() error {
	close(s.done)
	s.timerMu.Lock()
	for t := range s.timers {
		t.Stop()
	}
	s.timerMu.Unlock()
	var errs []error
	for _, srv := range []*http.Server{s.httpSrv, s.tlsSrv, s.unixSrv} {
		if srv != nil {
			errs = append(errs, srv.Close())
		}
	}
	if s.h3Srv != nil {
		errs = append(errs, s.h3Srv.Close(), s.h3Ln.Close())
	}
	errs = append(errs, s.fault.Close())
	for _, t := range []*tally{s.httpT, s.tlsT, s.unixT, s.faultT, s.h3T} {
		if t != nil {
			t.closeAll() // also any connection net/http accepted but did not track yet
		}
	}
	if !waitTimeout(&s.wg, closeWait) || !waitTimeout(&s.httpConns, closeWait) {
		errs = append(errs, errors.New("testserver: handlers still running after Close"))
	}
	for i, err := range errs {
		if errors.Is(err, net.ErrClosed) {
			errs[i] = nil
		}
	}
	return errors.Join(errs...)
}

// waitTimeout waits for wg, at most d; it reports whether wg finished.
func waitTimeout(wg *sync.WaitGroup, d time.Duration) bool {
	ch := make(chan struct{})
	go func() {
		wg.Wait()
		close(ch)
	}()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ch:
		return true
	case <-t.C:
		return false
	}
}
