package h1

import (
	"bytes"
	"io"

	"github.com/gb-bench/gb/internal/decode"
)

// Framing is how a response body is delimited (RFC 9112 §6.3).
type Framing uint8

// The framings.
const (
	NoBody   Framing = iota // HEAD, 204, 304: no body whatever the headers say
	Length                  // Content-Length bytes
	Chunked                 // chunked transfer coding, then trailers
	UntilEOF                // the body ends when the server closes the connection
)

// Response is what ReadHeader and ReadBody learn about one response. The
// caller owns it and reuses it: ReadHeader resets every field.
type Response struct {
	Status        int     // final status code (1xx responses are skipped)
	Minor         int     // HTTP/1.x minor version of the final response
	KeepAlive     bool    // the connection may carry another request after this response
	Framing       Framing // how the body is delimited
	ContentLength int64   // -1 when absent or overridden by Transfer-Encoding; informational only with NoBody
	CLAndTE       bool    // a response with a body sent both Content-Length and Transfer-Encoding (anomaly; connection closed)
	Info          int     // 1xx interim responses skipped
	HeaderBytes   int64   // bytes of status lines and header sections, interim responses included
	BodyBytes     int64   // body bytes consumed so far (decoded chunk data for chunked bodies)

	// With a decoder set (SetDecoder): the body's Content-Encoding, and
	// its size after content decoding (0 for an identity body).
	Encoding decode.Encoding
	Decoded  int64
}

// header is the parse state of one header section.
type header struct {
	cl        int64
	hasCL     bool
	te        bool
	chunked   bool // the last transfer coding is chunked
	close     bool
	keepAlive bool
	fields    int
	framing   bool // the last field read was Content-Length, Transfer-Encoding or Connection
	enc       decode.Encoding
}

// ReadHeader reads the status line and header section of the next
// response, skipping up to Limits.MaxInfo interim 1xx responses, and sets
// resp's framing. head says the request was HEAD (no body expected).
//
// Before any byte of the response arrives it returns the connection's error
// unchanged (io.EOF for a close); after that a clean close is ErrTruncated.
// Malformed input is a *ProtocolError. An obs-fold line continuing
// Content-Length, Transfer-Encoding or Connection is ErrHeaderLine: gb
// does not join folded values, and guessing would risk misframing.
func (r *Reader) ReadHeader(resp *Response, head bool) error {
	*resp = Response{ContentLength: -1}
	r.started = false
	if err := r.Fill(); err != nil {
		return err
	}
	r.started = true
	budget := r.lim.MaxHeaderBytes
	for {
		start := budget
		var h header
		err := r.readSection(resp, &h, &budget)
		resp.HeaderBytes += int64(start - budget)
		if err != nil {
			return err
		}
		if resp.Status >= 200 {
			return r.frame(resp, &h, head)
		}
		if resp.Status == 101 {
			return ErrUnexpected101
		}
		if resp.Info++; resp.Info > r.lim.MaxInfo {
			return ErrTooManyInfo
		}
	}
}

// readSection reads one status line and its header fields.
func (r *Reader) readSection(resp *Response, h *header, budget *int) error {
	if err := r.checkPrefix(); err != nil {
		return err
	}
	line, err := r.readLine(budget, ErrHeaderTooLarge, ErrLineTooLong)
	if err != nil {
		return err
	}
	if err := parseStatus(line, resp); err != nil {
		return err
	}
	r.nserver = 0
	keep := r.Keep // tested once per section, not per field: nil on the no-script path
	if keep != nil {
		keep.reset()
	}
	for {
		line, err := r.fieldLine(budget)
		if err != nil {
			return err
		}
		if len(line) == 0 {
			return nil
		}
		if keep != nil {
			keep.field(line) // as it arrived: field may rewrite a value in place
		}
		if err := r.field(line, h); err != nil {
			return err
		}
	}
}

var httpPrefix, sshPrefix = []byte("HTTP/1."), []byte("SSH-")

// checkPrefix rejects a reply that cannot be HTTP/1.x as soon as its first
// bytes arrive, instead of waiting for a line end that may never come. It
// reads until the bytes decide between HTTP, TLS, SSH and garbage, so the
// verdict does not depend on how the connection splits its reads.
func (r *Reader) checkPrefix() error {
	for {
		b := r.buf[r.r:r.w]
		if bytes.HasPrefix(b, httpPrefix) {
			return nil
		}
		if !undecided(b) {
			return badPrefix(b)
		}
		if err := r.fill(); err != nil {
			if b = r.buf[r.r:r.w]; bytes.HasPrefix(httpPrefix, b) {
				return broken(err) // a start of "HTTP/1." cut short
			}
			return badPrefix(b)
		}
	}
}

