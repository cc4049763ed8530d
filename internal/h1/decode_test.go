package h1

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/gb-bench/gb/internal/decode"
	"github.com/gb-bench/gb/internal/testsupport"
)

// compressed returns s encoded as enc by a real encoder.
func compressed(t testing.TB, enc string, s string) string {
	return string(testsupport.Compress(t, enc, []byte(s)))
}

// chunk frames body as chunks of at most n bytes with an extension and a
// trailer.
func chunk(body string, n int) string {
	var b strings.Builder
	for len(body) > 0 {
		k := min(n, len(body))
		fmt.Fprintf(&b, "%x;x=y\r\n%s\r\n", k, body[:k])
		body = body[k:]
	}
	b.WriteString("0\r\nX-Trailer: 1\r\n\r\n")
	return b.String()
}

// framed returns a response carrying wire (a compressed body) with
// Content-Encoding enc, framed as framing.
func framed(enc, framing, wire string) string {
	h := "HTTP/1.1 200 OK\r\nContent-Encoding: " + enc + "\r\n"
	switch framing {
	case "length":
		return h + fmt.Sprintf("Content-Length: %d\r\n\r\n", len(wire)) + wire
	case "chunked":
		return h + "Transfer-Encoding: chunked\r\n\r\n" + chunk(wire, 1000)
	}
	return h + "Connection: close\r\n\r\n" + wire
}

func TestDecodeFramings(t *testing.T) {
	plain := strings.Repeat("hello, compressed world! ", 4000) // 100000 bytes
	next := "HTTP/1.1 204 No Content\r\n\r\n"
	for _, enc := range []string{"gzip", "br", "zstd"} {
		wire := compressed(t, enc, plain)
		for _, framing := range []string{"length", "chunked", "eof"} {
			for _, size := range []int{1, 7, 0} {
				name := fmt.Sprintf("%s/%s/reads of %d", enc, framing, size)
				in := framed(enc, framing, wire)
				if framing != "eof" {
					in += next // a second response on the same connection
				}
				r := NewReader(&chunkSource{data: []byte(in), size: size}, 0, Limits{})
				r.SetDecoder(decode.NewBody(decode.All))
				var resp Response
				if err := r.ReadHeader(&resp, false); err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if err := r.ReadBody(&resp); err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if resp.Encoding.String() != enc || resp.BodyBytes != int64(len(wire)) || resp.Decoded != int64(len(plain)) {
					t.Errorf("%s: encoding %v, body %d (want %d), decoded %d (want %d)",
						name, resp.Encoding, resp.BodyBytes, len(wire), resp.Decoded, len(plain))
				}
				if framing == "eof" {
					continue
				}
				// The framing stayed exact: the next response reads.
				if err := r.ReadHeader(&resp, false); err != nil || resp.Status != 204 {
					t.Errorf("%s: next response %d, %v", name, resp.Status, err)
				}
			}
		}
	}
}

func TestDecodeFailuresFramed(t *testing.T) {
	plain := strings.Repeat("abcdefgh", 10000)
	wire := compressed(t, "gzip", plain)
	corrupt := []byte(wire)
	for i := 100; i < 140; i++ {
		corrupt[i] ^= 0xff
	}
	cases := []struct {
		name, in string
		want     func(error) bool // nil: a decode failure, after which the body was drained
	}{
		{"corrupt", framed("gzip", "length", string(corrupt)), nil},
		{"stream cut, framing complete", framed("gzip", "length", wire[:len(wire)/2]), nil},
		{"not asked for", framed("br", "length", compressed(t, "br", plain)), nil},
		{"unknown coding", framed("deflate", "length", "xyz"), nil},
		{"connection closed inside the body", framed("gzip", "length", wire)[:200], func(err error) bool { return errors.Is(err, ErrTruncated) }},
		{"malformed chunk", "HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n\r\n" +
			fmt.Sprintf("32\r\n%s\r\nzz\r\n", wire[:50]), IsProtocol},
	}
	const next = "HTTP/1.1 204 No Content\r\n\r\n"
	for _, c := range cases {
		in := c.in
		decodeFailure := c.want == nil
		if decodeFailure {
			c.want = decode.IsError
		}
		if decodeFailure {
			in += next
		}
		r := NewReader(&chunkSource{data: []byte(in), size: 100}, 0, Limits{})
		r.SetDecoder(decode.NewBody(decode.Accepted("gzip, zstd")))
		var resp Response
		if err := r.ReadHeader(&resp, false); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if err := r.ReadBody(&resp); !c.want(err) {
			t.Errorf("%s: %v", c.name, err)
		}
		if !decodeFailure {
			continue
		}
		// The body was read to its end: the next response follows.
		if err := r.ReadHeader(&resp, false); err != nil || resp.Status != 204 {
			t.Errorf("%s: the next response: %d, %v", c.name, resp.Status, err)
		}
	}
}

