package h1

import (
	"strings"
	"testing"
)

// A keep-alive response with a 10 KiB body, and a small chunked one with
// extensions and trailers.
var (
	// respNginx6B is nginx 1.22's reply to a GET of a 6-byte static file:
	// benchrun's "nginx 6 B" cell, where parsing is most of gb's user time.
	respNginx6B = "HTTP/1.1 200 OK\r\nServer: nginx/1.22.1\r\nDate: Wed, 25 Nov 2026 14:30:45 GMT\r\n" +
		"Content-Type: text/plain\r\nContent-Length: 6\r\nLast-Modified: Wed, 25 Nov 2026 04:49:19 GMT\r\n" +
		"Connection: keep-alive\r\nETag: \"6b0668cf-6\"\r\nAccept-Ranges: bytes\r\n\r\nx12345"
	respCL10K      = "HTTP/1.1 200 OK\r\nServer: bench\r\nContent-Type: text/plain\r\nContent-Length: 10240\r\n\r\n" + strings.Repeat("b", 10240)
	respChunkSmall = "HTTP/1.1 200 OK\r\nServer: bench\r\nTransfer-Encoding: chunked\r\n\r\n" +
		"5;ext=1\r\nhello\r\nA\r\n0123456789\r\n0\r\nX-Checksum: abc\r\nX-Other: 1\r\n\r\n"
)

// readOne reads one response off r and fails unless it is the keep-alive
// 200 the source replays.
func readOne(tb testing.TB, r *Reader, resp *Response, body int64) {
	if err := r.ReadHeader(resp, false); err != nil {
		tb.Fatal(err)
	}
	if err := r.ReadBody(resp); err != nil {
		tb.Fatal(err)
	}
	if resp.Status != 200 || !resp.KeepAlive || resp.BodyBytes != body {
		tb.Fatalf("unexpected response %+v", resp)
	}
}

func TestReaderAllocs(t *testing.T) {
	if testing.CoverMode() != "" {
		t.Skip("coverage counters change allocation counts")
	}
	for _, tt := range []struct {
		name string
		in   string
		body int64
	}{
		{"content-length", respCL10K, 10240},
		{"chunked with trailers", respChunkSmall, 15},
	} {
		t.Run(tt.name, func(t *testing.T) {
			for _, size := range []int{0, 4096} {
				r := NewReader(&loopSource{data: []byte(tt.in)}, size, Limits{})
				var resp Response
				readOne(t, r, &resp, tt.body) // warm up
				if allocs := testing.AllocsPerRun(200, func() { readOne(t, r, &resp, tt.body) }); allocs != 0 {
					t.Errorf("buffer %d: %v allocations per response, want 0", size, allocs)
				}
			}
		})
	}

	// Errors are preallocated values: failing responses allocate nothing.
	t.Run("errors", func(t *testing.T) {
		for _, in := range []string{"garbage\r\n", "\x16\x03\x01", "HTTP/1.1 200 OK\r\nContent-Length: x\r\n\r\n", hChunked + "zz\r\n", hCL5 + "he"} {
			src := &chunkSource{}
			r := NewReader(src, 0, Limits{})
			var resp Response
			data := []byte(in)
			allocs := testing.AllocsPerRun(100, func() {
				*src = chunkSource{data: data}
				r.Reset(src)
				err := r.ReadHeader(&resp, false)
				if err == nil {
					err = r.ReadBody(&resp)
				}
				if err == nil {
					t.Fatalf("%q: no error", in)
				}
			})
			if allocs != 0 {
				t.Errorf("%q: %v allocations per failed response, want 0", in, allocs)
			}
		}
	})
}

func BenchmarkReadResponse(b *testing.B) {
	for _, bb := range []struct {
		name string
		in   string
		body int64
	}{
		{"CL10KiB", respCL10K, 10240},
		{"ChunkedSmall", respChunkSmall, 15},
		{"Nginx6B", respNginx6B, 6},
	} {
		b.Run(bb.name, func(b *testing.B) {
			r := NewReader(&loopSource{data: []byte(bb.in)}, 0, Limits{})
			var resp Response
			b.ReportAllocs()
			b.SetBytes(int64(len(bb.in)))
			for b.Loop() {
				readOne(b, r, &resp, bb.body)
			}
		})
	}
}

func BenchmarkAppendRequest(b *testing.B) {
	for _, bb := range []struct {
		name string
		req  Request
	}{
		{"GET", Request{Target: "/index.html", Host: "example.com:8080", UserAgent: "gb/1.0",
			Headers: []Header{{"Authorization", "Bearer token"}, {"X-Request", "1"}}}},
		{"POST", Request{Method: "POST", Target: "/submit", Host: "example.com", UserAgent: "gb/1.0",
			Body: []byte(strings.Repeat("p", 1000)), ContentType: "application/json"}},
	} {
		b.Run(bb.name, func(b *testing.B) {
			buf := bb.req.Append(nil)
			b.ReportAllocs()
			b.SetBytes(int64(len(buf)))
			for b.Loop() {
				buf = bb.req.Append(buf[:0])
			}
		})
	}
}
