package testserver_test

import (
	"bufio"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"sync"
	"testing"

	"github.com/gb-bench/gb/internal/testserver"
	"github.com/gb-bench/gb/internal/testserver/fault"
	"github.com/gb-bench/gb/internal/testsupport"
)

// counted wraps a client connection and counts its bytes.
type counted struct {
	net.Conn
	in, out int64
}

func (c *counted) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.in += int64(n)
	return n, err
}

func (c *counted) Write(p []byte) (int, error) {
	n, err := c.Conn.Write(p)
	c.out += int64(n)
	return n, err
}

// exchangeN sends n GETs of path one by one on a new connection to the
// main listener, then closes it, and returns its byte counts.
func exchangeN(t *testing.T, s *testserver.Server, n int, path string) *counted {
	c := &counted{Conn: testsupport.Dial(t, s.URL())}
	br := bufio.NewReader(c)
	for range n {
		io.WriteString(c, testsupport.GET(path))
		readResponse(t, br)
	}
	c.Close()
	return c
}

func TestLedgerHTTPCounts(t *testing.T) {
	s := testsupport.Server(t, testserver.Options{})
	a, b := exchangeN(t, s, 3, "/bytes/100"), exchangeN(t, s, 2, "/json")
	testsupport.WaitFor(t, "the connections to close", func() bool { return s.Ledger().HTTP.Open == 0 })
	want := testserver.Traffic{Requests: 5, Conns: 2, BytesIn: a.out + b.out, BytesOut: a.in + b.in}
	checkTraffic(t, s.Ledger().HTTP, want, map[int64]int64{3: 1, 2: 1})

	// Control requests are not counted, on a fresh connection or on a used one.
	c := client()
	get(t, c, s.URL()+"/__ledger")
	d := &counted{Conn: testsupport.Dial(t, s.URL())}
	br := bufio.NewReader(d)
	io.WriteString(d, testsupport.GET("/hello"))
	readResponse(t, br)
	io.WriteString(d, testsupport.GET("/__ledger"))
	resp, _ := readResponse(t, br)
	if !resp.Close {
		t.Error("a control reply did not close its connection")
	}
	io.Copy(io.Discard, br)
	testsupport.WaitFor(t, "the connections to close", func() bool { return s.Ledger().HTTP.Open == 0 })
	hello := exchangeN(t, testsupport.Server(t, testserver.Options{}), 1, "/hello") // the same exchange, measured elsewhere
	want = testserver.Traffic{Requests: 6, Conns: 3, BytesIn: want.BytesIn + hello.out, BytesOut: want.BytesOut + hello.in}
	checkTraffic(t, s.Ledger().HTTP, want, map[int64]int64{3: 1, 2: 1, 1: 1})
}

// checkTraffic compares a listener's counts.
func checkTraffic(t *testing.T, got, want testserver.Traffic, perConn map[int64]int64) {
	t.Helper()
	if got.Requests != want.Requests || got.Conns != want.Conns || got.BytesIn != want.BytesIn || got.BytesOut != want.BytesOut {
		t.Errorf("traffic %+v, want %+v", got, want)
	}
	if len(got.RequestsPerConn) != len(perConn) {
		t.Errorf("requests per conn %v, want %v", got.RequestsPerConn, perConn)
	}
	for k, v := range perConn {
		if got.RequestsPerConn[k] != v {
			t.Errorf("requests per conn %v, want %v", got.RequestsPerConn, perConn)
		}
	}
}

func TestLedgerConcurrent(t *testing.T) {
	s := testsupport.Server(t, testserver.Options{})
	c := client()
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 50 {
				resp, err := c.Get(s.URL() + "/bytes/10")
				if err != nil {
					t.Error(err)
					return
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		})
		wg.Go(func() { s.Ledger() })
	}
	wg.Wait()
	l := s.Ledger().HTTP
	sum := int64(0)
	for k, v := range l.RequestsPerConn {
		sum += k * v
	}
	if l.Requests != 400 || sum != 400 || l.Conns < 1 || l.Conns > 400 {
		t.Errorf("ledger %+v", l)
	}
}