// Without a decoder, Content-Encoding is not even looked at; HEAD, 204 and
// 304 never decode; an identity body is read as before.
func TestDecodeNotApplied(t *testing.T) {
	in := "HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: 5\r\n\r\nhello"
	r := NewReader(&chunkSource{data: []byte(in)}, 0, Limits{})
	var resp Response
	if err := r.ReadHeader(&resp, false); err != nil {
		t.Fatal(err)
	}
	if err := r.ReadBody(&resp); err != nil || resp.Encoding != decode.Identity || resp.Decoded != 0 {
		t.Errorf("no decoder: %v %v %d", err, resp.Encoding, resp.Decoded)
	}
	for _, in := range []string{
		"HTTP/1.1 304 Not Modified\r\nContent-Encoding: gzip\r\nContent-Length: 99\r\n\r\n",
		"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello",
	} {
		r := NewReader(&chunkSource{data: []byte(in)}, 0, Limits{})
		r.SetDecoder(decode.NewBody(decode.All))
		if err := r.ReadHeader(&resp, false); err != nil {
			t.Fatal(err)
		}
		if err := r.ReadBody(&resp); err != nil || resp.Decoded != 0 {
			t.Errorf("%q: %v, decoded %d", in, err, resp.Decoded)
		}
	}
}

func TestDecodeReaderAllocs(t *testing.T) {
	if testing.CoverMode() != "" {
		t.Skip("coverage counters change allocation counts")
	}
	plain := strings.Repeat("0123456789", 3000)
	for _, enc := range []string{"gzip", "zstd"} {
		if enc == "zstd" && raceEnabled {
			// zstd's decoder keeps its Huffman and FSE tables in sync.Pools,
			// which the race detector empties at random: allocations then
			// vary from run to run.
			continue
		}
		for _, framing := range []string{"length", "chunked"} {
			r := NewReader(&loopSource{data: []byte(framed(enc, framing, compressed(t, enc, plain)))}, 0, Limits{})
			r.SetDecoder(decode.NewBody(decode.All))
			var resp Response
			read := func() {
				if err := r.ReadHeader(&resp, false); err != nil {
					t.Fatal(err)
				}
				if err := r.ReadBody(&resp); err != nil || resp.Decoded != int64(len(plain)) {
					t.Fatalf("%v, decoded %d", err, resp.Decoded)
				}
			}
			read() // the decoder is made on first use
			if allocs := testing.AllocsPerRun(100, read); allocs != 0 {
				t.Errorf("%s %s: %v allocations per response, want 0", enc, framing, allocs)
			}
		}
	}
}

func BenchmarkReaderDecode(b *testing.B) {
	plain := strings.Repeat("0123456789", 1024) // 10 KiB
	for _, enc := range []string{"gzip", "br", "zstd"} {
		in := framed(enc, "length", compressed(b, enc, plain))
		b.Run(enc, func(b *testing.B) {
			r := NewReader(&loopSource{data: []byte(in)}, 0, Limits{})
			r.SetDecoder(decode.NewBody(decode.All))
			var resp Response
			b.ReportAllocs()
			for b.Loop() {
				_ = r.ReadHeader(&resp, false)
				if err := r.ReadBody(&resp); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
