package client

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gb-bench/gb/internal/h1"
	"github.com/gb-bench/gb/internal/load"
	"github.com/gb-bench/gb/stats"
)

// scriptedProxy answers each CONNECT with reply, written in pieces of at
// most piece bytes (0 = at once); after a 2xx it answers one request with
// "ok". It returns the proxy's address and the CONNECT requests it read.
func scriptedProxy(t *testing.T, reply string, piece int) (string, chan *http.Request) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	reqs := make(chan *http.Request, 16)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go serveScript(c, reply, piece, reqs)
		}
	}()
	return ln.Addr().String(), reqs
}

func serveScript(c net.Conn, reply string, piece int, reqs chan *http.Request) {
	defer c.Close()
	br := bufio.NewReader(c)
	req, err := http.ReadRequest(br)
	if err != nil {
		return
	}
	reqs <- req
	for b := []byte(reply); len(b) > 0; {
		n := len(b)
		if piece > 0 {
			n = min(n, piece)
		}
		if _, err := c.Write(b[:n]); err != nil {
			return
		}
		b = b[n:]
		time.Sleep(time.Millisecond)
	}
	switch {
	case strings.HasSuffix(reply, "OK\r\n"): // an answer cut short: keep silent
		_, _ = io.Copy(io.Discard, br)
		return
	case !strings.Contains(reply, " 200 ") || !strings.HasSuffix(reply, "\n\n") && !strings.HasSuffix(reply, "\n\r\n"):
		return // the tunnel is not open: hang up
	}
	if _, err := http.ReadRequest(br); err == nil {
		io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
	}
}

// tunnelConfig is a keep-alive GET through the proxy at addr to
// origin.test:443 (plain HTTP inside the tunnel: no TLS configured).
func tunnelConfig(addr string, timeout time.Duration) *Config {
	req := h1.Request{Method: "GET", Target: "/x", Host: "origin.test", UserAgent: "gb-test"}
	return &Config{Addr: addr, Tunnel: &Tunnel{Target: "origin.test:443", Auth: "u:p"}, Request: req.Append(nil),
		KeepAlive: true, Idempotent: true, Timeout: 5 * time.Second, ConnectTimeout: timeout}
}

