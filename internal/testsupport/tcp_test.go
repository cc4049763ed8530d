package testsupport

import (
	"bufio"
	"errors"
	"io"
	"net"
	"syscall"
	"testing"
)

func TestEchoLinesAnswersEachLine(t *testing.T) {
	c, err := net.Dial("tcp", EchoLines(t))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	r := bufio.NewReader(c)
	for _, line := range []string{"one\n", "two\n"} {
		io.WriteString(c, line)
		if got, err := r.ReadString('\n'); got != line || err != nil {
			t.Errorf("echo of %q: %q, %v", line, got, err)
		}
	}
}

func TestServeStopsWhenTheTestEnds(t *testing.T) {
	var addr string
	t.Run("inner", func(t *testing.T) {
		addr = Serve(t, func(c net.Conn) { io.WriteString(c, "hi") })
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if b, err := io.ReadAll(c); string(b) != "hi" || err != nil {
			t.Errorf("read %q, %v; want \"hi\" then EOF", b, err)
		}
	})
	if _, err := net.Dial("tcp", addr); !errors.Is(err, syscall.ECONNREFUSED) {
		t.Errorf("dial after the test ended: %v, want connection refused", err)
	}
}

func TestClosedAddrRefuses(t *testing.T) {
	if _, err := net.Dial("tcp", ClosedAddr(t)); !errors.Is(err, syscall.ECONNREFUSED) {
		t.Errorf("dial: %v, want connection refused", err)
	}
}
