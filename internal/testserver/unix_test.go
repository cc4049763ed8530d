package testserver_test

import (
	"context"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gb-bench/gb/internal/testserver"
	"github.com/gb-bench/gb/internal/testsupport"
)

// dialUnix returns a DialContext that connects to path whatever the URL.
func dialUnix(path string) func(context.Context, string, string) (net.Conn, error) {
	return func(ctx context.Context, _, _ string) (net.Conn, error) {
		return new(net.Dialer).DialContext(ctx, "unix", path)
	}
}

// TestUnixSocket serves HTTP/1.1 and h2c on a unix socket, counts them in
// the ledger's Unix traffic only, and removes the socket file on Close.
func TestUnixSocket(t *testing.T) {
	path := filepath.Join(t.TempDir(), "gb.sock")
	s, err := testserver.Start(testserver.Options{Unix: path})
	if err != nil {
		t.Fatal(err)
	}
	if s.UnixPath() != path {
		t.Errorf("UnixPath %q, want %q", s.UnixPath(), path)
	}
	h1 := protoClient(s, func(p *http.Protocols) { p.SetHTTP1(true) }, dialUnix(path))
	h2c := protoClient(s, func(p *http.Protocols) { p.SetUnencryptedHTTP2(true) }, dialUnix(path))
	if p := getAll(t, h1, "http://localhost/bytes/6", 5); p != "HTTP/1.1" {
		t.Errorf("h1 over the socket: %s", p)
	}
	if p := getAll(t, h2c, "http://gb.invalid/bytes/6", 7); p != "HTTP/2.0" {
		t.Errorf("h2c over the socket: %s", p)
	}
	l := s.Ledger()
	if l.Unix.Requests != 12 || l.Unix.Protocols["HTTP/1.1"] != 5 || l.Unix.Protocols["HTTP/2.0"] != 7 || l.HTTP.Requests != 0 {
		t.Errorf("ledger unix %+v, http %+v", l.Unix, l.HTTP)
	}
	if _, body := get(t, h1, "http://localhost/"); !strings.Contains(body, "unix:  "+path) {
		t.Errorf("the index does not name the socket:\n%s", body)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(path); !os.IsNotExist(err) {
		t.Errorf("the socket file is still there after Close: %v", err)
	}
}

// TestUnixSocketPath removes a stale socket, and refuses a regular file or
// a socket another server answers on, leaving both in place.
func TestUnixSocketPath(t *testing.T) {
	dir := t.TempDir()
	stale := filepath.Join(dir, "stale.sock")
	ln, err := net.Listen("unix", stale)
	if err != nil {
		t.Fatal(err)
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	ln.Close()
	s := testsupport.Server(t, testserver.Options{Unix: stale})
	c := protoClient(s, func(p *http.Protocols) { p.SetHTTP1(true) }, dialUnix(stale))
	getAll(t, c, "http://localhost/bytes/6", 1)

	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{file: "is not a socket", stale: "a server is listening"} {
		_, err := testserver.Start(testserver.Options{Unix: path})
		if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("Start on %s: %v, want one line with %q", path, err, want)
		}
		if _, err := os.Lstat(path); err != nil {
			t.Errorf("%s was removed: %v", path, err)
		}
	}
	if b, _ := os.ReadFile(file); string(b) != "keep" {
		t.Errorf("the regular file now holds %q", b)
	}
}