// TestTunnelReplies: the proxy's answer to CONNECT decides the connection:
// 2xx (in one write or byte by byte, CRLF or bare LF) opens it, and the
// request then goes through; any other status, a close, bytes after the
// answer, a non-HTTP answer or silence fail it as a connect failure whose
// error says why.
func TestTunnelReplies(t *testing.T) {
	for _, tc := range []struct {
		reply   string
		piece   int
		timeout time.Duration
		want    stats.Outcome
		err     string
	}{
		{"HTTP/1.1 200 Connection established\r\n\r\n", 0, 0, stats.OK, ""},
		{"HTTP/1.0 200 OK\r\nProxy-Agent: t\r\n\r\n", 1, 0, stats.OK, ""},
		{"HTTP/1.1 200 OK\n\n", 0, 0, stats.OK, ""},
		{"HTTP/1.1 407 Proxy Authentication Required\r\nContent-Length: 0\r\n\r\n", 0, 0, stats.FailConnect, "proxy refused CONNECT: 407 Proxy Authentication Required"},
		{"HTTP/1.1 502 Bad Gateway\r\n\r\n", 3, 0, stats.FailConnect, "proxy refused CONNECT: 502 Bad Gateway"},
		{"HTTP/1.1 407 Denied\x1b]2;pwned\x07\x1b[2J\r\n\r\n", 0, 0, stats.FailConnect, `proxy refused CONNECT: 407 Denied\x1b]2;pwned\x07\x1b[2J`},
		{"HTTP/1.0 407 Proxy Authentication Required\r\nContent-Type: text/html\r\nContent-Length: 20\r\n\r\n<html>denied</html>\n", 0, 0, stats.FailConnect, "proxy refused CONNECT: 407 Proxy Authentication Required"},
		{"", 0, 0, stats.FailConnect, "proxy closed the connection before answering CONNECT"},
		{"HTTP/1.1 200 OK\r\nX: y", 0, 0, stats.FailConnect, "proxy closed the connection inside its answer to CONNECT"},
		{"HTTP/1.1 200 OK\r\n\r\nhello", 0, 0, stats.FailConnect, "proxy sent bytes after its answer to CONNECT"},
		{"SSH-2.0-OpenSSH\r\n\r\n", 0, 0, stats.FailConnect, `proxy's answer to CONNECT is not HTTP: "SSH-2.0-OpenSSH"`},
		{"HTTP/1.1 200 OK\r\nX: " + strings.Repeat("y", 20<<10) + "\r\n\r\n", 0, 0, stats.FailConnect, "proxy's answer to CONNECT is over 16 KiB"},
		{"HTTP/1.1 200 OK\r\n", 0, 100 * time.Millisecond, stats.TimeoutConnect, "proxy did not answer CONNECT: i/o timeout"},
	} {
		addr, reqs := scriptedProxy(t, tc.reply, tc.piece)
		forEachEngine(t, func() *Config { return tunnelConfig(addr, tc.timeout) }, func(t *testing.T, f *Fast) {
			x, o := do(f)
			if o != tc.want || (tc.err == "" && x.Err != nil) || (tc.err != "" && (x.Err == nil || x.Err.Error() != tc.err)) {
				t.Errorf("answer %.40q: %v %v, want %v %q", tc.reply, o, x.Err, tc.want, tc.err)
			}
			if o == stats.OK && (x.Body != 2 || x.Opened != 1) {
				t.Errorf("answer %.40q: body %d opened %d, want the request through the tunnel", tc.reply, x.Body, x.Opened)
			}
			if o != stats.OK && (x.Opened != 0 || x.Closed != 0) {
				t.Errorf("answer %.40q: opened %d closed %d, want no connection counted without a tunnel", tc.reply, x.Opened, x.Closed)
			}
			req := <-reqs
			if req.Method != "CONNECT" || req.RequestURI != "origin.test:443" || req.Host != "origin.test:443" ||
				req.Header.Get("Proxy-Authorization") != "Basic dTpw" {
				t.Errorf("proxy read %s %s Host %s headers %v", req.Method, req.RequestURI, req.Host, req.Header)
			}
		})
	}
}

// TestDialUnixMissing: Config.Dial of a unix socket that is not there
// names the socket, and classifies as a connect failure.
func TestDialUnixMissing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "none.sock")
	cfg := &Config{Network: "unix", Addr: path, Timeout: time.Second}
	var x load.Exchange
	_, o := cfg.Dial(context.Background(), cfg.Dialer(context.Background()), &x)
	err := x.Err
	if o != stats.FailConnect || err == nil || err.Error() != "cannot connect to unix socket "+path+": no such file or directory" ||
		classifyDial(err) != stats.FailConnect {
		t.Fatalf("Dial: %v", err)
	}
	var op *net.OpError
	if errors.As(err, &op) {
		t.Errorf("the error keeps the *net.OpError (its addresses would split the error tally): %v", err)
	}
}

// TestTunnelStops: the run's stop (its context ending) ends a wait for the
// proxy's answer on the goroutine engine, long before the connect timeout.
func TestTunnelStops(t *testing.T) {
	addr, reqs := scriptedProxy(t, "HTTP/1.1 200 OK\r\n", 0) // then silence
	ctx, cancel := context.WithCancel(context.Background())
	f := NewFast(ctx, tunnelConfig(addr, time.Hour))
	defer f.Close()
	go func() { <-reqs; cancel() }()
	x, o := do(f)
	if !errors.Is(x.Err, context.Canceled) || o != stats.FailConnect {
		t.Fatalf("stopped during CONNECT: %v %v", o, x.Err)
	}
}
