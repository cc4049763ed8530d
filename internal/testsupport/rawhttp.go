package testsupport

import (
	"errors"
	"io"
	"net"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gb-bench/gb/internal/testserver"
	"github.com/gb-bench/gb/internal/testserver/fault"
)

// Raw HTTP/1.1 over TCP, for tests that check exact bytes and how a
// connection ends (FIN or RST), as the fault listener's tests do.

// Guard bounds every blocking step of the helpers below. It is a hang
// guard, never a timing assertion: a healthy exchange takes milliseconds.
const Guard = 10 * time.Second

// HostOf strips the scheme of a base URL: "http://127.0.0.1:80" gives
// "127.0.0.1:80".
func HostOf(url string) string { return url[strings.Index(url, "://")+3:] }

// Dial connects to a base URL's host, with a deadline of Guard from now for
// every read and write; the connection is closed when the test ends.
func Dial(tb testing.TB, url string) net.Conn {
	tb.Helper()
	c, err := net.DialTimeout("tcp", HostOf(url), Guard)
	if err != nil {
		tb.Fatal(err)
	}
	c.SetDeadline(time.Now().Add(Guard))
	tb.Cleanup(func() { c.Close() })
	return c
}

// GET returns the bytes of a GET request for target with "Host: gb" and
// the extra header lines hdrs ("Name: value").
func GET(target string, hdrs ...string) string {
	return Request("GET", target, hdrs...)
}

// Request returns the bytes of an HTTP/1.1 request head for method and
// target with "Host: gb" and the extra header lines hdrs.
func Request(method, target string, hdrs ...string) string {
	var b strings.Builder
	b.WriteString(method + " " + target + " HTTP/1.1\r\nHost: gb\r\n")
	for _, h := range hdrs {
		b.WriteString(h + "\r\n")
	}
	b.WriteString("\r\n")
	return b.String()
}

// Ending says how a connection ended, from the error that ended a read:
// "fin" (EOF), "rst" (ECONNRESET) or the error text.
func Ending(err error) string {
	switch {
	case errors.Is(err, io.EOF):
		return "fin"
	case errors.Is(err, syscall.ECONNRESET):
		return "rst"
	}
	return err.Error()
}

// ReadAll reads c until the connection ends and returns what it read and
// how it ended (see Ending).
func ReadAll(tb testing.TB, c net.Conn) (string, string) {
	tb.Helper()
	var b []byte
	buf := make([]byte, 32<<10)
	for {
		n, err := c.Read(buf)
		b = append(b, buf[:n]...)
		if err != nil {
			return string(b), Ending(err)
		}
	}
}

// ReadN reads exactly n bytes from c, failing the test otherwise.
func ReadN(tb testing.TB, c net.Conn, n int) string {
	tb.Helper()
	b := make([]byte, n)
	if k, err := io.ReadFull(c, b); err != nil {
		tb.Fatalf("read %d of %d bytes: %v (got %q)", k, n, err, b[:k])
	}
	return string(b)
}

// RoundTrip sends raw on a new connection to url and reads until the
// server ends the connection; it returns what it read and how the
// connection ended.
func RoundTrip(tb testing.TB, url, raw string) (string, string) {
	tb.Helper()
	c := Dial(tb, url)
	if _, err := io.WriteString(c, raw); err != nil {
		tb.Fatal(err)
	}
	return ReadAll(tb, c)
}

// Expect sends raw on c and fails the test unless the next len(want)
// bytes are want.
func Expect(tb testing.TB, c net.Conn, raw, want string) {
	tb.Helper()
	if _, err := io.WriteString(c, raw); err != nil {
		tb.Fatal(err)
	}
	if got := ReadN(tb, c, len(want)); got != want {
		tb.Fatalf("got\n%q\nwant\n%q", got, want)
	}
}

// WaitFor polls cond every millisecond until it holds, failing the test
// after Guard (a hang guard only).
func WaitFor(tb testing.TB, what string, cond func() bool) {
	tb.Helper()
	for deadline := time.Now().Add(Guard); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			tb.Fatalf("timed out waiting for %s", what)
		}
	}
}

// PatternBody returns the first n bytes of every body gb's test server
// generates: 'a'+i%26 at offset i.
func PatternBody(n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = 'a' + byte(i%26)
	}
	return string(b)
}

// LastExchange waits until the latest exchange row of s's fault listener
// has ended and returns it.
func LastExchange(tb testing.TB, s *testserver.Server) fault.Exchange {
	tb.Helper()
	var x fault.Exchange
	WaitFor(tb, "the last exchange to end", func() bool {
		rows := s.Ledger().Exchanges
		if len(rows) == 0 {
			return false
		}
		x = rows[len(rows)-1]
		return x.End != fault.EndOpen
	})
	return x
}
