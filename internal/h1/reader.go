package h1

import (
	"bytes"
	"io"

	"github.com/gb-bench/gb/internal/decode"
)

// Limits bound what a Reader accepts from a server. The zero value of each
// field selects the default named beside it.
type Limits struct {
	MaxHeaderBytes int // header section incl. interim responses; 0 = 64 KiB
	MaxFields      int // header fields per response; 0 = 100
	MaxInfo        int // 1xx interim responses before the final one; 0 = 5
	MaxChunkLine   int // chunk-size line incl. extensions; 0 = 4 KiB
}

func (l Limits) resolved() Limits {
	if l.MaxHeaderBytes <= 0 {
		l.MaxHeaderBytes = 64 << 10
	}
	if l.MaxFields <= 0 {
		l.MaxFields = 100
	}
	if l.MaxInfo <= 0 {
		l.MaxInfo = 5
	}
	if l.MaxChunkLine <= 0 {
		l.MaxChunkLine = 4 << 10
	}
	return l
}

// DefaultBufferSize is the read buffer a Reader uses when NewReader is
// given a smaller size.
const DefaultBufferSize = 16 << 10

// MaxLine is the longest status, header, trailer or chunk-size line a
// Reader accepts, its line end included, whatever its buffer's size: a
// Reader whose buffer is smaller grows it to MaxLine for a line that needs
// it (lines are consumed one at a time, so the header section as a whole
// is bounded by Limits.MaxHeaderBytes, not by the buffer). A longer line
// is ErrLineTooLong.
const MaxLine = 16 << 10

// Reader reads HTTP/1.x responses from one connection into a fixed buffer
// and discards their bodies, framing them by RFC 9112 §6.3. It allocates
// nothing per response. A Reader is owned by one goroutine.
type Reader struct {
	// The fields every response touches come first (the first two of
	// five cache lines): with thousands of connections each is a miss.
	buf     []byte
	r, w    int       // unread bytes are buf[r:w]
	err     error     // read error held back while buffered bytes remain
	started bool      // a byte of the current response has arrived
	noRead  bool      // Parse is running: fill reads nothing and reports errNeedMore
	grown   bool      // buf is big, in place of a lent buffer (grow)
	now     NowReader // src when it can read without waiting (now.go); nil = it cannot
	lend    Lender    // src when it lends buffers (lend.go); nil = buf is the Reader's own
	size    int       // the buffer's size; buf is nil until the first read, and while a lent one is given back
	nserver int
	dec     *decode.Body // SetDecoder's; nil = bodies are discarded undecoded

	// Keep, when set, collects each response's header fields and body
	// for a script (package script); nil = they are discarded.
	Keep *Kept

	// Wire counts every byte read from the source since the last Reset.
	Wire int64

	src    io.Reader
	lim    Limits
	server [64]byte
	body   *bodySource // the decoder's view of the body (decode.go); made with the decoder
	big    []byte      // a Lender's Reader's MaxLine buffer, made the first time a line needs it; nil = none yet
}

// NewReader returns a Reader over src with a buffer of size bytes
// (DefaultBufferSize when size is smaller than 4 KiB, MaxLine when it is
// larger) and the given limits. The buffer is made on the first read, or
// lent by src when it is a Lender; either grows to MaxLine only for a line
// that does not fit it.
func NewReader(src io.Reader, size int, lim Limits) *Reader {
	if size < 4<<10 {
		size = DefaultBufferSize
	}
	size = min(size, MaxLine)
	r := &Reader{size: size, lim: lim.resolved()}
	r.Reset(src)
	return r
}

// Reset makes the Reader read from src (a new connection), dropping any
// buffered bytes and zeroing Wire.
func (r *Reader) Reset(src io.Reader) {
	r.giveBack()
	if r.lend, _ = src.(Lender); r.lend != nil {
		r.buf = nil // a private buffer from an earlier source
	}
	r.now, _ = src.(NowReader)
	r.src, r.r, r.w, r.err, r.started, r.Wire = src, 0, 0, nil, false, 0
}

// Buffered returns the number of bytes read from the connection but not yet
// consumed. Bytes buffered between responses are unsolicited: the
// connection must not be reused.
func (r *Reader) Buffered() int { return r.w - r.r }

