package h2

import (
	"strconv"
	"strings"
	"testing"

	"github.com/gb-bench/gb/internal/load"
	"github.com/gb-bench/gb/stats"
	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

// TestContentLengthMismatch: every other response's content-length
// disagrees with its DATA (1234 bytes sent, 1243 said): those are
// failed.protocol (RFC 9113 §8.1.1), the others ok, on one connection;
// whether the server indexes the field or not, Huffman-codes it or not,
// and on the connection's first response (decoded whole) as on the
// others.
func TestContentLengthMismatch(t *testing.T) { bothEngines(t, testContentLengthMismatch) }

func testContentLengthMismatch(t *testing.T, loops int) {
	s := startScripted(t, &scripted{})
	body := []byte(strings.Repeat("b", 1234))
	s.handle(func(c *sconn, id uint32, n int64) {
		length := "1234"
		if n%2 == 1 {
			length = "1243"
		}
		c.buf.Reset()
		_ = c.enc.WriteField(hpack.HeaderField{Name: ":status", Value: "200"})
		switch n % 6 {
		case 0, 1: // indexed (from the second on, from the dynamic table)
			_ = c.enc.WriteField(hpack.HeaderField{Name: "content-length", Value: length})
		case 2, 3: // never indexed, the static table's name, Huffman-coded value
			_ = c.enc.WriteField(hpack.HeaderField{Name: "content-length", Value: length, Sensitive: true})
		default: // a literal name and value, not Huffman-coded
			c.buf.Write([]byte{0x00, 14})
			c.buf.WriteString("content-length")
			c.buf.WriteByte(byte(len(length)))
			c.buf.WriteString(length)
		}
		_ = c.fr.WriteHeaders(http2.HeadersFrameParam{StreamID: id, BlockFragment: c.buf.Bytes(), EndHeaders: true})
		_ = c.fr.WriteData(id, true, body)
	})
	cfg := clientConfig(t, s.addr, false, nil, 2, hangGuard)
	res := run(t, cfg, load.Config{Concurrency: 1, Requests: 36, Loops: loops})
	checkCounts(t, res)
	o := res.Counts.Outcomes
	if o[stats.OK] != 18 || o[stats.FailProtocol] != 18 || res.Counts.ConnsOpened != 1 || !hasError(res, "content-length says 1243") {
		t.Errorf("outcomes %v, connections %d, errors %v", o, res.Counts.ConnsOpened, res.Counts.Errors)
	}
}

// TestHuffLength: every value Huffman-coded as a server would reads
// back; what is not a number is -1.
func TestHuffLength(t *testing.T) {
	for n := int64(0); n < 200000; n = n*3 + 1 {
		for _, v := range []int64{n, n + 7, n * 10} {
			s := strconv.FormatInt(v, 10)
			if got := huffLength(hpack.AppendHuffmanString(nil, s)); got != v {
				t.Errorf("huffLength(%q) = %d", s, got)
			}
		}
	}
	for _, bad := range []string{"", "12a", "-1", "1 2", "9999999999999999999"} {
		if got := huffLength(hpack.AppendHuffmanString(nil, bad)); got != -1 {
			t.Errorf("huffLength(%q) = %d, want -1", bad, got)
		}
	}
}
