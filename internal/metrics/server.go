package metrics

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Server serves a registry at /metrics on a listener of its own. A scraper
// that stalls holds only its own connection: writes time out, and the
// load never waits on it.
type Server struct {
	ln  net.Listener
	srv *http.Server
	end chan struct{}
}

// Listen binds addr ("host:port", e.g. ":9100" or "127.0.0.1:0") for reg.
// The error is one line: a malformed address, a port in use, an address
// not on this machine. Serving starts at once.
func Listen(addr string, reg *prometheus.Registry) (*Server, error) {
	if _, _, err := net.SplitHostPort(addr); err != nil {
		return nil, fmt.Errorf("metrics address %q: want host:port, e.g. :9100", addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("metrics address %q: %v", addr, listenCause(err))
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError, Timeout: 10 * time.Second}))
	s := &Server{ln: ln, end: make(chan struct{}),
		srv: &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, WriteTimeout: 15 * time.Second, IdleTimeout: time.Minute}}
	go func() {
		defer close(s.end)
		_ = s.srv.Serve(ln) // ends with Close
	}()
	return s, nil
}

// listenCause is err's innermost cause ("address already in use").
func listenCause(err error) error {
	var op *net.OpError
	if errors.As(err, &op) && op.Err != nil {
		return op.Err
	}
	return err
}

// Addr returns the address the server listens on (the port chosen for
// ":0").
func (s *Server) Addr() string { return s.ln.Addr().String() }

// Close stops serving: it waits up to a second for scrapes in progress,
// then cuts them.
func (s *Server) Close() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if s.srv.Shutdown(ctx) != nil {
		_ = s.srv.Close()
	}
	<-s.end
}