// Started reports whether any byte of the response being read has arrived:
// an error before that is a failure to answer at all (a stale connection or
// a first-byte timeout), after it a broken response.
func (r *Reader) Started() bool { return r.started }

// Server returns the Server header value of the last response read (at
// most 64 bytes). It is valid until the next ReadHeader.
func (r *Reader) Server() []byte { return r.server[:r.nserver] }

// Fill blocks until at least one byte is buffered. The caller uses it to
// time the first response byte. It returns the connection's read error
// (io.EOF when the server closed first); Started is false until a byte of
// the next response has arrived.
func (r *Reader) Fill() error {
	if r.r < r.w {
		return nil
	}
	r.started = false
	return r.fill()
}

// fill reads once into the free part of the buffer, compacting first when
// the buffer is full, or growing it to MaxLine when one unconsumed run
// fills it. It returns errFull if one unconsumed run fills MaxLine bytes.
func (r *Reader) fill() error {
	if r.noRead {
		return errNeedMore // before anything moves: Parse rewinds to where it began
	}
	if r.r == r.w {
		r.r, r.w = 0, 0
		if err := r.ensure(); err != nil {
			return err
		}
	}
	// errFull before a held-back error: a line too long for the buffer is
	// reported as such however the source split its reads.
	if r.w == len(r.buf) {
		switch {
		case r.r > 0:
			r.w = copy(r.buf, r.buf[r.r:r.w])
			r.r = 0
		case len(r.buf) >= MaxLine:
			return errFull
		default:
			r.grow()
		}
	}
	if r.err != nil {
		err := r.err
		r.err = nil
		return err
	}
	for range 100 {
		n, err := r.src.Read(r.buf[r.w:])
		r.w += n
		r.Wire += int64(n)
		if n > 0 {
			r.err = err
			return nil
		}
		if err != nil {
			return err
		}
	}
	return io.ErrNoProgress
}

var errFull = &ProtocolError{"buffer full"}

// grow moves the buffered bytes (one unconsumed run filling the buffer)
// into a buffer of MaxLine bytes. A private buffer is replaced for good:
// the connection's Reader keeps MaxLine bytes from then on. A lent one
// goes back to its Lender, and the Reader reads into its own big buffer
// until it is emptied (giveBack), keeping it for the next long line, so
// that a server sending long lines costs one allocation per Reader.
func (r *Reader) grow() {
	big := r.big
	if big == nil {
		big = make([]byte, MaxLine)
	}
	n := copy(big, r.buf[r.r:r.w])
	if r.lend == nil {
		r.buf, r.size = big, MaxLine
	} else {
		r.lend.Return(r.buf)
		r.buf, r.big, r.grown = big, big, true
	}
	r.r, r.w = 0, n
}

// broken turns a read error inside a started response into the error the
// caller sees: a clean EOF becomes ErrTruncated, and so does
// io.ErrUnexpectedEOF (crypto/tls returns it when the connection ends
// inside a record).
func broken(err error) error {
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return ErrTruncated
	}
	return err
}

// readLine returns the next line without its line ending (CRLF or bare
// LF), charging its length to *budget: tooLong when the budget runs out,
// full when the line does not fit in the buffer. The line aliases the
// buffer and is valid until the next read.
func (r *Reader) readLine(budget *int, tooLong, full error) ([]byte, error) {
	// scanned bytes after r.r hold no LF: each byte is searched once, even
	// when the line arrives a few bytes per read (compaction keeps offsets
	// from r.r).
	scanned := 0
	for {
		if i := bytes.IndexByte(r.buf[r.r+scanned:r.w], '\n'); i >= 0 {
			i += scanned
			line := r.buf[r.r : r.r+i]
			r.r += i + 1
			if *budget -= i + 1; *budget < 0 {
				return nil, tooLong
			}
			if n := len(line); n > 0 && line[n-1] == '\r' {
				line = line[:n-1]
			}
			return line, nil
		}
		if r.w-r.r > *budget {
			return nil, tooLong
		}
		scanned = r.w - r.r
		if err := r.fill(); err != nil {
			if err == errFull {
				return nil, full
			}
			return nil, broken(err)
		}
	}
}
