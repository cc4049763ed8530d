package client

import (
	"bufio"
	"bytes"
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gb-bench/gb/internal/h1"
	"github.com/gb-bench/gb/internal/load"
	"github.com/gb-bench/gb/internal/testsupport"
	"github.com/gb-bench/gb/stats"
)

func newConfig(t *testing.T, srv *httptest.Server, method, path string, keepAlive bool) *Config {
	t.Helper()
	addr := strings.TrimPrefix(srv.URL, "http://")
	req := h1.Request{Method: method, Target: path, Host: addr, UserAgent: "gb-test", Close: !keepAlive}
	return &Config{Addr: addr, Request: req.Append(nil), Head: method == "HEAD", KeepAlive: keepAlive,
		Idempotent: method != "POST", Timeout: 5 * time.Second}
}

func handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/hello", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Server", "test/1.0 (extra)")
		io.WriteString(w, "Hello, World!")
	})
	mux.HandleFunc("/chunked", func(w http.ResponseWriter, r *http.Request) {
		for i := 0; i < 3; i++ {
			io.WriteString(w, strings.Repeat("x", 100))
			w.(http.Flusher).Flush()
		}
	})
	mux.HandleFunc("/missing", http.NotFound)
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(2 * time.Second):
		case <-r.Context().Done():
		}
	})
	return mux
}

func do(f *Fast) (load.Exchange, stats.Outcome) {
	var x load.Exchange
	o := f.Do(&x)
	return x, o
}

func TestKeepAliveReusesOneConnection(t *testing.T) {
	srv := httptest.NewServer(handler())
	defer srv.Close()
	forEachEngine(t, func() *Config { return newConfig(t, srv, "GET", "/hello", true) }, func(t *testing.T, f *Fast) {
		var opened int
		for i := 0; i < 50; i++ {
			x, o := do(f)
			if o != stats.OK || x.Status != 200 || x.Body != 13 || !x.KeepAlive {
				t.Fatalf("request %d: outcome %v status %d body %d keepalive %v err %v", i, o, x.Status, x.Body, x.KeepAlive, x.Err)
			}
			if string(x.Server) != "test/1.0 (extra)" {
				t.Fatalf("server %q", x.Server)
			}
			if !(x.Start <= x.Connected && x.Connected <= x.Written && x.Written <= x.FirstByte && x.FirstByte <= x.Done) {
				t.Fatalf("timestamps out of order: %+v", x)
			}
			opened += x.Opened
		}
		if opened != 1 {
			t.Errorf("opened %d connections for 50 keep-alive requests", opened)
		}
	})
}

func TestWithoutKeepAliveOneConnectionPerRequest(t *testing.T) {
	srv := httptest.NewServer(handler())
	defer srv.Close()
	forEachEngine(t, func() *Config { return newConfig(t, srv, "GET", "/hello", false) }, func(t *testing.T, f *Fast) {
		for i := 0; i < 5; i++ {
			x, o := do(f)
			if o != stats.OK || x.Opened != 1 || x.Closed != 1 || x.KeepAlive {
				t.Fatalf("request %d: %v opened %d closed %d keepalive %v", i, o, x.Opened, x.Closed, x.KeepAlive)
			}
		}
		if f.Close() {
			t.Error("a connection was left open")
		}
	})
}

func TestChunkedNon2xxAndHead(t *testing.T) {
	srv := httptest.NewServer(handler())
	defer srv.Close()
	for _, tc := range []struct {
		method, path string
		want         stats.Outcome
		status       int
		body         int64
	}{
		{"GET", "/chunked", stats.OK, 200, 300},
		{"GET", "/missing", stats.Non2xx, 404, 19},
		{"HEAD", "/hello", stats.OK, 200, 0},
	} {
		t.Run(tc.method+" "+tc.path, func(t *testing.T) {
			forEachEngine(t, func() *Config { return newConfig(t, srv, tc.method, tc.path, true) }, func(t *testing.T, f *Fast) {
				for i := 0; i < 3; i++ {
					x, o := do(f)
					if o != tc.want || x.Status != tc.status || x.Body != tc.body {
						t.Errorf("%s %s: %v %d body %d (%v)", tc.method, tc.path, o, x.Status, x.Body, x.Err)
					}
				}
			})
		})
	}
}

func TestTimeoutBeforeFirstByte(t *testing.T) {
	srv := httptest.NewServer(handler())
	defer srv.Close()
	newCfg := func() *Config {
		cfg := newConfig(t, srv, "GET", "/slow", true)
		cfg.Timeout = 200 * time.Millisecond
		return cfg
	}
	forEachEngine(t, newCfg, func(t *testing.T, f *Fast) {
		if x, o := do(f); o != stats.TimeoutFirstByte || x.Closed != 1 {
			t.Errorf("outcome %v closed %d err %v", o, x.Closed, x.Err)
		}
	})
}

func TestConnectRefused(t *testing.T) {
	addr := testsupport.ClosedAddr(t)
	req := h1.Request{Host: addr}
	forEachEngine(t, func() *Config { return &Config{Addr: addr, Request: req.Append(nil)} }, func(t *testing.T, f *Fast) {
		if x, o := do(f); o != stats.FailConnect {
			t.Errorf("outcome %v (%v), want failed.connect", o, x.Err)
		}
	})
}

