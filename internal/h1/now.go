package h1

import "errors"

// An event loop can read and parse a response on its own stack, without
// resuming the task that waits for it, when the connection says it is
// readable: ReadNow takes what has arrived, Parse says whether a whole
// response is there. Neither waits. Whatever they cannot finish (a
// response that does not fit the buffer, a read error, malformed input)
// they leave as it was, for ReadHeader and ReadBody to read again from the
// response's first byte, with the usual waits and errors.

// NowReader is a source that can read without waiting.
type NowReader interface {
	// ReadNow reads what has arrived into p: 0 and a nil error when
	// nothing has yet; io.EOF when the peer closed.
	ReadNow(p []byte) (int, error)
}

// errNeedMore is fill's answer while Parse runs: the response goes on
// beyond the buffered bytes.
var errNeedMore = errors.New("h1: response continues beyond the buffered bytes")

// ReadNow reads once from a NowReader source, without waiting, after what
// is buffered. It returns the bytes read (0: nothing has arrived yet; a
// lent buffer is then given back unless bytes are buffered). ok is false
// when the caller must read with ReadHeader and ReadBody instead: the
// source cannot read without waiting, the buffer is full, or the read
// failed (its error is held for them, so they report it as they would
// have).
func (r *Reader) ReadNow() (n int, ok bool) {
	if r.now == nil || r.err != nil {
		return 0, false
	}
	if r.r == r.w {
		r.r, r.w = 0, 0
	}
	if r.buf == nil {
		if r.lend == nil {
			r.buf = make([]byte, r.size)
		} else {
			r.buf = r.lend.Borrow(r.size)
		}
	}
	if r.w == len(r.buf) {
		if r.r == 0 {
			return 0, false // a response larger than the buffer: ReadBody's path discards it
		}
		r.w = copy(r.buf, r.buf[r.r:r.w])
		r.r = 0
	}
	n, err := r.now.ReadNow(r.buf[r.w:])
	r.w += n
	r.Wire += int64(n)
	if err != nil {
		r.err = err
		return 0, false
	}
	if n == 0 {
		r.Release()
	}
	return n, true
}

// Parse reads one whole response (header and body, as ReadHeader and
// ReadBody would) from the buffered bytes alone. complete is false when
// they hold only part of it: nothing is consumed, and Parse can run again
// after the next ReadNow. ok is false when the buffered bytes are not a
// response Parse can read (malformed, or framed by the connection's end):
// nothing is consumed, and ReadHeader and ReadBody read it with its error.
// resp is undefined unless complete.
func (r *Reader) Parse(resp *Response, head bool) (complete, ok bool) {
	if r.r == r.w || r.dec != nil {
		return false, r.dec == nil
	}
	start := r.r
	r.noRead = true
	err := r.ReadHeader(resp, head)
	if err == nil && resp.Framing == UntilEOF {
		err = errUntilEOF
	} else if err == nil {
		err = r.ReadBody(resp)
	}
	r.noRead = false
	if err == nil {
		return true, true
	}
	r.r = start
	return false, err == errNeedMore
}

// errUntilEOF stops Parse at a body that only the connection's end frames.
var errUntilEOF = errors.New("h1: body framed by the connection's end")
