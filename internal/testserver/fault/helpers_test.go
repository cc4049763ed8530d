package fault_test

import (
	"net"
	"testing"

	"github.com/gb-bench/gb/internal/testsupport"
)

// ok is the plain /ok reply.
const ok = "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"

// okClose is /ok answering a request that asked to close.
const okClose = "HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"

// checkKeptAlive asserts that c still serves requests: /ok answers in
// full right after what was read before.
func checkKeptAlive(t *testing.T, c net.Conn) {
	t.Helper()
	testsupport.Expect(t, c, testsupport.GET("/ok", "Connection: close"), okClose)
	if rest, end := testsupport.ReadAll(t, c); rest != "" || end != "fin" {
		t.Fatalf("after the reply: %q, %s", rest, end)
	}
}
