package testserver

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/quic-go/quic-go"
	"github.com/quic-go/quic-go/http3"
)

// listenH3 serves the TLS listener's handlers over HTTP/3 on the UDP port
// of the TLS listener's TCP port, and makes the TLS listener announce it
// (Alt-Svc). Each QUIC connection counts into the H3 part of the ledger as
// a conn of its own; its bytes are not counted (quic-go owns the socket).
func (s *Server) listenH3() error {
	ta := s.tlsLn.Addr().(*net.TCPAddr)
	udp, err := net.ListenUDP("udp", &net.UDPAddr{IP: ta.IP, Port: ta.Port})
	if err != nil {
		return fmt.Errorf("testserver: HTTP/3 on the TLS port: %w", err)
	}
	s.h3Ln, s.h3T = udp, newTally()
	tc := &tls.Config{Certificates: []tls.Certificate{s.ca.leaf}, SessionTicketsDisabled: s.opts.NoResume}
	s.h3Srv = &http3.Server{
		Handler:    http.HandlerFunc(s.serveHTTP),
		TLSConfig:  http3.ConfigureTLSConfig(tc),
		QUICConfig: &quic.Config{Allow0RTT: !s.opts.NoResume, MaxIdleTimeout: 2 * time.Minute},
		ConnContext: func(ctx context.Context, qc *quic.Conn) context.Context {
			return context.WithValue(ctx, connKey{}, s.countQUIC(qc))
		},
	}
	// The announcement is written here, not by SetQUICHeaders: that one
	// says nothing until Serve has registered the listener, and the first
	// TLS reply may come before that goroutine runs. The UDP socket is
	// bound already, so a client that follows it at once is served.
	alt := []string{fmt.Sprintf(`%s=":%d"; ma=2592000`, http3.NextProtoH3, ta.Port)}
	h := s.tlsSrv.Handler
	s.tlsSrv.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header()["Alt-Svc"] = alt
		h.ServeHTTP(w, r)
	})
	return nil
}

// countQUIC registers a new QUIC connection in the H3 tally, folded in
// when the connection ends.
func (s *Server) countQUIC(qc *quic.Conn) *conn {
	c := &conn{Conn: quicNetConn{qc: qc}, id: s.ids.Add(1), tally: s.h3T}
	s.h3T.add(c)
	go func() {
		<-qc.Context().Done()
		c.Close()
	}()
	return c
}

// quicNetConn stands for a QUIC connection where the ledger's conn wants
// a net.Conn: only Close is used (Server.Close's closeAll).
type quicNetConn struct {
	net.Conn
	qc *quic.Conn
}

func (q quicNetConn) Close() error {
	return q.qc.CloseWithError(quic.ApplicationErrorCode(http3.ErrCodeNoError), "")
}

// serveH3 starts the HTTP/3 server's goroutine.
func (s *Server) serveH3() {
	if s.h3Srv == nil {
		return
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		_ = s.h3Srv.Serve(s.h3Ln)
	}()
}
