package gb_test

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/gb-bench/gb"
	"github.com/gb-bench/gb/internal/testsupport"
	"github.com/gb-bench/gb/stats"
)

// TestUnixSocketNginx: against nginx listening on a unix socket, every
// request gb counts is a line of nginx's access log, on both engines,
// with keep-alive and without, by --unix-socket and by an http+unix://
// URL. The URL's host has no server on port 80, so only the socket can
// have answered.
func TestUnixSocketNginx(t *testing.T) {
	sock := filepath.Join(testsupport.SocketDir(t), "nginx.sock")
	ngx := testsupport.StartNginx(t, testsupport.NginxOptions{Extra: "listen unix:" + sock + ";"})
	plusURL := "http+unix://" + url.PathEscape(sock) + "/small.txt"
	for _, engine := range []gb.Engine{gb.EngineLoop, gb.EngineGoroutine} {
		for _, ka := range []bool{true, false} {
			for _, cfg := range []gb.Config{
				{URL: "http://localhost/small.txt", UnixSocket: sock},
				{URL: plusURL},
			} {
				before := ngx.Totals(t)
				cfg.Engine, cfg.KeepAlive, cfg.Concurrency, cfg.Requests = engine, ka, 4, 200
				res, err := gb.Run(context.Background(), cfg)
				if err != nil {
					t.Fatal(err)
				}
				after := ngx.Settled(t, before, res.Complete())
				reqs, conns := after.Requests-before.Requests, after.Conns-before.Conns
				name := string(engine) + " " + cfg.URL
				if res.Counts.Outcomes[stats.OK] != 200 || res.Complete() != reqs || res.Counts.Status[200] != after.Status[200]-before.Status[200] {
					t.Errorf("%s keep-alive=%v: gb ok=%d complete=%d errors=%v, nginx logged %d", name, ka,
						res.Counts.Outcomes[stats.OK], res.Complete(), res.Counts.Errors, reqs)
				}
				if res.Counts.ConnsOpened != conns || (!ka && conns != 200) || (ka && conns != 4) {
					t.Errorf("%s keep-alive=%v: gb opened %d connections, nginx saw %d", name, ka, res.Counts.ConnsOpened, conns)
				}
				if errs := res.Check(); len(errs) > 0 {
					t.Errorf("%s: invariants: %v", name, errs)
				}
			}
		}
	}
}

// TestUnixSocketPipelined: pipelined batches over a unix socket, on both
// engines: nginx logs every request gb counts, on the connections gb
// opened.
func TestUnixSocketPipelined(t *testing.T) {
	sock := filepath.Join(testsupport.SocketDir(t), "nginx.sock")
	ngx := testsupport.StartNginx(t, testsupport.NginxOptions{KeepaliveRequests: 100, Extra: "listen unix:" + sock + ";"})
	for _, engine := range []gb.Engine{gb.EngineLoop, gb.EngineGoroutine} {
		before := ngx.Totals(t)
		res, err := gb.Run(context.Background(), gb.Config{URL: "http://localhost/small.txt", UnixSocket: sock,
			Engine: engine, Pipeline: 8, Concurrency: 2, Requests: 800})
		if err != nil {
			t.Fatal(err)
		}
		after := ngx.Settled(t, before, res.Complete())
		if res.Counts.Outcomes[stats.OK] != 800 || after.Requests-before.Requests != 800 || res.Counts.ConnsOpened != after.Conns-before.Conns {
			t.Errorf("%s: ok=%d errors=%v opened %d; nginx logged %d on %d connections", engine, res.Counts.Outcomes[stats.OK],
				res.Counts.Errors, res.Counts.ConnsOpened, after.Requests-before.Requests, after.Conns-before.Conns)
		}
	}
}