// staleServer answers each request and then closes the connection without
// saying so, so every reuse meets the keep-alive close race.
func staleServer(t *testing.T) string {
	return testsupport.Serve(t, func(c net.Conn) {
		br := bufio.NewReader(c)
		for {
			line, err := br.ReadString('\n')
			if err != nil {
				return
			}
			if line == "\r\n" {
				break
			}
		}
		io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
		time.Sleep(20 * time.Millisecond) // the client is idle when the FIN arrives
	})
}

func TestStaleConnectionRetriedOnce(t *testing.T) {
	addr := staleServer(t)
	req := h1.Request{Host: addr}
	for _, idempotent := range []bool{true, false} {
		newCfg := func() *Config {
			return &Config{Addr: addr, Request: req.Append(nil), KeepAlive: true, Idempotent: idempotent}
		}
		t.Run(map[bool]string{true: "idempotent", false: "not idempotent"}[idempotent], func(t *testing.T) {
			forEachEngine(t, newCfg, func(t *testing.T, f *Fast) {
				if _, o := do(f); o != stats.OK {
					t.Fatalf("first request: %v", o)
				}
				time.Sleep(100 * time.Millisecond) // on the loop this blocks the loop: fine with one task
				x, o := do(f)
				if idempotent && (o != stats.OK || !x.Retried || x.Opened != 1) {
					t.Errorf("idempotent: outcome %v retried %v opened %d (%v)", o, x.Retried, x.Opened, x.Err)
				}
				if !idempotent && (o != stats.FailStaleConn || x.Retried) {
					t.Errorf("non-idempotent: outcome %v retried %v", o, x.Retried)
				}
			})
		})
	}
}

func TestInterruptEndsBlockedRequest(t *testing.T) {
	srv := httptest.NewServer(handler())
	defer srv.Close()
	newCfg := func() *Config {
		cfg := newConfig(t, srv, "GET", "/slow", true)
		cfg.Timeout = time.Minute
		return cfg
	}
	forEachEngine(t, newCfg, func(t *testing.T, f *Fast) {
		time.AfterFunc(100*time.Millisecond, f.Interrupt)
		start := time.Now()
		x, o := do(f)
		if o.Responded() || time.Since(start) > 30*time.Second {
			t.Errorf("outcome %v after %v (%v)", o, time.Since(start), x.Err)
		}
	})
}

func TestTLSKeepAlive(t *testing.T) {
	srv := httptest.NewTLSServer(handler())
	defer srv.Close()
	addr := strings.TrimPrefix(srv.URL, "https://")
	req := h1.Request{Method: "GET", Target: "/hello", Host: addr}
	newCfg := func() *Config {
		cfg := &Config{Addr: addr, Request: req.Append(nil), KeepAlive: true, Idempotent: true}
		cfg.TLS = srv.Client().Transport.(*http.Transport).TLSClientConfig.Clone()
		cfg.TLS.ServerName = "example.com" // httptest's certificate names it
		return cfg
	}
	forEachEngine(t, newCfg, func(t *testing.T, f *Fast) {
		opened := 0
		for i := range 20 {
			x, o := do(f)
			if o != stats.OK || x.Body != 13 {
				t.Fatalf("request %d: %v body %d (%v)", i, o, x.Body, x.Err)
			}
			opened += x.Opened
		}
		if opened != 1 {
			t.Errorf("%d TLS connections for 20 keep-alive requests", opened)
		}
		if info, ok := f.cfg.TLSSession(); !ok || info.Version == "" {
			t.Errorf("no TLS session recorded: %+v", info)
		}
	})
}

func TestTLSHandshakeTimesOut(t *testing.T) {
	addr := rawServer(t, "") // accepts, reads, never answers: no ServerHello
	req := h1.Request{Host: addr}
	newCfg := func() *Config {
		return &Config{Addr: addr, Request: req.Append(nil), TLS: &tls.Config{InsecureSkipVerify: true}, ConnectTimeout: 200 * time.Millisecond}
	}
	forEachEngine(t, newCfg, func(t *testing.T, f *Fast) {
		if x, o := do(f); o != stats.TimeoutTLS {
			t.Errorf("outcome %v (%v), want failed.timeout.tls", o, x.Err)
		}
	})
}

// rawServer answers every request on a connection with the same bytes,
// allocating nothing per request, so AllocsPerRun measures the client.
func rawServer(t testing.TB, response string) string {
	resp := []byte(response)
	return testsupport.Serve(t, func(c net.Conn) {
		buf := make([]byte, 4096)
		n := 0
		for {
			k, err := c.Read(buf[n:])
			if err != nil {
				return
			}
			n += k
			for {
				i := bytes.Index(buf[:n], []byte("\r\n\r\n"))
				if i < 0 {
					break
				}
				n = copy(buf, buf[i+4:n])
				if _, err := c.Write(resp); err != nil {
					return
				}
			}
		}
	})
}

func TestZeroAllocationsPerKeepAliveRequest(t *testing.T) {
	addr := rawServer(t, "HTTP/1.1 200 OK\r\nServer: raw\r\nContent-Length: 13\r\n\r\nHello, World!")
	req := h1.Request{Host: addr}
	forEachEngine(t, func() *Config { return &Config{Addr: addr, Request: req.Append(nil), KeepAlive: true} }, func(t *testing.T, f *Fast) {
		var x load.Exchange
		f.Do(&x) // connect outside the measurement
		allocs := testing.AllocsPerRun(200, func() {
			x = load.Exchange{}
			if o := f.Do(&x); o != stats.OK {
				t.Fatalf("outcome %v: %v", o, x.Err)
			}
		})
		if allocs != 0 {
			t.Errorf("%.1f allocations per request, want 0", allocs)
		}
	})
}