// undecided reports whether more bytes could still make b an HTTP/1.x
// status line, a TLS record or an SSH banner.
func undecided(b []byte) bool {
	switch {
	case bytes.HasPrefix(httpPrefix, b):
		return true
	case len(b) < len(sshPrefix) && bytes.HasPrefix(sshPrefix, b):
		return true
	}
	return len(b) == 1 && isTLSType(b[0])
}

// badPrefix names what a reply that is not HTTP/1.x looks like.
func badPrefix(b []byte) error {
	switch {
	case len(b) >= 2 && isTLSType(b[0]) && b[1] == 0x03:
		return ErrStatusLineTLS
	case bytes.HasPrefix(b, sshPrefix):
		return ErrStatusLineSSH
	}
	return ErrStatusLine
}

// isTLSType reports whether c is the content type of a TLS record a server
// sends first: alert (0x15) or handshake (0x16).
func isTLSType(c byte) bool { return c == 0x15 || c == 0x16 }

// parseStatus parses "HTTP/1.x NNN[ reason]".
func parseStatus(line []byte, resp *Response) error {
	if len(line) < 12 || line[7] < '0' || line[7] > '9' || line[8] != ' ' ||
		(len(line) > 12 && line[12] != ' ') {
		return ErrStatusLine
	}
	code := 0
	for _, c := range line[9:12] {
		if c < '0' || c > '9' {
			return ErrStatusLine
		}
		code = code*10 + int(c-'0')
	}
	if code < 100 {
		return ErrStatusLine
	}
	resp.Status, resp.Minor = code, int(line[7]-'0')
	return nil
}

// fieldLine is readLine for a header field, with a short path for the
// common case: the whole line is buffered and within the budget (about
// a fifth fewer instructions per line than readLine's loop).
func (r *Reader) fieldLine(budget *int) ([]byte, error) {
	b := r.buf[r.r:r.w]
	if i := bytes.IndexByte(b, '\n'); i >= 0 && i < *budget {
		r.r += i + 1
		*budget -= i + 1
		if i > 0 && b[i-1] == '\r' {
			i--
		}
		return b[:i], nil
	}
	return r.readLine(budget, ErrHeaderTooLarge, ErrLineTooLong)
}

// field interprets one header line for framing, persistence and Server.
// Only the fields gb interprets have their value trimmed; the switch on
// the name's length spares the others any comparison.
func (r *Reader) field(line []byte, h *header) error {
	if line[0] == ' ' || line[0] == '\t' {
		// obs-fold continues the previous field's value (RFC 9112 §5.2).
		// gb reads values line by line, so it cannot join a folded value;
		// it ignores the continuation of a field it does not interpret,
		// and rejects one that would change framing or persistence.
		if h.framing {
			return ErrHeaderLine
		}
		return nil
	}
	colon := bytes.IndexByte(line, ':')
	if colon <= 0 || line[colon-1] == ' ' || line[colon-1] == '\t' {
		return ErrHeaderLine
	}
	if h.fields++; h.fields > r.lim.MaxFields {
		return ErrTooManyFields
	}
	name := line[:colon]
	h.framing = false
	switch len(name) {
	case len("content-length"):
		if equalFold(name, "content-length") {
			h.framing = true
			return h.contentLength(trimOWS(line[colon+1:]))
		}
	case len("transfer-encoding"):
		if equalFold(name, "transfer-encoding") {
			h.framing, h.te = true, true
			// The last coding of the combined list decides; a field with
			// no coding in it (empty list elements only) changes nothing.
			if last := lastToken(trimOWS(line[colon+1:])); len(last) > 0 {
				h.chunked = equalFold(last, "chunked")
			}
		}
	case len("connection"):
		if equalFold(name, "connection") {
			h.framing = true
			h.connection(trimOWS(line[colon+1:]))
		}
	case len("content-encoding"):
		if r.dec != nil && equalFold(name, "content-encoding") {
			h.enc = h.enc.Add(trimOWS(line[colon+1:]))
		}
	case len("server"):
		if equalFold(name, "server") {
			r.setServer(trimOWS(line[colon+1:]))
		}
	}
	return nil
}

