package h1

import (
	"io"

	"github.com/gb-bench/gb/internal/decode"
)

// SetDecoder makes the Reader decode every body that has a
// Content-Encoding with d as ReadBody reads it (nil turns decoding off, the
// default). The body streams through d: nothing is buffered beyond the
// read buffer. Response.Encoding and Response.Decoded then describe each
// body, and a body that does not decode makes ReadBody return d's
// *decode.Error.
func (r *Reader) SetDecoder(d *decode.Body) {
	r.dec = d
	if d != nil && r.body == nil {
		r.body = new(bodySource) // apart from the Reader: most Readers never decode
	}
}

// decodeBody reads a body with a Content-Encoding through the decoder.
// A framing or connection failure is returned as ReadBody returns it; a
// body that frames fine but does not decode is a *decode.Error, returned
// once the rest of the body has been read (undecoded), so the connection
// stays usable as the response's framing says.
func (r *Reader) decodeBody(resp *Response) error {
	*r.body = bodySource{r: r, resp: resp, left: resp.ContentLength}
	switch resp.Framing {
	case Chunked:
		r.body.left, r.body.chunked = 0, true
	case UntilEOF:
		r.body.left = -1
	}
	n, err := r.dec.Decode(resp.Encoding, r.body)
	resp.Decoded = n
	if decode.IsError(err) {
		// The framing is intact: read the rest of the body, so the
		// connection can carry the next response.
		if derr := r.body.drain(); derr != nil {
			return derr
		}
	}
	return err
}

// bodySource is the decoder's io.Reader over the body being read: it
// hands out the body's bytes (chunk data only for chunked bodies) and
// returns io.EOF at the body's end.
type bodySource struct {
	r       *Reader
	resp    *Response
	left    int64 // bytes left in the body or the current chunk; -1 = until the server closes
	chunked bool
	first   bool  // a chunk was read: a CRLF precedes the next size line
	done    bool  // the body's end was reached
	err     error // the failure that ended the body
}

func (s *bodySource) Read(p []byte) (int, error) {
	b, err := s.next(len(p))
	return copy(p, b), err
}

// drain consumes the rest of the body.
func (s *bodySource) drain() error {
	for {
		if _, err := s.next(len(s.r.buf)); err != nil {
			if err == io.EOF {
				return nil
			}
			return err
		}
	}
}

// next consumes and returns up to max of the body's next bytes (a slice of
// the read buffer, valid until the next read), reading more when none is
// buffered; io.EOF at the body's end.
func (s *bodySource) next(max int) ([]byte, error) {
	if s.err != nil {
		return nil, s.err
	}
	for s.left == 0 {
		if s.done || !s.chunked {
			return nil, io.EOF
		}
		if s.err = s.nextChunk(); s.err != nil {
			return nil, s.err
		}
	}
	r := s.r
	if r.r == r.w {
		if err := r.fill(); err != nil {
			if err == io.EOF && s.left < 0 {
				s.left, s.done = 0, true
				return nil, io.EOF
			}
			s.err = broken(err)
			return nil, s.err
		}
	}
	k := min(r.w-r.r, max)
	if s.left >= 0 && int64(k) > s.left {
		k = int(s.left)
	}
	b := r.buf[r.r : r.r+k]
	r.r += k
	if s.left > 0 {
		s.left -= int64(k)
	}
	s.resp.BodyBytes += int64(k)
	return b, nil
}

// nextChunk reads the CRLF after the previous chunk's data and the next
// chunk-size line; at the last chunk it reads the trailers and marks the
// body done.
func (s *bodySource) nextChunk() error {
	r := s.r
	if s.first {
		if err := r.chunkEnd(); err != nil {
			return err
		}
	}
	s.first = true
	size, err := r.chunkSize()
	if err != nil {
		return err
	}
	if size == 0 {
		s.done = true
		return r.trailers(s.resp)
	}
	s.left = size
	return nil
}
