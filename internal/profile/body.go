package profile

import (
	"bytes"
	"fmt"
	"io"
)

// chunkSize is the size of the chunks a body is read into.
const chunkSize = 64 << 10

// body is a response body held in fixed-size chunks taken from the
// memory budget, so that reading it leaves no garbage of a growing
// buffer behind. The zero value and nil are empty bodies.
type body struct {
	chunks [][]byte
	size   int64
	mem    *budget
}

// readBody reads r to its end, failing once it holds more than limit
// bytes or when the budget is spent; on error nothing stays taken.
func readBody(r io.Reader, limit int64, mem *budget) (*body, error) {
	b := &body{mem: mem}
	for {
		if err := mem.reserve(chunkSize); err != nil {
			b.free()
			return nil, err
		}
		c := make([]byte, chunkSize)
		b.chunks = append(b.chunks, c)
		n, err := io.ReadFull(r, c)
		b.chunks[len(b.chunks)-1] = c[:n]
		b.size += int64(n)
		if b.size > limit {
			b.free()
			return nil, fmt.Errorf("%w of %d bytes", errTooLarge, limit)
		}
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return b, nil
		}
		if err != nil {
			b.free()
			return nil, err
		}
	}
}

// reader returns a reader of the body's bytes.
func (b *body) reader() io.Reader {
	if b == nil {
		return bytes.NewReader(nil)
	}
	rs := make([]io.Reader, len(b.chunks))
	for i, c := range b.chunks {
		rs[i] = bytes.NewReader(c)
	}
	return io.MultiReader(rs...)
}

// isGzip reports whether the body starts with gzip's magic bytes.
func (b *body) isGzip() bool {
	var head [2]byte
	n, _ := io.ReadFull(b.reader(), head[:])
	return n == 2 && isGzip(head[:])
}

// free gives the body's chunks back to the budget; idempotent.
func (b *body) free() {
	if b == nil {
		return
	}
	b.mem.release(int64(len(b.chunks)) * chunkSize)
	b.chunks, b.size = nil, 0
}
