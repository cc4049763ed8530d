package testserver_test

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/gb-bench/gb/internal/testserver"
	"github.com/gb-bench/gb/internal/testsupport"
)

func TestBytes(t *testing.T) {
	s := testsupport.Server(t, testserver.Options{})
	c := client()
	for path, n := range map[string]int{
		"/bytes/0": 0, "/bytes/10": 10, "/bytes/1k": 1024, "/bytes/100000": 100000,
		"/1k.dat": 1024, "/10k.dat": 10240, "/100k.dat": 102400, "/1m.dat": 1 << 20,
	} {
		resp, body := get(t, c, s.URL()+path)
		if resp.StatusCode != 200 || resp.ContentLength != int64(n) || body != testsupport.PatternBody(n) {
			t.Errorf("%s: %d, CL %d, %d bytes", path, resp.StatusCode, resp.ContentLength, len(body))
		}
	}
	for _, path := range []string{"/bytes/x", "/bytes/-1", "/bytes/2g", "/bytes/1.5"} {
		if resp, _ := get(t, c, s.URL()+path); resp.StatusCode != 400 {
			t.Errorf("%s: %d, want 400", path, resp.StatusCode)
		}
	}
}

func TestHelloAndJSON(t *testing.T) {
	s := testsupport.Server(t, testserver.Options{})
	c := client()
	resp, body := get(t, c, s.URL()+"/hello")
	if body != "Hello, World!" || resp.ContentLength != 13 {
		t.Errorf("/hello: %q", body)
	}
	resp, body = get(t, c, s.URL()+"/json")
	if body != `{"message":"Hello, World!"}` || resp.Header.Get("Content-Type") != "application/json" {
		t.Errorf("/json: %q, %q", body, resp.Header.Get("Content-Type"))
	}
}

func TestOK(t *testing.T) {
	s := testsupport.Server(t, testserver.Options{})
	c := client()
	resp, body := get(t, c, s.URL()+"/ok?status=201&size=5&hdr=X-A:1&delay=1ms")
	if resp.StatusCode != 201 || body != "abcde" || resp.Header.Get("X-A") != "1" {
		t.Errorf("/ok: %d %q %v", resp.StatusCode, body, resp.Header)
	}
	if resp, body := get(t, c, s.URL()+"/ok?status=204&size=5"); resp.StatusCode != 204 || body != "" {
		t.Errorf("204: %d %q", resp.StatusCode, body)
	}
	if resp, _ := get(t, c, s.URL()+"/status?s=503"); resp.StatusCode != 503 {
		t.Errorf("/status?s=503: %d", resp.StatusCode)
	}
	if resp, _ := get(t, c, s.URL()+"/delay?d=1"); resp.StatusCode != 200 {
		t.Errorf("/delay?d=1: %d", resp.StatusCode)
	}
	for _, path := range []string{"/ok?status=abc", "/ok?delay=x", "/ok?size=-1", "/ok?hdr=bad", "/status?s=200:a", "/delay?d=1h1s"} {
		if resp, _ := get(t, c, s.URL()+path); resp.StatusCode != 400 {
			t.Errorf("%s: %d, want 400", path, resp.StatusCode)
		}
	}
	resp, _ = get(t, c, s.URL()+"/close?size=1")
	if !resp.Close {
		t.Error("/close did not close")
	}
}

