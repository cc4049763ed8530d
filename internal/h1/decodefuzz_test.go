package h1

import (
	"fmt"
	"testing"

	"github.com/gb-bench/gb/internal/decode"
	"github.com/gb-bench/gb/internal/testsupport"
)

// frameResult is one response as read: its framing counts and how it
// ended.
type frameResult struct {
	status       int
	header, body int64
	err          error // nil for a decode failure, which decoded marks
	decoded      bool
}

// readDecoding reads up to 8 responses, with a decoder or without, and
// returns each one's result, stopping at the first error that is not a
// decode failure.
func readDecoding(t *testing.T, data, sizes []byte, dec *decode.Body) []frameResult {
	r := NewReader(&fuzzSource{t: t, data: data, sizes: sizes}, 0, Limits{})
	r.SetDecoder(dec)
	var out []frameResult
	var resp Response
	for range 8 {
		err := r.ReadHeader(&resp, false)
		if err == nil {
			err = r.ReadBody(&resp)
		}
		res := frameResult{status: resp.Status, header: resp.HeaderBytes, body: resp.BodyBytes, err: err}
		if decode.IsError(err) {
			res.err, res.decoded = nil, true
		}
		out = append(out, res)
		if res.err != nil {
			break
		}
	}
	return out
}

// FuzzDecodeFraming: reading with a decoder frames every response exactly
// as reading without one: the same statuses, header and body byte counts
// and framing errors; decoding only adds decode failures (after which the
// body was still read to its end) to responses that framed fine.
func FuzzDecodeFraming(f *testing.F) {
	for _, enc := range []string{"gzip", "br", "zstd"} {
		wire := string(testsupport.Compress(f, enc, []byte("hello, hello, hello, compressed world")))
		for _, framing := range []string{"length", "chunked", "eof"} {
			in := framed(enc, framing, wire)
			if framing != "eof" {
				in += in
			}
			f.Add([]byte(in), []byte{3, 0, 7})
			f.Add([]byte(in[:len(in)-5]), []byte{1})
		}
		f.Add([]byte(fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Encoding: %s\r\nContent-Length: 4\r\n\r\nabcd", enc)), []byte{2})
	}
	f.Fuzz(func(t *testing.T, data, sizes []byte) {
		plain := readDecoding(t, data, sizes, nil)
		coded := readDecoding(t, data, sizes, decode.NewBody(decode.All))
		if len(plain) != len(coded) {
			t.Fatalf("%d responses without a decoder, %d with:\n%+v\n%+v", len(plain), len(coded), plain, coded)
		}
		for i := range plain {
			p, c := plain[i], coded[i]
			if p.status != c.status || p.header != c.header || p.body != c.body || p.err != c.err {
				t.Fatalf("response %d: without a decoder %+v, with %+v", i, p, c)
			}
		}
	})
}
