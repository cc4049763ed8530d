package fault_test

import (
	"io"
	"strings"
	"testing"

	"github.com/gb-bench/gb/internal/testserver"
	"github.com/gb-bench/gb/internal/testserver/fault"
	"github.com/gb-bench/gb/internal/testsupport"
)

func TestFaultSlowHeaders(t *testing.T) {
	s := testsupport.Server(t, testserver.Options{})
	c := testsupport.Dial(t, s.FaultURL())
	testsupport.Expect(t, c, testsupport.GET("/slow-headers?interval=0"), ok)
	if _, err := io.WriteString(c, testsupport.GET("/slow-headers?interval=100us&bytes=200")); err != nil {
		t.Fatal(err)
	}
	got := testsupport.ReadN(t, c, 200)
	if !strings.HasPrefix(got, ok[:len(ok)-2]+"X-Pad: abc") || !strings.HasSuffix(got, "\r\n\r\n") {
		t.Errorf("padded head %q", got)
	}
	checkKeptAlive(t, c)
	rows := s.Ledger().Exchanges
	if x := rows[1]; x.BytesOut != 200 || x.End != fault.EndComplete {
		t.Errorf("row %+v", x)
	}
	for total := 0; total < 300; total++ {
		if n := len(fault.PadHead([]byte(ok), total)); n != max(total, len(ok)) && n != len(ok)+fault.MinPad {
			t.Errorf("padHead to %d: %d bytes", total, n)
		}
	}
}

func TestFaultDrip(t *testing.T) {
	s := testsupport.Server(t, testserver.Options{})
	c := testsupport.Dial(t, s.FaultURL())
	testsupport.Expect(t, c, testsupport.GET("/drip?interval=1ms&bytes=5"), "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nabcde")
	checkKeptAlive(t, c)
}

func TestFaultStall(t *testing.T) {
	s := testsupport.Server(t, testserver.Options{})
	c := testsupport.Dial(t, s.FaultURL())
	testsupport.Expect(t, c, testsupport.GET("/stall?ms=1&size=2"), "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nab")
	io.WriteString(c, testsupport.GET("/stall?ms=1&then=close"))
	if got, end := testsupport.ReadAll(t, c); got != "" || end != "fin" {
		t.Errorf("then=close: %q, %s", got, end)
	}
	if x := testsupport.LastExchange(t, s); x.End != fault.EndFIN {
		t.Errorf("then=close row %+v", x)
	}

	c = testsupport.Dial(t, s.FaultURL())
	io.WriteString(c, testsupport.GET("/stall?ms=inf"))
	testsupport.WaitFor(t, "the stall to start", func() bool { return len(s.Ledger().Exchanges) == 3 })
	c.Close()
	if x := testsupport.LastExchange(t, s); x.End != fault.EndClientGone || x.BytesOut != 0 {
		t.Errorf("inf row %+v", x)
	}
}

func TestFaultStallBody(t *testing.T) {
	s := testsupport.Server(t, testserver.Options{})
	c := testsupport.Dial(t, s.FaultURL())
	testsupport.Expect(t, c, testsupport.GET("/stall-body?after=3&ms=1"), "HTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\nabcdef")
	checkKeptAlive(t, c)

	c = testsupport.Dial(t, s.FaultURL())
	testsupport.Expect(t, c, testsupport.GET("/stall-body?after=4&size=100"), "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nabcd")
	c.Close()
	if x := testsupport.LastExchange(t, s); x.End != fault.EndClientGone {
		t.Errorf("row %+v", x)
	}
}

func TestFaultIdleClose(t *testing.T) {
	s := testsupport.Server(t, testserver.Options{})
	c := testsupport.Dial(t, s.FaultURL())
	testsupport.Expect(t, c, testsupport.GET("/idle-close"), ok)
	testsupport.Expect(t, c, testsupport.GET("/idle-close?after=1ms&size=1"), "HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\na")
	if got, end := testsupport.ReadAll(t, c); got != "" || end != "fin" {
		t.Errorf("after the idle time: %q, %s", got, end)
	}
	if x := testsupport.LastExchange(t, s); x.End != fault.EndComplete {
		t.Errorf("row %+v", x)
	}
}