// TestUnixSocketBadInput: a socket that does not exist (or a file that is
// not one) fails NewPlan with one line naming it, not a ConfigError; a
// socket combined with -B, -X or --connect-to is a ConfigError.
func TestUnixSocketBadInput(t *testing.T) {
	dir := testsupport.SocketDir(t)
	missing := filepath.Join(dir, "none.sock")
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for cfg, want := range map[*gb.Config]string{
		{URL: "http://localhost/", UnixSocket: missing}:       "cannot connect to unix socket " + missing + ": no such file or directory",
		{URL: "http+unix://" + url.PathEscape(missing) + "/"}: "cannot connect to unix socket " + missing + ": no such file or directory",
		{URL: "http://localhost/", UnixSocket: file}:          "cannot connect to unix socket " + file + ": not a socket",
	} {
		cfg.Requests = 1
		_, err := gb.NewPlan(*cfg)
		var ce *gb.ConfigError
		if err == nil || err.Error() != want || errors.As(err, &ce) {
			t.Errorf("%s --unix-socket %q: %v, want the runtime error %q", cfg.URL, cfg.UnixSocket, err, want)
		}
	}
	sock := filepath.Join(dir, "s.sock")
	testsupport.StartNginx(t, testsupport.NginxOptions{Extra: "listen unix:" + sock + ";"})
	for _, cfg := range []gb.Config{
		{LocalAddr: "127.0.0.1"},
		{Proxy: "127.0.0.1:3128"},
		{ConnectTo: []string{"::127.0.0.1:80"}},
		{URL: "http+unix://%2Fother.sock/"},
		{URL: "http+unix:///x"},
	} {
		cfg.UnixSocket, cfg.Requests = sock, 1
		if cfg.URL == "" {
			cfg.URL = "http://localhost/"
		}
		_, err := gb.NewPlan(cfg)
		var ce *gb.ConfigError
		if !errors.As(err, &ce) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%+v: %v, want a one-line ConfigError", cfg, err)
		}
	}
}

// TestHTTPSOverUnixSocket: an https+unix:// URL speaks TLS over the
// socket, naming (and verifying) localhost, on both engines.
func TestHTTPSOverUnixSocket(t *testing.T) {
	srv, ca := tlsServer(t)
	sock := filepath.Join(testsupport.SocketDir(t), "tls.sock")
	fwd := testsupport.StartRelay(t, &testsupport.Relay{To: strings.TrimPrefix(srv.TLSURL(), "https://"), Socket: sock})
	for _, engine := range []gb.Engine{gb.EngineLoop, gb.EngineGoroutine} {
		before := srv.Ledger().TLS.Requests
		res, err := gb.Run(context.Background(), gb.Config{URL: "https+unix://" + url.PathEscape(sock) + "/hello",
			TLS: gb.TLS{CAFile: ca}, Engine: engine, KeepAlive: true, Concurrency: 2, Requests: 30})
		if err != nil {
			t.Fatal(err)
		}
		_, names := fwd.Seen()
		if res.Counts.Outcomes[stats.OK] != 30 || srv.Ledger().TLS.Requests-before != 30 || names[len(names)-1] != "localhost" {
			t.Errorf("%s: ok=%d errors=%v, the server counted %d, TLS name %q", engine, res.Counts.Outcomes[stats.OK],
				res.Counts.Errors, srv.Ledger().TLS.Requests-before, names[len(names)-1])
		}
	}
}

// TestUnixSocketFullBacklog: a unix listener with a backlog of 1 that
// accepts slowly refuses non-blocking connects (EAGAIN) while its queue is
// full; gb waits for room as a blocking connect would, so every request
// is answered, on both engines.
func TestUnixSocketFullBacklog(t *testing.T) {
	sock := filepath.Join(testsupport.SocketDir(t), "slow.sock")
	fd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	syscall.CloseOnExec(fd)
	if err := syscall.Bind(fd, &syscall.SockaddrUnix{Name: sock}); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Listen(fd, 1); err != nil {
		t.Fatal(err)
	}
	f := os.NewFile(uintptr(fd), sock)
	ln, err := net.FileListener(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var served atomic.Int64
	go func() {
		for {
			time.Sleep(2 * time.Millisecond) // accept slowly: the queue fills
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				if _, err := http.ReadRequest(bufio.NewReader(c)); err == nil {
					served.Add(1)
					io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok")
				}
			}()
		}
	}()
	for _, engine := range []gb.Engine{gb.EngineLoop, gb.EngineGoroutine} {
		before := served.Load()
		res, err := gb.Run(context.Background(), gb.Config{URL: "http://localhost/", UnixSocket: sock, Engine: engine,
			Concurrency: 16, Requests: 160})
		if err != nil {
			t.Fatal(err)
		}
		if res.Counts.Outcomes[stats.OK] != 160 || served.Load()-before != 160 {
			t.Errorf("%s: ok=%d errors=%v, the server answered %d", engine, res.Counts.Outcomes[stats.OK],
				res.Counts.Errors, served.Load()-before)
		}
	}
}
