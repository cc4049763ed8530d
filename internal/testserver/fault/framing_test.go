package fault_test

import (
	"bufio"
	"io"
	"strings"
	"testing"

	"github.com/gb-bench/gb/internal/testserver"
	"github.com/gb-bench/gb/internal/testserver/fault"
	"github.com/gb-bench/gb/internal/testsupport"
)

func TestFaultLengthMismatch(t *testing.T) {
	s := testsupport.Server(t, testserver.Options{})
	c := testsupport.Dial(t, s.FaultURL())
	// Too long: the excess is on the wire, right before the next response.
	testsupport.Expect(t, c, testsupport.GET("/length-mismatch"), "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n"+testsupport.PatternBody(20))
	checkKeptAlive(t, c)

	c = testsupport.Dial(t, s.FaultURL())
	testsupport.Expect(t, c, testsupport.GET("/length-mismatch?declared=100&actual=50"), "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n"+testsupport.PatternBody(50))
	testsupport.WaitFor(t, "the hold", func() bool { return s.Ledger().Ends()[fault.EndOpen] == 1 })
	c.Close()
	if x := testsupport.LastExchange(t, s); x.End != fault.EndClientGone {
		t.Errorf("short body row %+v", x)
	}
}

func TestFaultCLInvalid(t *testing.T) {
	s := testsupport.Server(t, testserver.Options{})
	for v, hdr := range map[string]string{
		"":                     "Content-Length: abc\r\n",
		"abc":                  "Content-Length: abc\r\n",
		"-1":                   "Content-Length: -1\r\n",
		"10,20":                "Content-Length: 10,20\r\n",
		"dup":                  "Content-Length: 10\r\nContent-Length: 20\r\n",
		"99999999999999999999": "Content-Length: 99999999999999999999\r\n",
	} {
		got, end := testsupport.RoundTrip(t, s.FaultURL(), testsupport.GET("/cl-invalid?v="+v))
		want := "HTTP/1.1 200 OK\r\nConnection: close\r\n" + hdr + "\r\nabcdefghij"
		if got != want || end != "fin" {
			t.Errorf("v=%s: %q, %s", v, got, end)
		}
	}
}