func TestOKPostBodyKeepsAlive(t *testing.T) {
	s := testsupport.Server(t, testserver.Options{})
	c := client()
	for range 3 {
		resp, err := c.Post(s.URL()+"/ok", "text/plain", strings.NewReader(strings.Repeat("x", 1<<20)))
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	if l := s.Ledger().HTTP; l.Conns != 1 || l.Requests != 3 || l.BytesIn < 3<<20 {
		t.Errorf("ledger %+v", l)
	}
}

func TestWeightedStatusProportions(t *testing.T) {
	s := testsupport.Server(t, testserver.Options{})
	c := client()
	seq := func(s *testserver.Server, n int) []int {
		codes := make([]int, n)
		for i := range codes {
			resp, _ := get(t, c, s.URL()+"/status?s=200:90,503:10&seed=7")
			codes[i] = resp.StatusCode
		}
		return codes
	}
	codes := seq(s, 1000)
	n503 := 0
	for _, c := range codes {
		if c == 503 {
			n503++
		}
	}
	if n503 < 70 || n503 > 130 { // 10% ± 3σ (σ ≈ 9.5); fixed by the seed
		t.Errorf("%d of 1000 were 503, want about 100", n503)
	}
	s.ResetLedger() // restarts the sequence
	other := testsupport.Server(t, testserver.Options{})
	a, b := seq(s, 100), seq(other, 100)
	for i := range a {
		if a[i] != b[i] || a[i] != codes[i] {
			t.Fatalf("sequences differ at %d: %v / %v / %v", i, a[i], b[i], codes[i])
		}
	}
}

func TestChunkedTrailers(t *testing.T) {
	s := testsupport.Server(t, testserver.Options{})
	resp, body := get(t, client(), s.URL()+"/chunked?n=5&size=100&trailers=X-T:1")
	if len(resp.TransferEncoding) != 1 || resp.TransferEncoding[0] != "chunked" || body != testsupport.PatternBody(500) || resp.Trailer.Get("X-T") != "1" {
		t.Errorf("TE %v, %d bytes, trailer %v", resp.TransferEncoding, len(body), resp.Trailer)
	}
	c := testsupport.Dial(t, s.URL())
	io.WriteString(c, testsupport.GET("/chunked?n=3&size=100", "Connection: close"))
	raw, _ := testsupport.ReadAll(t, c)
	if n := strings.Count(raw, "\r\n64\r\n"); n != 3 || !strings.HasSuffix(raw, "\r\n0\r\n\r\n") {
		t.Errorf("%d wire chunks of 100 bytes in %q", n, raw)
	}
	if resp, _ := get(t, client(), s.URL()+"/chunked?size=99999999"); resp.StatusCode != 400 {
		t.Errorf("huge chunk: %d", resp.StatusCode)
	}
}

func TestLeftpad(t *testing.T) {
	for _, tc := range []struct {
		s    string
		n    int
		ch   rune
		want string
	}{
		{"foo", 5, '0', "00foo"}, {"foo", 2, '0', "foo"}, {"", 3, ' ', "   "}, {"é", 3, '→', "→→é"},
	} {
		if got := testserver.Leftpad(tc.s, tc.n, tc.ch); got != tc.want {
			t.Errorf("leftpad(%q, %d, %q) = %q", tc.s, tc.n, tc.ch, got)
		}
	}
	s := testsupport.Server(t, testserver.Options{})
	c := client()
	resp, body := get(t, c, s.URL()+"/leftpad?str=foo&len=5&chr=0")
	var r struct {
		Str string `json:"str"` // the reply is {"str":"..."}
	}
	if err := json.Unmarshal([]byte(body), &r); err != nil || r.Str != "00foo" || resp.Header.Get("Content-Type") != "application/json" {
		t.Errorf("/leftpad: %q %v", body, err)
	}
	for _, q := range []string{"len=70000", "len=x", "len=3&chr=ab", "len=3&chr="} {
		if resp, _ := get(t, c, s.URL()+"/leftpad?"+q); resp.StatusCode != 400 {
			t.Errorf("/leftpad?%s: %d, want 400", q, resp.StatusCode)
		}
	}
}

func TestPprofAndExpvar(t *testing.T) {
	s := testsupport.Server(t, testserver.Options{})
	c := client()
	if resp, body := get(t, c, s.URL()+"/debug/pprof/"); resp.StatusCode != 200 || !strings.Contains(body, "goroutine") {
		t.Errorf("pprof index: %d", resp.StatusCode)
	}
	if resp, _ := get(t, c, s.URL()+"/debug/pprof/heap?debug=1"); resp.StatusCode != 200 {
		t.Errorf("heap: %d", resp.StatusCode)
	}
	if resp, body := get(t, c, s.URL()+"/debug/vars"); resp.StatusCode != 200 || !strings.Contains(body, `"memstats"`) {
		t.Errorf("expvar: %d", resp.StatusCode)
	}
	if l := s.Ledger().HTTP; l.Requests != 0 || l.Conns != 0 || l.BytesIn != 0 {
		t.Errorf("debug requests counted: %+v", l)
	}
	off := testsupport.Server(t, testserver.Options{NoPprof: true})
	for _, path := range []string{"/debug/pprof/", "/debug/vars"} {
		if resp, _ := get(t, c, off.URL()+path); resp.StatusCode != 404 {
			t.Errorf("NoPprof %s: %d", path, resp.StatusCode)
		}
	}
}

func TestIndexAndEndpoints(t *testing.T) {
	s := testsupport.Server(t, testserver.Options{})
	_, body := get(t, client(), s.URL()+"/")
	for _, e := range s.Endpoints() {
		if !strings.Contains(body, e.Path) || e.Description == "" {
			t.Errorf("endpoint %+v missing from the index", e)
		}
	}
	if len(s.Endpoints()) < 40 {
		t.Errorf("only %d endpoints", len(s.Endpoints()))
	}
}

func TestH2C(t *testing.T) {
	s := testsupport.Server(t, testserver.Options{})
	p := new(http.Protocols)
	p.SetUnencryptedHTTP2(true)
	c := &http.Client{Timeout: testsupport.Guard, Transport: &http.Transport{Protocols: p}}
	resp, body := get(t, c, s.URL()+"/bytes/3")
	if resp.ProtoMajor != 2 || body != "abc" {
		t.Errorf("h2c: %s %q", resp.Proto, body)
	}
	if l := s.Ledger().HTTP; l.Requests != 1 {
		t.Errorf("ledger %+v", l)
	}
}

func TestRawMainListener(t *testing.T) {
	s := testsupport.Server(t, testserver.Options{})
	c := testsupport.Dial(t, s.URL())
	io.WriteString(c, testsupport.GET("/bytes/4")+testsupport.GET("/hello", "Connection: close"))
	br := bufio.NewReader(c)
	if _, body := readResponse(t, br); body != "abcd" {
		t.Errorf("first: %q", body)
	}
	if resp, body := readResponse(t, br); body != "Hello, World!" || !resp.Close {
		t.Errorf("second: %q", body)
	}
}
