package h1

import (
	"strings"
	"testing"
)

// TestKeep reads responses with Reader.Keep set: the final response's
// header lines (not an interim one's) and its body, de-chunked and cut at
// MaxBody, while the framing and counts stay as without Keep.
func TestKeep(t *testing.T) {
	in := "HTTP/1.1 100 Continue\r\nX-Interim: 1\r\n\r\n" +
		"HTTP/1.1 200 OK\r\nX-Token: abc\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nhel\r\n4\r\nlo w\r\n0\r\n\r\n" +
		"HTTP/1.1 404 Not Found\r\nContent-Length: 10\r\n\r\n0123456789"
	r := NewReader(strings.NewReader(in), 0, Limits{})
	k := &Kept{MaxBody: 6}
	r.Keep = k
	var resp Response
	for i, want := range []struct{ fields, body string }{
		{"X-Token: abc\nTransfer-Encoding: chunked\n", "hello "},
		{"Content-Length: 10\n", "012345"},
	} {
		if err := r.ReadHeader(&resp, false); err != nil {
			t.Fatal(err)
		}
		if err := r.ReadBody(&resp); err != nil {
			t.Fatal(err)
		}
		if string(k.Fields) != want.fields || string(k.Body) != want.body {
			t.Errorf("response %d: kept %q and %q, want %q and %q", i, k.Fields, k.Body, want.fields, want.body)
		}
	}
	if resp.BodyBytes != 10 {
		t.Errorf("BodyBytes = %d, want 10: Keep must not change what is read", resp.BodyBytes)
	}
}