func TestFaultCLAndTE(t *testing.T) {
	s := testsupport.Server(t, testserver.Options{})
	c := testsupport.Dial(t, s.FaultURL())
	testsupport.Expect(t, c, testsupport.GET("/cl-and-te?size=20"),
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 20\r\n\r\n14\r\n"+testsupport.PatternBody(20)+"\r\n0\r\n\r\n")
	checkKeptAlive(t, c)
}

func TestFaultTE(t *testing.T) {
	s := testsupport.Server(t, testserver.Options{})
	got, end := testsupport.RoundTrip(t, s.FaultURL(), testsupport.GET("/te?size=5"))
	if got != "HTTP/1.1 200 OK\r\nConnection: close\r\nTransfer-Encoding: gzip\r\n\r\nabcde" || end != "fin" {
		t.Errorf("gzip: %q, %s", got, end)
	}
	c := testsupport.Dial(t, s.FaultURL())
	testsupport.Expect(t, c, testsupport.GET("/te?v=gzip,%20chunked&size=5"),
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n5\r\nabcde\r\n0\r\n\r\n")
	checkKeptAlive(t, c)
}

func TestFaultChunked(t *testing.T) {
	s := testsupport.Server(t, testserver.Options{})
	c := testsupport.Dial(t, s.FaultURL())
	testsupport.Expect(t, c, testsupport.GET("/chunked?n=2&size=3&ext=a%3Db&trailers=X-T:1,X-U:2"),
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nTrailer: X-T\r\nTrailer: X-U\r\n\r\n"+
			"3;a=b\r\nabc\r\n3;a=b\r\ndef\r\n0;a=b\r\nX-T: 1\r\nX-U: 2\r\n\r\n")
	checkKeptAlive(t, c)

	head := "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
	cases := []struct{ bad, body, end string }{
		{"missing-final", "2\r\nab\r\n2\r\ncd\r\n", "fin"},
		{"bad-hex", "xyz\r\nab\r\n2\r\ncd\r\n0\r\n\r\n", "fin"},
		{"overflow", "10000000000000000\r\nab\r\n2\r\ncd\r\n0\r\n\r\n", "fin"},
		{"no-crlf", "2\r\nab2\r\ncd0\r\n\r\n", "fin"},
		{"long-ext", "2;x=" + strings.Repeat("a", fault.LongLine) + "\r\nab\r\n2\r\ncd\r\n0\r\n\r\n", "fin"},
		{"long-line", strings.Repeat("0", fault.LongLine) + "2\r\nab\r\n2\r\ncd\r\n0\r\n\r\n", "fin"},
	}
	for _, tc := range cases {
		got, end := testsupport.RoundTrip(t, s.FaultURL(), testsupport.GET("/chunked?n=2&size=2&bad="+tc.bad))
		if got != head+tc.body || end != tc.end {
			t.Errorf("bad=%s: %.200q, %s", tc.bad, got, end)
		}
		want := fault.EndComplete
		if tc.bad == "missing-final" {
			want = fault.EndFIN
		}
		if x := testsupport.LastExchange(t, s); x.End != want {
			t.Errorf("bad=%s: row %+v", tc.bad, x)
		}
	}
}

func TestFault1xx(t *testing.T) {
	s := testsupport.Server(t, testserver.Options{})
	c := testsupport.Dial(t, s.FaultURL())
	testsupport.Expect(t, c, testsupport.GET("/1xx?codes=100,103"), "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\n\r\n"+ok)
	testsupport.Expect(t, c, testsupport.GET("/1xx?n=3"), strings.Repeat("HTTP/1.1 100 Continue\r\n\r\n", 3)+ok)
	checkKeptAlive(t, c)
	got, end := testsupport.RoundTrip(t, s.FaultURL(), testsupport.GET("/101"))
	if got != "HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: gb-test\r\n\r\n" || end != "fin" {
		t.Errorf("101: %q, %s", got, end)
	}
}

func TestFaultNoBody(t *testing.T) {
	s := testsupport.Server(t, testserver.Options{})
	c := testsupport.Dial(t, s.FaultURL())
	testsupport.Expect(t, c, testsupport.GET("/nobody?cl=1000"), "HTTP/1.1 204 No Content\r\nContent-Length: 1000\r\n\r\n")
	testsupport.Expect(t, c, testsupport.GET("/nobody?code=304&te=chunked"), "HTTP/1.1 304 Not Modified\r\nTransfer-Encoding: chunked\r\n\r\n")
	checkKeptAlive(t, c)
}

func TestFaultHead(t *testing.T) {
	s := testsupport.Server(t, testserver.Options{})
	c := testsupport.Dial(t, s.FaultURL())
	testsupport.Expect(t, c, testsupport.Request("HEAD", "/head?cl=1e9"), "HTTP/1.1 200 OK\r\nContent-Length: 1000000000\r\n\r\n")
	testsupport.Expect(t, c, testsupport.GET("/head?cl=4"), "HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nabcd")
	checkKeptAlive(t, c)
}

func TestFaultHTTP10(t *testing.T) {
	s := testsupport.Server(t, testserver.Options{})
	got, end := testsupport.RoundTrip(t, s.FaultURL(), testsupport.GET("/http10"))
	if got != "HTTP/1.0 200 OK\r\n\r\n"+testsupport.PatternBody(100) || end != "fin" {
		t.Errorf("ka=0: %q, %s", got, end)
	}
	if x := testsupport.LastExchange(t, s); x.End != fault.EndComplete {
		t.Errorf("ka=0 row %+v", x)
	}
	c := testsupport.Dial(t, s.FaultURL())
	testsupport.Expect(t, c, testsupport.GET("/http10?ka=1&size=3"), "HTTP/1.0 200 OK\r\nContent-Length: 3\r\nConnection: keep-alive\r\n\r\nabc")
	checkKeptAlive(t, c)
}

func TestFaultHeaderOddities(t *testing.T) {
	s := testsupport.Server(t, testserver.Options{})
	c := testsupport.Dial(t, s.FaultURL())
	testsupport.Expect(t, c, testsupport.GET("/fold"), "HTTP/1.1 200 OK\r\nContent-Length: 0\r\nX-Fold: a\r\n b\r\n\r\n")
	testsupport.Expect(t, c, testsupport.GET("/bare-lf?size=2"), "HTTP/1.1 200 OK\nContent-Length: 2\n\nab")
	testsupport.Expect(t, c, testsupport.GET("/space-colon"), "HTTP/1.1 200 OK\r\nContent-Length: 0\r\nX-Space : 1\r\n\r\n")
	testsupport.Expect(t, c, testsupport.GET("/space-colon?name=Content-Length"), "HTTP/1.1 200 OK\r\nContent-Length: 0\r\nContent-Length : 1\r\n\r\n")
	testsupport.Expect(t, c, testsupport.GET("/non-ascii-hdr"), "HTTP/1.1 200 OK\r\nContent-Length: 0\r\nX-Non-Ascii: caf\xc3\xa9 \xff\xfe\r\n\r\n")
	checkKeptAlive(t, c)
}

func TestFaultBigHeaders(t *testing.T) {
	s := testsupport.Server(t, testserver.Options{})
	c := testsupport.Dial(t, s.FaultURL())
	io.WriteString(c, testsupport.GET("/big-headers?bytes=100000&count=10"))
	br := bufio.NewReader(c)
	var head strings.Builder
	for !strings.HasSuffix(head.String(), "\r\n\r\n") {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		head.WriteString(line)
	}
	h := head.String()
	if n := strings.Count(h, "\r\nX-Big-"); n != 10 || len(h) < 100000 || len(h) > 100100 {
		t.Errorf("%d X-Big lines, %d bytes", n, len(h))
	}
	checkKeptAlive(t, c)
}

func TestFaultBigBody(t *testing.T) {
	s := testsupport.Server(t, testserver.Options{})
	const n = 10 << 20
	got, end := testsupport.RoundTrip(t, s.FaultURL(), testsupport.GET("/big-body?bytes=10MiB", "Connection: close"))
	head := "HTTP/1.1 200 OK\r\nContent-Length: 10485760\r\nConnection: close\r\n\r\n"
	if len(got) != len(head)+n || got[:len(head)] != head || end != "fin" {
		t.Fatalf("%d bytes, %s, head %.80q", len(got), end, got)
	}
	for i := 0; i < n; i += 4093 {
		if got[len(head)+i] != 'a'+byte(i%26) {
			t.Fatalf("body byte %d is %q", i, got[len(head)+i])
		}
	}
	if x := testsupport.LastExchange(t, s); x.BytesOut != int64(len(got)) {
		t.Errorf("row %+v", x)
	}
}

func TestFaultGarbage(t *testing.T) {
	s := testsupport.Server(t, testserver.Options{})
	for kind, want := range fault.Garbage {
		if got, end := testsupport.RoundTrip(t, s.FaultURL(), testsupport.GET("/garbage?kind="+kind)); got != want || end != "fin" {
			t.Errorf("kind=%s: %q, %s", kind, got, end)
		}
	}
	first, _ := testsupport.RoundTrip(t, s.FaultURL(), testsupport.GET("/garbage?seed=3"))
	other := testsupport.Server(t, testserver.Options{})
	second, _ := testsupport.RoundTrip(t, other.FaultURL(), testsupport.GET("/garbage?seed=3"))
	if len(first) != 64 || first != second || strings.HasPrefix(first, "HTTP/") {
		t.Errorf("random garbage %q and %q", first, second)
	}
}

func TestFaultAuthEcho(t *testing.T) {
	s := testsupport.Server(t, testserver.Options{})
	c := testsupport.Dial(t, s.FaultURL())
	body := `{"authorization":true,"cookie":false}` + "\n"
	testsupport.Expect(t, c, testsupport.GET("/auth-echo", "Authorization: Basic eDp5"),
		"HTTP/1.1 200 OK\r\nContent-Length: 38\r\nContent-Type: application/json\r\n\r\n"+body)
	if x := testsupport.LastExchange(t, s); !x.Auth || x.Cookie {
		t.Errorf("row %+v", x)
	}
}
