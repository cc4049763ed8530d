package h1

import "bytes"

// chunked consumes a chunked body (RFC 9112 §7.1): size lines with
// optional extensions, data, CRLF, and the trailer section after the last
// chunk. BodyBytes counts decoded data only.
func (r *Reader) chunked(resp *Response) error {
	for {
		size, err := r.chunkSize()
		if err != nil {
			return err
		}
		if size == 0 {
			return r.trailers(resp)
		}
		if err := r.discard(resp, size); err != nil {
			return err
		}
		if err := r.chunkEnd(); err != nil {
			return err
		}
	}
}

// chunkSize reads a chunk-size line and returns the size.
func (r *Reader) chunkSize() (int64, error) {
	budget := r.lim.MaxChunkLine
	line, err := r.readLine(&budget, ErrChunkLine, ErrChunkLine)
	if err != nil {
		return 0, err
	}
	size, ok := parseChunkSize(line)
	if !ok {
		return 0, ErrChunk
	}
	return size, nil
}

// chunkEnd reads the CRLF that ends a chunk's data.
func (r *Reader) chunkEnd() error {
	budget := 2
	crlf, err := r.readLine(&budget, ErrChunk, ErrChunk)
	if err != nil {
		return err
	}
	if len(crlf) != 0 {
		return ErrChunk
	}
	return nil
}

// trailers consumes the trailer section up to its empty line.
func (r *Reader) trailers(resp *Response) error {
	budget := r.lim.MaxHeaderBytes - int(resp.HeaderBytes)
	for {
		line, err := r.readLine(&budget, ErrHeaderTooLarge, ErrLineTooLong)
		if err != nil {
			return err
		}
		if len(line) == 0 {
			return nil
		}
	}
}

// parseChunkSize parses "hex[;ext...]" with optional whitespace before the
// extension, rejecting sizes past 2^60 (no real body is that large; the
// bound keeps the arithmetic far from overflow).
func parseChunkSize(line []byte) (int64, bool) {
	if i := bytes.IndexByte(line, ';'); i >= 0 {
		line = line[:i]
	}
	line = trimOWS(line)
	if len(line) == 0 {
		return 0, false
	}
	var n int64
	for _, c := range line {
		var d byte
		switch {
		case c >= '0' && c <= '9':
			d = c - '0'
		case c >= 'a' && c <= 'f':
			d = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			d = c - 'A' + 10
		default:
			return 0, false
		}
		if n >= 1<<56 {
			return 0, false
		}
		n = n<<4 | int64(d)
	}
	return n, true
}
