package fault_test

import (
	"net"
	"testing"
	"time"

	"github.com/gb-bench/gb/internal/testserver/fault"
	"github.com/gb-bench/gb/internal/testsupport"
)

// serve runs a fault Server with options o on a plain loopback listener
// (no ledger: its connections are not Counters) and returns its base URL.
func serve(t *testing.T, o fault.Options) (*fault.Server, string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := fault.Serve(ln, o)
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return s, "http://" + s.Addr().String()
}

// lastRow waits until the latest row of s has ended and returns it.
func lastRow(t *testing.T, s *fault.Server) fault.Exchange {
	t.Helper()
	var x fault.Exchange
	testsupport.WaitFor(t, "the last exchange to end", func() bool {
		rows, _ := s.Exchanges()
		if len(rows) == 0 {
			return false
		}
		x = rows[len(rows)-1]
		return x.End != fault.EndOpen
	})
	return x
}

// TestServeStandalone runs the listener without testserver: connection
// ids come from the server, rows are kept and reset, and Close ends an
// exchange held by /stall as stalled.
func TestServeStandalone(t *testing.T) {
	s, url := serve(t, fault.Options{})
	c := testsupport.Dial(t, url)
	testsupport.Expect(t, c, testsupport.GET("/ok"), ok)
	if got, end := testsupport.RoundTrip(t, url, testsupport.GET("/reset?after=12")); got != "HTTP/1.1 200" || end != "rst" {
		t.Errorf("/reset?after=12: %q, %s", got, end)
	}
	rows, dropped := s.Exchanges()
	if len(rows) != 2 || dropped != 0 || rows[0].Conn != 1 || rows[1].Conn != 2 || rows[1].End != fault.EndRST {
		t.Errorf("rows %+v, dropped %d", rows, dropped)
	}
	s.ResetExchanges()
	if rows, _ := s.Exchanges(); len(rows) != 0 {
		t.Errorf("rows after the reset: %+v", rows)
	}
	testsupport.Dial(t, url).Write([]byte(testsupport.GET("/stall")))
	testsupport.WaitFor(t, "the stall", func() bool { rows, _ := s.Exchanges(); return len(rows) == 1 })
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if x := lastRow(t, s); x.End != fault.EndStalled {
		t.Errorf("the stalled exchange ended %q, want %q", x.End, fault.EndStalled)
	}
}

// gate holds every response until release is closed.
type gate struct{ release chan struct{} }

func (g gate) Wait(gone, done <-chan struct{}) bool {
	select {
	case <-g.release:
		return true
	case <-gone:
	case <-done:
	}
	return false
}

// TestServeWaitsAtTheGate: with Options.Gate, a response waits for it;
// nothing is written before the gate opens.
func TestServeWaitsAtTheGate(t *testing.T) {
	g := gate{release: make(chan struct{})}
	s, url := serve(t, fault.Options{Gate: g})
	c := testsupport.Dial(t, url)
	c.Write([]byte(testsupport.GET("/ok")))
	testsupport.WaitFor(t, "the request", func() bool { rows, _ := s.Exchanges(); return len(rows) == 1 })
	c.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
	if n, _ := c.Read(make([]byte, 1)); n != 0 {
		t.Fatal("a byte arrived before the gate opened")
	}
	close(g.release)
	c.SetReadDeadline(time.Now().Add(testsupport.Guard))
	if got := testsupport.ReadN(t, c, len(ok)); got != ok {
		t.Errorf("after the gate: %q", got)
	}
}
