package h2

import (
	"bytes"
	"compress/gzip"
	"context"
	"testing"
	"time"

	"github.com/gb-bench/gb/internal/client"
	"github.com/gb-bench/gb/internal/decode"
	"github.com/gb-bench/gb/internal/h1"
	"github.com/gb-bench/gb/internal/load"
	"github.com/gb-bench/gb/stats"
	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

// TestDecodeContentEncodingEverySpelling: with content decoding on, the
// server names gzip in each way HPACK allows (indexed in its table, a
// literal by the static table's name index, plain or Huffman-coded, a
// literal by its own name) and sends every body in two DATA frames: each
// decodes to its size; a body that is not gzip fails as failed.decode on
// the same connection.
func TestDecodeContentEncodingEverySpelling(t *testing.T) { bothEngines(t, testDecodeSpellings) }

func testDecodeSpellings(t *testing.T, loops int) {
	plain := bytes.Repeat([]byte("gb decodes h2 bodies. "), 500)
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	_, _ = zw.Write(plain)
	_ = zw.Close()
	lit := func(nameIdx byte, name, value string, huff bool) []byte {
		b := []byte{nameIdx} // literal without indexing, 4-bit name index (0 = a name follows)
		if nameIdx == 0x0f {
			b = append(b, 26-15) // content-encoding, index 26
		} else {
			b = append(b, byte(len(name)))
			b = append(b, name...)
		}
		if huff {
			h := hpack.AppendHuffmanString(nil, value)
			return append(append(b, 0x80|byte(len(h))), h...)
		}
		return append(append(b, byte(len(value))), value...)
	}
	s := startScripted(t, &scripted{})
	s.handle(func(c *sconn, id uint32, n int64) {
		var block []byte
		body := gz.Bytes()
		switch n % 5 {
		case 0:
			block = c.headers(200, "content-encoding", "gzip") // indexed from the server's table after the first
		case 1:
			block = append([]byte{0x88}, lit(0x0f, "", "gzip", false)...) // :status 200, static name
		case 2:
			block = append([]byte{0x88}, lit(0x0f, "", "gzip", true)...)
		case 3:
			block = append([]byte{0x88}, lit(0, "content-encoding", "GZIP", false)...)
		case 4:
			block = append([]byte{0x88}, lit(0, "content-encoding", "gzip", true)...)
			body = plain // not gzip
		}
		_ = c.fr.WriteHeaders(http2.HeadersFrameParam{StreamID: id, BlockFragment: block, EndHeaders: true})
		_ = c.fr.WriteData(id, false, body[:len(body)/2])
		_ = c.fr.WriteData(id, true, body[len(body)/2:])
	})
	cc := &client.Config{Addr: s.addr, Timeout: 10 * time.Second, BufferSize: 16 << 10, Idempotent: true,
		Decoding: client.Decoding{Compressed: true, Accept: decode.Accepted(decode.AcceptEncoding)}}
	cfg, err := NewConfig(cc, &h1.Request{Target: "/", Host: "x"}, "http", 3)
	if err != nil {
		t.Fatal(err)
	}
	res := run(t, cfg, load.Config{Concurrency: 1, Requests: 50, Loops: loops})
	checkCounts(t, res)
	o := res.Counts.Outcomes
	if o[stats.OK] != 40 || o[stats.FailDecode] != 10 || res.Counts.DecodedIn != 40*int64(len(plain)) || res.Counts.ConnsOpened != 1 {
		t.Errorf("outcomes %v, decoded %d (want %d), connections %d, errors %v", o, res.Counts.DecodedIn,
			40*len(plain), res.Counts.ConnsOpened, res.Counts.Errors)
	}
	if !hasError(res, "gzip body corrupt") {
		t.Errorf("errors %v", res.Counts.Errors)
	}
}

// TestPhasedRequestPathAllocatesNothing: with every phase timeout set, a
// request still costs no allocation (the phases are fields of the
// stream, no timers).
func TestPhasedRequestPathAllocatesNothing(t *testing.T) {
	for _, streams := range []int{1, 10} {
		cfg := phased(t, "127.0.0.1:1", streams, 10*time.Second, func(cc *client.Config) {
			cc.FirstByteTimeout, cc.HeaderTimeout, cc.IdleTimeout = time.Second, time.Second, time.Second
		})
		cfg.Client.Addr = cannedServer(t, len(cfg.reqs[0].frames), true)
		c := New(context.Background(), cfg)
		xs := make([]load.Exchange, streams)
		round := func() {
			for i := range xs {
				xs[i] = load.Exchange{}
				if o, done := c.Start(&xs[i]); done {
					t.Fatalf("%v %v", o, xs[i].Err)
				}
			}
			for range xs {
				if x, o := c.Next(time.Time{}); o != stats.OK || x.Body != 2 {
					t.Fatalf("%v %v: body %d", o, x.Err, x.Body)
				}
			}
		}
		round()
		if n := testing.AllocsPerRun(200, round); n != 0 {
			t.Errorf("streams=%d: %.1f allocations per round of %d requests", streams, n, streams)
		}
		c.Close()
	}
}
