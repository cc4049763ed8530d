package h2

import (
	"bytes"
	"errors"
	"fmt"

	"golang.org/x/net/http2/hpack"
)

// A response's content-length must equal the sum of its DATA payloads
// (RFC 9113 §8.1.1); one that does not is malformed: failed.protocol.
//
// After a connection's first response gb does not have the decoder
// decode whole header blocks (each literal field it decodes is an
// allocation). feed walks the block's field representations itself
// (RFC 7541 §6) and has the decoder emit only :status and the fields it
// cannot name without the decoder's table (indexed from the dynamic
// table: emitted from the table, no allocation); a literal content-length
// (by the static table's name, index 28, or its own name) is read where
// it lies.

// staticCL is content-length's index in HPACK's static table; the static
// table has 61 entries.
const (
	staticCE    = 26 // content-encoding
	staticCL    = 28
	staticCount = 61
)

// huffCL is "content-length" Huffman-encoded, as a server may send the
// name of a literal field.
var huffCL = hpack.AppendHuffmanString(nil, "content-length")

// huffCE is "content-encoding" Huffman-encoded (see huffCL).
var huffCE = hpack.AppendHuffmanString(nil, "content-encoding")

// errLength is a response whose DATA did not add up to its
// content-length.
type errLength struct{ want, got int64 }

func (e errLength) Error() string {
	return fmt.Sprintf("http2: response body of %d bytes, its content-length says %d", e.got, e.want)
}

// errBadLength is a content-length that is not a number, or two that differ.
var errBadLength = errors.New("http2: invalid content-length in the response")

// feed gives a whole header block (not the connection's first) to the
// decoder, emitting only the fields that need it (see above), in runs.
func (c *Client) feed(block []byte) error {
	run, emitting := 0, true // :status, the first field, is emitted
	c.dec.SetEmitEnabled(true)
	for p := 0; p < len(block); {
		n, emit, ok := c.scanField(block[p:])
		if !ok {
			break // the decoder reports what is wrong with the rest
		}
		if p == 0 {
			emit = true
		}
		if emit != emitting {
			if _, err := c.dec.Write(block[run:p]); err != nil {
				return err
			}
			c.dec.SetEmitEnabled(emit)
			run, emitting = p, emit
		}
		p += n
	}
	_, err := c.dec.Write(block[run:])
	return err
}

// scanField reads the field representation at the start of p: its
// length, and whether the decoder must emit it. A literal content-length
// is recorded (c.length) here.
func (c *Client) scanField(p []byte) (n int, emit, ok bool) {
	var prefix uint
	switch b := p[0]; {
	case b&0x80 != 0: // indexed field
		idx, k, ok := hpackInt(p, 7)
		return k, idx > staticCount, ok
	case b&0xe0 == 0x20: // dynamic table size update
		_, k, ok := hpackInt(p, 5)
		return k, false, ok
	case b&0xc0 == 0x40: // literal with incremental indexing
		prefix = 6
	default: // literal without indexing, or never indexed
		prefix = 4
	}
	idx, n, ok := hpackInt(p, prefix)
	if !ok {
		return 0, false, false
	}
	isCL, isCE := idx == staticCL, idx == staticCE && c.unz != nil
	if idx == 0 {
		name, huff, k, ok := hpackString(p[n:])
		if !ok {
			return 0, false, false
		}
		n += k
		isCL = (!huff && string(name) == "content-length") || (huff && bytes.Equal(name, huffCL))
		isCE = c.unz != nil && ((!huff && string(name) == "content-encoding") || (huff && bytes.Equal(name, huffCE)))
	}
	value, huff, k, ok := hpackString(p[n:])
	if !ok {
		return 0, false, false
	}
	switch {
	case isCL:
		c.literalLength(value, huff)
	case isCE:
		c.literalEncoding(value, huff)
	}
	return n + k, idx > staticCount, true
}

// literalLength records a content-length value as sent (Huffman-coded
// when huff).
func (c *Client) literalLength(value []byte, huff bool) {
	if huff {
		c.noteLength(huffLength(value))
		return
	}
	c.noteLength(parseLength(value))
}

// huffLength is a Huffman-coded content-length's value (RFC 7541
// Appendix B: '0' to '2' are the 5-bit codes 0 to 2, '3' to '9' the
// 6-bit codes 0x19 to 0x1f; the padding is up to 7 one bits); -1 when
// it is not a number.
func huffLength(p []byte) int64 {
	var n, digits int64
	var bits uint64 // unread bits, the next one highest
	var have uint
	for i := 0; ; {
		for have < 6 && i < len(p) {
			bits, have, i = bits<<8|uint64(p[i]), have+8, i+1
		}
		if have < 5 || (i == len(p) && have < 8 && bits&(1<<have-1) == 1<<have-1) {
			break // the rest is padding
		}
		d := int64(-1)
		if c := bits >> (have - 5) & 0x1f; c <= 2 {
			d, have = int64(c), have-5
		} else if have >= 6 {
			if c := bits >> (have - 6) & 0x3f; c >= 0x19 {
				d, have = int64(c-0x19+3), have-6
			}
		}
		if d < 0 || digits == 18 {
			return -1
		}
		n, digits = n*10+d, digits+1
		bits &= 1<<have - 1
	}
	if digits == 0 || have >= 8 || bits != 1<<have-1 {
		return -1
	}
	return n
}

// noteLength records a content-length of the block (-1: not a number).
func (c *Client) noteLength(n int64) {
	switch {
	case c.length == noLength:
		c.length = n
	case c.length != n:
		c.length = -1
	}
}

// noLength is a block without content-length.
const noLength = -2

// parseLength is a content-length's value; -1 when it is not one.
func parseLength[T string | []byte](v T) int64 {
	if len(v) == 0 || len(v) > 18 {
		return -1
	}
	var n int64
	for i := range len(v) {
		d := v[i] - '0'
		if d > 9 {
			return -1
		}
		n = n*10 + int64(d)
	}
	return n
}

// hpackInt decodes an HPACK integer with an n-bit prefix at the start of
// p (RFC 7541 §5.1): its value and length.
func hpackInt(p []byte, n uint) (v uint64, k int, ok bool) {
	mask := uint64(1)<<n - 1
	if v = uint64(p[0]) & mask; v < mask {
		return v, 1, true
	}
	for i, shift := 1, uint(0); i < len(p) && shift < 56; i, shift = i+1, shift+7 {
		v += uint64(p[i]&0x7f) << shift
		if p[i]&0x80 == 0 {
			return v, i + 1, true
		}
	}
	return 0, 0, false
}

// hpackString returns the string literal at the start of p (RFC 7541
// §5.2): its bytes as sent, whether Huffman-coded, and its length.
func hpackString(p []byte) (s []byte, huff bool, k int, ok bool) {
	if len(p) == 0 {
		return nil, false, 0, false
	}
	size, k, ok := hpackInt(p, 7)
	if !ok || size > uint64(len(p)-k) {
		return nil, false, 0, false
	}
	return p[k : k+int(size)], p[0]&0x80 != 0, k + int(size), true
}
