package fault_test

import (
	"io"
	"strings"
	"testing"

	"github.com/gb-bench/gb/internal/testserver"
	"github.com/gb-bench/gb/internal/testserver/fault"
	"github.com/gb-bench/gb/internal/testsupport"
)

func TestFaultOK(t *testing.T) {
	s := testsupport.Server(t, testserver.Options{})
	c := testsupport.Dial(t, s.FaultURL())
	testsupport.Expect(t, c, testsupport.GET("/ok"), ok)
	testsupport.Expect(t, c, testsupport.GET("/ok?size=5"), "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nabcde")
	checkKeptAlive(t, c)
	x := testsupport.LastExchange(t, s)
	if x.Seq != 3 || x.End != fault.EndComplete || x.Endpoint != "/ok" {
		t.Errorf("last row %+v", x)
	}
}

func TestFaultCommonParams(t *testing.T) {
	s := testsupport.Server(t, testserver.Options{})
	cases := []struct {
		target, want, end string
	}{
		{"/ok?frame=chunked&size=30", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n1e\r\n" + testsupport.PatternBody(30) + "\r\n0\r\n\r\n", "fin"},
		{"/ok?frame=close&size=3", "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nabc", "fin"},
		{"/ok?ver=1.0&size=2", "HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nab", "fin"},
		{"/ok?conn=silent", "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", "fin"},
		{"/ok?status=503&hdr=X-A:1&hdr=X-B:%20two", "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\nConnection: close\r\nX-A: 1\r\nX-B: two\r\n\r\n", "fin"},
		{"/ok?status=599", "HTTP/1.1 599 Status\r\nContent-Length: 0\r\nConnection: close\r\n\r\n", "fin"},
		{"/ok?size=1e3&frame=close", "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n" + testsupport.PatternBody(1000), "fin"},
	}
	for _, tc := range cases {
		t.Run(tc.target, func(t *testing.T) {
			got, end := testsupport.RoundTrip(t, s.FaultURL(), testsupport.GET(tc.target, "Connection: close"))
			if got != tc.want || end != tc.end {
				t.Errorf("got %q, %s\nwant %q, %s", got, end, tc.want, tc.end)
			}
		})
	}
}

func TestFaultKeepAliveParams(t *testing.T) {
	s := testsupport.Server(t, testserver.Options{})
	c := testsupport.Dial(t, s.FaultURL())
	testsupport.Expect(t, c, testsupport.GET("/ok?ver=1.0&size=1"), "HTTP/1.0 200 OK\r\nContent-Length: 1\r\nConnection: keep-alive\r\n\r\na")
	testsupport.Expect(t, c, testsupport.GET("/ok?closeafter=3"), ok)
	got, end := testsupport.RoundTrip(t, s.FaultURL(), testsupport.GET("/ok?conn=close"))
	if got != okClose || end != "fin" {
		t.Errorf("conn=close: %q, %s", got, end)
	}
	// closeafter=3: the third exchange on c is the last.
	if _, err := io.WriteString(c, testsupport.GET("/ok?closeafter=3")); err != nil {
		t.Fatal(err)
	}
	if got, end := testsupport.ReadAll(t, c); got != okClose || end != "fin" {
		t.Errorf("closeafter: %q, %s", got, end)
	}
}

func TestFaultBadParams(t *testing.T) {
	s := testsupport.Server(t, testserver.Options{})
	for _, target := range []string{
		"/ok?status=abc", "/ok?status=99", "/ok?size=-1", "/ok?size=2TiB", "/ok?delay=-1s",
		"/ok?frame=gzip", "/ok?ver=2", "/ok?conn=maybe", "/ok?hdr=bad", "/ok?hdr=X:a%0db",
		"/ok?status=200:x", "/ok?status=200:0", "/ok?seed=-3", "/drip?bytes=2g",
	} {
		got, end := testsupport.RoundTrip(t, s.FaultURL(), testsupport.GET(target, "Connection: close"))
		if !strings.HasPrefix(got, "HTTP/1.1 400 Bad Request\r\n") || end != "fin" {
			t.Errorf("%s: %q, %s", target, got, end)
		}
	}
}

func TestFaultStatusAndDelay(t *testing.T) {
	s := testsupport.Server(t, testserver.Options{})
	c := testsupport.Dial(t, s.FaultURL())
	testsupport.Expect(t, c, testsupport.GET("/status?code=404&size=2"), "HTTP/1.1 404 Not Found\r\nContent-Length: 2\r\n\r\nab")
	testsupport.Expect(t, c, testsupport.GET("/delay?ms=1"), ok)
	testsupport.Expect(t, c, testsupport.GET("/delay?ms=2ms&status=201"), "HTTP/1.1 201 Created\r\nContent-Length: 0\r\n\r\n")
	checkKeptAlive(t, c)
}

func TestFaultNotFound(t *testing.T) {
	s := testsupport.Server(t, testserver.Options{})
	c := testsupport.Dial(t, s.FaultURL())
	msg := "no such fault endpoint: /nope\n"
	testsupport.Expect(t, c, testsupport.GET("/nope"), "HTTP/1.1 404 Not Found\r\nContent-Length: 30\r\n\r\n"+msg)
	checkKeptAlive(t, c)
}

func TestFaultRejectsBadRequests(t *testing.T) {
	s := testsupport.Server(t, testserver.Options{})
	cases := []struct{ raw, status string }{
		{"NOT HTTP\r\n\r\n", "400"},
		{"GET / HTTP/2.0\r\n\r\n", "505"},
		{"GET /ok HTTP/1.1\r\nBad Header\r\n\r\n", "400"},
		{"GET /ok HTTP/1.1\r\nX : 1\r\n\r\n", "400"},
		{"GET /ok HTTP/1.1\r\n folded\r\n\r\n", "400"},
		{"GET /ok HTTP/1.1\r\nContent-Length: x\r\n\r\n", "400"},
		{"GET /ok HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n", "400"},
		{"POST /ok HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n", "501"},
		{"GET /" + strings.Repeat("a", fault.MaxLine) + " HTTP/1.1\r\n\r\n", "431"},
		{"GET /ok HTTP/1.1\r\n" + strings.Repeat("X-A: 1\r\n", fault.MaxFields+1) + "\r\n", "431"},
		{"GET /ok HTTP/1.1\r\nX: a\rb\r\n\r\n", "400"},
	}
	for _, tc := range cases {
		got, end := testsupport.RoundTrip(t, s.FaultURL(), tc.raw)
		if !strings.HasPrefix(got, "HTTP/1.1 "+tc.status+" ") || !strings.Contains(got, "Connection: close\r\n") || end != "fin" {
			t.Errorf("%.40q: %q, %s", tc.raw, got, end)
		}
	}
	if l := s.Ledger(); l.Fault.Requests != 0 || len(l.Exchanges) != 0 {
		t.Errorf("rejected requests were counted: %+v", l.Fault)
	}
}

func TestFaultBareLFRequestAndBody(t *testing.T) {
	s := testsupport.Server(t, testserver.Options{})
	c := testsupport.Dial(t, s.FaultURL())
	testsupport.Expect(t, c, "GET /ok HTTP/1.1\nHost: gb\n\n", ok)
	post := "POST /ok HTTP/1.1\r\nHost: gb\r\nContent-Length: 5\r\nX-Gb-Seq: 42\r\n\r\nhello"
	testsupport.Expect(t, c, post, ok)
	x := testsupport.LastExchange(t, s)
	if x.BytesIn != int64(len(post)) || x.Tag != "42" || x.Method != "POST" || x.BytesOut != int64(len(ok)) {
		t.Errorf("row %+v", x)
	}
}

func TestFaultExpectContinue(t *testing.T) {
	s := testsupport.Server(t, testserver.Options{})
	c := testsupport.Dial(t, s.FaultURL())
	head := "POST /ok HTTP/1.1\r\nHost: gb\r\nContent-Length: 3\r\nExpect: 100-continue\r\n\r\n"
	testsupport.Expect(t, c, head, "HTTP/1.1 100 Continue\r\n\r\n")
	testsupport.Expect(t, c, "abc", ok)
	checkKeptAlive(t, c)
}

func TestFaultHTTP10Request(t *testing.T) {
	s := testsupport.Server(t, testserver.Options{})
	got, end := testsupport.RoundTrip(t, s.FaultURL(), "GET /ok?size=1 HTTP/1.0\r\n\r\n")
	if got != "HTTP/1.1 200 OK\r\nContent-Length: 1\r\nConnection: close\r\n\r\na" || end != "fin" {
		t.Errorf("HTTP/1.0 request: %q, %s", got, end)
	}
	c := testsupport.Dial(t, s.FaultURL())
	testsupport.Expect(t, c, "GET /ok HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n", ok)
	checkKeptAlive(t, c)
}
