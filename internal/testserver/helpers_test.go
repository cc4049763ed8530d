package testserver

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// guard bounds every blocking step of a test. It is a hang guard, never a
// timing assertion: a healthy run takes milliseconds.
const guard = 10 * time.Second

// start starts a server closed by the test's cleanup.
func start(t *testing.T, o Options) *Server {
	t.Helper()
	s, err := Start(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return s
}

// hostOf strips the scheme of a base URL.
func hostOf(url string) string { return url[strings.Index(url, "://")+3:] }

// dial connects to a base URL's host.
func dial(t *testing.T, url string) net.Conn {
	t.Helper()
	c, err := net.DialTimeout("tcp", hostOf(url), guard)
	if err != nil {
		t.Fatal(err)
	}
	c.SetDeadline(time.Now().Add(guard))
	t.Cleanup(func() { c.Close() })
	return c
}

// req builds a GET request for target with extra header lines.
func req(target string, hdrs ...string) string {
	return reqMethod("GET", target, hdrs...)
}

// reqMethod builds a request with a method.
func reqMethod(method, target string, hdrs ...string) string {
	var b strings.Builder
	b.WriteString(method + " " + target + " HTTP/1.1\r\nHost: gb\r\n")
	for _, h := range hdrs {
		b.WriteString(h + "\r\n")
	}
	b.WriteString("\r\n")
	return b.String()
}

// ending says how a connection ended: "fin" (EOF), "rst" (ECONNRESET) or
// the error text.
func ending(err error) string {
	switch {
	case errors.Is(err, io.EOF):
		return "fin"
	case errors.Is(err, syscall.ECONNRESET):
		return "rst"
	}
	return err.Error()
}

// readAll reads until the connection ends and says how.
func readAll(t *testing.T, c net.Conn) (string, string) {
	t.Helper()
	var b []byte
	buf := make([]byte, 32<<10)
	for {
		n, err := c.Read(buf)
		b = append(b, buf[:n]...)
		if err != nil {
			return string(b), ending(err)
		}
	}
}

// readN reads exactly n bytes.
func readN(t *testing.T, c net.Conn, n int) string {
	t.Helper()
	b := make([]byte, n)
	if k, err := io.ReadFull(c, b); err != nil {
		t.Fatalf("read %d of %d bytes: %v (got %q)", k, n, err, b[:k])
	}
	return string(b)
}

// roundTrip sends raw on a new connection to url and reads until the
// server ends the connection.
func roundTrip(t *testing.T, url, raw string) (string, string) {
	t.Helper()
	c := dial(t, url)
	if _, err := io.WriteString(c, raw); err != nil {
		t.Fatal(err)
	}
	return readAll(t, c)
}

// expect sends raw on c and asserts the next len(want) bytes.
func expect(t *testing.T, c net.Conn, raw, want string) {
	t.Helper()
	if _, err := io.WriteString(c, raw); err != nil {
		t.Fatal(err)
	}
	if got := readN(t, c, len(want)); got != want {
		t.Fatalf("got\n%q\nwant\n%q", got, want)
	}
}

// ok is the fault listener's plain /ok reply.
const ok = "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"

// okClose is /ok answering a request that asked to close.
const okClose = "HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"

// checkKeptAlive asserts that c still serves requests: /ok answers in
// full right after what was read before.
func checkKeptAlive(t *testing.T, c net.Conn) {
	t.Helper()
	expect(t, c, req("/ok", "Connection: close"), okClose)
	if rest, end := readAll(t, c); rest != "" || end != "fin" {
		t.Fatalf("after the reply: %q, %s", rest, end)
	}
}

// waitFor polls cond until it holds (hang guard only).
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(guard); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// lastEnd waits until the latest exchange row has ended and returns it.
func lastEnd(t *testing.T, s *Server) Exchange {
	t.Helper()
	var x Exchange
	waitFor(t, "the last exchange to end", func() bool {
		rows := s.Ledger().Exchanges
		if len(rows) == 0 {
			return false
		}
		x = rows[len(rows)-1]
		return x.End != EndOpen
	})
	return x
}

// client returns an HTTP client with a hang guard.
func client() *http.Client {
	return &http.Client{Timeout: guard, Transport: &http.Transport{}}
}

// get fetches url and returns the response with its body read.
func get(t *testing.T, c *http.Client, url string) (*http.Response, string) {
	t.Helper()
	resp, err := c.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, string(b)
}

// readResponse reads one response from br (for raw tests of the main
// listener).
func readResponse(t *testing.T, br *bufio.Reader) (*http.Response, string) {
	t.Helper()
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, string(b)
}

// itoa formats n.
func itoa(n int) string { return strconv.Itoa(n) }

// bodyString returns the first n body bytes.
func bodyString(n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = 'a' + byte(i%26)
	}
	return string(b)
}