func TestLedgerFault(t *testing.T) {
	s := testsupport.Server(t, testserver.Options{})
	c := &counted{Conn: testsupport.Dial(t, s.FaultURL())}
	testsupport.Expect(t, c, testsupport.GET("/ok?size=3", "X-Gb-Seq: 1"), "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nabc")
	testsupport.Expect(t, c, testsupport.GET("/reset?after=5", "X-Gb-Seq: 2"), "HTTP/")
	testsupport.ReadAll(t, c)
	d := &counted{Conn: testsupport.Dial(t, s.FaultURL())}
	testsupport.Expect(t, d, testsupport.GET("/ok"), "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")
	d.Close()
	testsupport.WaitFor(t, "the connections to close", func() bool { return s.Ledger().Fault.Open == 0 })
	l := s.Ledger()
	checkTraffic(t, l.Fault, testserver.Traffic{Requests: 3, Conns: 2, BytesIn: c.out + d.out, BytesOut: c.in + d.in}, map[int64]int64{2: 1, 1: 1})
	if len(l.Exchanges) != 3 {
		t.Fatalf("rows %+v", l.Exchanges)
	}
	x0, x1, x2 := l.Exchanges[0], l.Exchanges[1], l.Exchanges[2]
	if x0.Conn != x1.Conn || x0.Conn == x2.Conn || x0.Seq != 1 || x1.Seq != 2 || x2.Seq != 1 {
		t.Errorf("conn ids and seqs: %+v", l.Exchanges)
	}
	if x0.Tag != "1" || x1.Tag != "2" || x1.Endpoint != "/reset" || x1.Target != "/reset?after=5" || x1.BytesOut != 5 {
		t.Errorf("rows %+v", l.Exchanges)
	}
	if e := l.Ends(); e[fault.EndComplete] != 2 || e[fault.EndRST] != 1 {
		t.Errorf("ends %v", e)
	}
	if x1.Arrival < x0.Arrival {
		t.Errorf("arrivals out of order: %v, %v", x0.Arrival, x1.Arrival)
	}
}

func TestResetLedger(t *testing.T) {
	s := testsupport.Server(t, testserver.Options{})
	c := client()
	get(t, c, s.URL()+"/hello")
	testsupport.RoundTrip(t, s.FaultURL(), testsupport.GET("/ok", "Connection: close"))
	testsupport.LastExchange(t, s)
	resp, err := c.Post(s.URL()+"/__reset", "", nil)
	if err != nil || resp.StatusCode != http.StatusNoContent {
		t.Fatalf("reset: %v %v", resp, err)
	}
	resp.Body.Close()
	testsupport.WaitFor(t, "the connections to close", func() bool { return s.Ledger().HTTP.Open == 0 })
	l := s.Ledger()
	if l.HTTP.Requests != 0 || l.HTTP.BytesIn != 0 || l.Fault.Requests != 0 || len(l.Exchanges) != 0 || l.Fault.Conns != 0 {
		t.Errorf("after reset: %+v", l)
	}
	get(t, c, s.URL()+"/hello")
	if l := s.Ledger().HTTP; l.Requests != 1 || l.Conns != 1 {
		t.Errorf("after reset and one request: %+v", l)
	}
}

func TestLedgerJSON(t *testing.T) {
	s := testsupport.Server(t, testserver.Options{})
	c := client()
	get(t, c, s.URL()+"/hello")
	testsupport.RoundTrip(t, s.FaultURL(), testsupport.GET("/ok", "Connection: close"))
	testsupport.LastExchange(t, s)
	_, body := get(t, c, s.URL()+"/__ledger")
	var l testserver.Ledger
	if err := json.Unmarshal([]byte(body), &l); err != nil {
		t.Fatal(err)
	}
	if l.HTTP.Requests != 1 || l.HTTP.RequestsPerConn[1] != 1 || len(l.Exchanges) != 1 || l.Exchanges[0].End != fault.EndComplete {
		t.Errorf("decoded %+v", l)
	}
}
