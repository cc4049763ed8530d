package main

import (
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gb-bench/gb/internal/testsupport"
)

// TestServeUnix runs gb serve --unix, fetches a file over the socket with
// HTTP/1.1 and h2c, and checks that an interrupt removes the socket.
func TestServeUnix(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "gb.sock")
	var out, errs heldWriter
	var banner strings.Builder
	sig := make(chan os.Signal, 1)
	code := make(chan int, 1)
	go func() { code <- serve([]string{"--addr", "127.0.0.1:0", "--unix", sock}, &out, &errs, sig) }()
	testsupport.WaitFor(t, "gb serve to listen", func() bool {
		out.flush(&banner)
		return strings.Contains(banner.String(), "Try: ")
	})
	if !strings.Contains(banner.String(), "  unix:   "+sock+" (HTTP/1.1 and h2c;") {
		t.Errorf("gb serve's banner does not show the socket:\n%s", banner.String())
	}
	for _, h2c := range []bool{false, true} {
		p := new(http.Protocols)
		p.SetHTTP1(!h2c)
		p.SetUnencryptedHTTP2(h2c)
		c := &http.Client{Timeout: testsupport.Guard, Transport: &http.Transport{Protocols: p,
			DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
				return new(net.Dialer).DialContext(ctx, "unix", sock)
			}}}
		resp, err := c.Get("http://localhost/hello")
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if string(b) != "Hello, World!" || resp.ProtoMajor != map[bool]int{false: 1, true: 2}[h2c] {
			t.Errorf("h2c %v: %s %q", h2c, resp.Proto, b)
		}
	}
	sig <- os.Interrupt
	var stderr strings.Builder
	c := <-code
	if errs.flush(&stderr); c != 0 || stderr.Len() != 0 {
		t.Errorf("exit %d, stderr %q", c, stderr.String())
	}
	if _, err := os.Lstat(sock); !os.IsNotExist(err) {
		t.Errorf("the socket is still there: %v", err)
	}
}

// TestServeUnixNotSocket: --unix naming a regular file fails with one
// line and exit 1, and leaves the file alone.
func TestServeUnixNotSocket(t *testing.T) {
	file := tempFile(t, "notes.txt", "mine")
	code, out, errs := inProcess("serve", "--addr", "127.0.0.1:0", "--unix", file)
	if code != 1 || out != "" || !strings.Contains(errs, "exists and is not a socket") || strings.Count(errs, "\n") != 1 {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errs)
	}
	if b, _ := os.ReadFile(file); string(b) != "mine" {
		t.Errorf("the file now holds %q", b)
	}
}
