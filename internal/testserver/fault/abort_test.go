package fault_test

import (
	"io"
	"strconv"
	"testing"

	"github.com/gb-bench/gb/internal/testserver"
	"github.com/gb-bench/gb/internal/testserver/fault"
	"github.com/gb-bench/gb/internal/testsupport"
)

func TestFaultCloseAfter(t *testing.T) {
	s := testsupport.Server(t, testserver.Options{})
	full := "HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n" + testsupport.PatternBody(1000)
	for _, n := range []int{0, 5, 20, 60} {
		got, end := testsupport.RoundTrip(t, s.FaultURL(), testsupport.GET("/close-after?bytes="+strconv.Itoa(n)))
		if got != full[:n] || end != "fin" {
			t.Errorf("bytes=%d: %q, %s", n, got, end)
		}
		if x := testsupport.LastExchange(t, s); x.End != fault.EndFIN || x.BytesOut != int64(n) {
			t.Errorf("bytes=%d: row %+v", n, x)
		}
	}
	got, end := testsupport.RoundTrip(t, s.FaultURL(), testsupport.GET("/close-after?body=50&size=100"))
	if want := "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n" + testsupport.PatternBody(50); got != want || end != "fin" {
		t.Errorf("body=50: %q, %s", got, end)
	}
	// A body shorter than N is made longer: the Content-Length always exceeds what arrives.
	got, _ = testsupport.RoundTrip(t, s.FaultURL(), testsupport.GET("/close-after?body=50&size=10"))
	if want := "HTTP/1.1 200 OK\r\nContent-Length: 51\r\n\r\n" + testsupport.PatternBody(50); got != want {
		t.Errorf("body=50&size=10: %q", got)
	}
}

func TestFaultReset(t *testing.T) {
	s := testsupport.Server(t, testserver.Options{})
	full := "HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n" + testsupport.PatternBody(1000)
	for _, n := range []int{10, 200} {
		got, end := testsupport.RoundTrip(t, s.FaultURL(), testsupport.GET("/reset?after="+strconv.Itoa(n)))
		if got != full[:n] || end != "rst" {
			t.Errorf("after=%d: %q, %s", n, got, end)
		}
		if x := testsupport.LastExchange(t, s); x.End != fault.EndRST || x.BytesOut != int64(n) {
			t.Errorf("after=%d: row %+v", n, x)
		}
	}
	got, end := testsupport.RoundTrip(t, s.FaultURL(), testsupport.GET("/reset?body=3&size=10"))
	if got != "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc" || end != "rst" {
		t.Errorf("body=3: %q, %s", got, end)
	}
}

func TestFaultCloseBeforeResetBefore(t *testing.T) {
	s := testsupport.Server(t, testserver.Options{})
	c := testsupport.Dial(t, s.FaultURL())
	testsupport.Expect(t, c, testsupport.GET("/ok"), ok) // a reused connection, as in the stale-connection race
	io.WriteString(c, testsupport.GET("/close-before"))
	if got, end := testsupport.ReadAll(t, c); got != "" || end != "fin" {
		t.Errorf("close-before: %q, %s", got, end)
	}
	if x := testsupport.LastExchange(t, s); x.End != fault.EndFIN || x.Seq != 2 {
		t.Errorf("close-before row %+v", x)
	}
	if got, end := testsupport.RoundTrip(t, s.FaultURL(), testsupport.GET("/reset-before")); got != "" || end != "rst" {
		t.Errorf("reset-before: %q, %s", got, end)
	}
	if x := testsupport.LastExchange(t, s); x.End != fault.EndRST {
		t.Errorf("reset-before row %+v", x)
	}
}

func TestFaultEarlyResponse(t *testing.T) {
	s := testsupport.Server(t, testserver.Options{})
	head := "POST /early-response HTTP/1.1\r\nHost: gb\r\nContent-Length: 1048576\r\n\r\n"
	got, end := testsupport.RoundTrip(t, s.FaultURL(), head)
	want := "HTTP/1.1 413 Request Entity Too Large\r\nContent-Length: 25\r\nConnection: close\r\n\r\nRequest Entity Too Large\n"
	if got != want || end != "fin" {
		t.Errorf("drain=0: %q, %s", got, end)
	}
	if x := testsupport.LastExchange(t, s); x.End != fault.EndComplete || x.BytesIn != int64(len(head)) {
		t.Errorf("drain=0 row %+v", x)
	}

	c := testsupport.Dial(t, s.FaultURL())
	head = "POST /early-response?code=401&drain=1 HTTP/1.1\r\nHost: gb\r\nContent-Length: 4\r\nExpect: 100-continue\r\n\r\n"
	testsupport.Expect(t, c, head, "HTTP/1.1 401 Unauthorized\r\nContent-Length: 13\r\n\r\nUnauthorized\n")
	io.WriteString(c, "body")
	checkKeptAlive(t, c)
	rows := s.Ledger().Exchanges
	if x := rows[len(rows)-2]; x.BytesIn != int64(len(head)+4) {
		t.Errorf("drain=1 row %+v", x)
	}
}
