package fault

import (
	"bufio"
	"errors"
	"io"
	"strings"
	"testing"
)

func TestReadRequest(t *testing.T) {
	raw := "POST /a/b?x=1&y=%20 HTTP/1.1\r\nHost: gb\r\nContent-Length: 3\r\nConnection: keep-alive, close\r\n" +
		"Expect: 100-continue\r\nX-Gb-Seq: 9\r\nAuthorization: Basic eDp5\r\nCookie: a=b\r\n\r\nabc"
	req, err := readRequest(bufio.NewReader(strings.NewReader(raw)))
	if err != nil {
		t.Fatal(err)
	}
	if req.method != "POST" || req.path != "/a/b" || req.query.Get("y") != " " || req.contentLength != 3 ||
		!req.close || !req.expect100 || req.tag != "9" || !req.auth || !req.cookie || req.headBytes != int64(len(raw)-3) {
		t.Errorf("parsed %+v", req)
	}
	for raw, wantClose := range map[string]bool{
		"GET / HTTP/1.1\r\n\r\n":                           false,
		"GET / HTTP/1.0\r\n\r\n":                           true,
		"GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n": false,
		"GET / HTTP/1.1\r\nConnection: Close\r\n\r\n":      true,
	} {
		req, err := readRequest(bufio.NewReader(strings.NewReader(raw)))
		if err != nil || req.close != wantClose || req.contentLength != -1 {
			t.Errorf("%q: close %v, %v", raw, req != nil && req.close, err)
		}
	}
}

func TestReadRequestErrors(t *testing.T) {
	if _, err := readRequest(bufio.NewReader(strings.NewReader(""))); err != io.EOF {
		t.Errorf("empty input: %v, want io.EOF", err)
	}
	for raw, code := range map[string]int{
		"GET / HTTP/1.1\r\nHost: gb\r\n":               400, // cut short
		"GET /\r\n\r\n":                                400,
		"GET  / HTTP/1.1\r\n\r\n":                      400,
		"G@T / HTTP/1.1\r\n\r\n":                       400,
		"GET %zz HTTP/1.1\r\n\r\n":                     400,
		"GET /?a=%zz HTTP/1.1\r\n\r\n":                 400,
		"GET / HTTP/1.1\r\nContent-Length: -1\r\n\r\n": 400,
		"GET / HTTP/1.1\r\n" + strings.Repeat("X-Pad: "+strings.Repeat("a", 8000)+"\r\n", 9) + "\r\n": 431,
	} {
		_, err := readRequest(bufio.NewReaderSize(strings.NewReader(raw), maxLine))
		var re *requestError
		if !errors.As(err, &re) || re.code != code {
			t.Errorf("%.40q: %v, want %d", raw, err, code)
		}
	}
}
