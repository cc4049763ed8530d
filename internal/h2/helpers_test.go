package h2

import (
	"context"
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gb-bench/gb/internal/client"
	"github.com/gb-bench/gb/internal/h1"
	"github.com/gb-bench/gb/internal/load"
	"github.com/gb-bench/gb/stats"
)

// goServer is a Go net/http server speaking HTTP/2 (TLS with ALPN, or h2c
// with prior knowledge) that counts the requests it served, by protocol.
type goServer struct {
	addr   string
	tls    bool
	served atomic.Int64 // requests answered over HTTP/2
	h1     atomic.Int64 // requests answered over HTTP/1.x
	body   atomic.Int64 // request body bytes read
}

// startGoServer starts a server answering "hello!" (or h's answer) and
// stops it when the test ends.
func startGoServer(t *testing.T, useTLS bool, h http.HandlerFunc) *goServer {
	t.Helper()
	gs := &goServer{tls: useTLS}
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ProtoMajor == 2 {
			gs.served.Add(1)
		} else {
			gs.h1.Add(1)
		}
		n, _ := io.Copy(io.Discard, r.Body)
		gs.body.Add(n)
		if h != nil {
			h(w, r)
			return
		}
		w.Header().Set("Server", "goh2")
		_, _ = io.WriteString(w, "hello!")
	})
	srv := httptest.NewUnstartedServer(handler)
	var p http.Protocols
	p.SetHTTP1(true)
	p.SetHTTP2(true)
	if useTLS {
		srv.EnableHTTP2 = true
		srv.StartTLS()
	} else {
		p.SetUnencryptedHTTP2(true)
		srv.Config.Protocols = &p
		srv.Start()
	}
	t.Cleanup(srv.Close)
	gs.addr = srv.Listener.Addr().String()
	return gs
}

// clientConfig is an h2 (TLS) or h2c client configuration for addr.
func clientConfig(t testing.TB, addr string, useTLS bool, req *h1.Request, streams int, timeout time.Duration) *Config {
	t.Helper()
	cc := &client.Config{Addr: addr, Timeout: timeout, BufferSize: 16 << 10}
	scheme := "http"
	if useTLS {
		cc.TLS = &tls.Config{InsecureSkipVerify: true, NextProtos: []string{"h2", "http/1.1"}}
		scheme = "https"
	}
	if req == nil {
		req = &h1.Request{Target: "/", Host: addr, UserAgent: "gb/test"}
	}
	cc.Idempotent = req.Method == "" || req.Method == "GET"
	cfg, err := NewConfig(cc, req, scheme, streams)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// run runs a load of the h2 client against cfg and returns its result.
func run(t testing.TB, cfg *Config, lc load.Config) *stats.Result {
	t.Helper()
	lc.NewConn = func(ctx context.Context) load.Conn { return New(ctx, cfg) }
	r, err := load.New(lc)
	if err != nil {
		t.Fatal(err)
	}
	return r.Run(context.Background(), stats.Result{})
}

// checkCounts fails the test unless every dispatched request ended in
// exactly one outcome and every connection opened was counted closed.
func checkCounts(t testing.TB, res *stats.Result) {
	t.Helper()
	if errs := res.Check(); len(errs) > 0 {
		t.Errorf("result check: %v", errs)
	}
	var sum int64
	for _, n := range res.Counts.Outcomes {
		sum += n
	}
	if sum != res.Counts.Dispatched+res.Counts.Outcomes[stats.Dropped] {
		t.Errorf("outcomes sum to %d, dispatched %d", sum, res.Counts.Dispatched)
	}
	opened, closed := res.Counts.ConnsOpened, res.Counts.ConnsClosed
	if w := res.Warmup; w != nil {
		opened, closed = opened+w.Counts.ConnsOpened, closed+w.Counts.ConnsClosed
	}
	if opened != closed {
		t.Errorf("connections opened %d, closed %d: every one is closed by the end", opened, closed)
	}
}

var _ = strings.Contains
var _ = net.Listen

// hangGuard is the client timeout (-s) of the tests whose server answers
// at once or not at all by script: no request is meant to time out, so it
// only ends a real hang, never a slow answer on a busy machine.
const hangGuard = time.Minute