// setServer keeps a copy of the Server header's value, with NUL made a
// space (RFC 9110 §5.5).
func (r *Reader) setServer(v []byte) {
	r.nserver = copy(r.server[:], v)
	if bytes.IndexByte(v, 0) < 0 {
		return
	}
	for i, c := range r.server[:r.nserver] {
		if c == 0 {
			r.server[i] = ' '
		}
	}
}

// contentLength parses a Content-Length value: digits, or a list of equal
// values ("10, 10"); a second header must agree with the first.
func (h *header) contentLength(v []byte) error {
	seen := false
	for len(v) > 0 {
		var item []byte
		if i := bytes.IndexByte(v, ','); i >= 0 {
			item, v = trimOWS(v[:i]), v[i+1:]
		} else {
			item, v = trimOWS(v), nil
		}
		n, ok := parseDecimal(item)
		if !ok || (h.hasCL && n != h.cl) {
			return ErrContentLength
		}
		h.cl, h.hasCL, seen = n, true, true
	}
	if !seen {
		return ErrContentLength
	}
	return nil
}

func (h *header) connection(v []byte) {
	for len(v) > 0 {
		var tok []byte
		if i := bytes.IndexByte(v, ','); i >= 0 {
			tok, v = trimOWS(v[:i]), v[i+1:]
		} else {
			tok, v = trimOWS(v), nil
		}
		if equalFold(tok, "close") {
			h.close = true
		} else if equalFold(tok, "keep-alive") {
			h.keepAlive = true
		}
	}
}

// frame applies RFC 9112 §6.3 and §9.3 to the final response's header.
func (r *Reader) frame(resp *Response, h *header, head bool) error {
	// An HTTP/1.0 message with Transfer-Encoding has faulty framing: close
	// the connection after it (RFC 9112 §6.1).
	resp.KeepAlive = !h.close && (resp.Minor >= 1 || h.keepAlive) && !(h.te && resp.Minor == 0)
	resp.Encoding = h.enc
	switch {
	case head || resp.Status == 204 || resp.Status == 304:
		resp.Framing = NoBody
		if h.hasCL && !h.te {
			resp.ContentLength = h.cl // informational: no body follows
		}
	case h.te:
		// Transfer-Encoding overrides Content-Length; both together are an
		// anomaly after which the connection closes (§6.3 item 3).
		resp.CLAndTE = h.hasCL
		if h.chunked {
			resp.Framing = Chunked
		} else {
			resp.Framing = UntilEOF
		}
		if h.hasCL || !h.chunked {
			resp.KeepAlive = false
		}
	case h.hasCL:
		resp.Framing, resp.ContentLength = Length, h.cl
	default:
		resp.Framing, resp.KeepAlive = UntilEOF, false
	}
	return nil
}

// ReadBody consumes and discards the body of the response whose header
// ReadHeader just read, counting it in resp.BodyBytes (partial bodies
// included). A body cut short by the server's close is ErrTruncated. With
// a decoder set (SetDecoder), a body with a Content-Encoding is decoded as
// it is read.
func (r *Reader) ReadBody(resp *Response) error {
	if r.dec != nil && resp.Encoding != decode.Identity && resp.Framing != NoBody {
		return r.decodeBody(resp)
	}
	switch resp.Framing {
	case Length:
		return r.discard(resp, resp.ContentLength)
	case Chunked:
		return r.chunked(resp)
	case UntilEOF:
		return r.untilEOF(resp)
	}
	return nil
}

// discard consumes n body bytes.
func (r *Reader) discard(resp *Response, n int64) error {
	for n > 0 {
		if r.r == r.w {
			if err := r.fill(); err != nil {
				return broken(err)
			}
		}
		k := int64(r.w - r.r)
		if k > n {
			k = n
		}
		if r.Keep != nil {
			r.Keep.body(r.buf[r.r : r.r+int(k)])
		}
		r.r += int(k)
		n -= k
		resp.BodyBytes += k
	}
	return nil
}

func (r *Reader) untilEOF(resp *Response) error {
	for {
		resp.BodyBytes += int64(r.w - r.r)
		if r.Keep != nil {
			r.Keep.body(r.buf[r.r:r.w])
		}
		r.r = r.w
		if err := r.fill(); err != nil {
			if err == io.EOF {
				return nil
			}
			return broken(err)
		}
	}
}
