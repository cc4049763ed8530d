package script

import (
	"bytes"
	"fmt"
	"unsafe"
)

// Batch is one request()'s bytes and the HTTP/1.1 requests they hold:
// one, or several a script pipelines (wrk's pipeline.lua). A Batch
// belongs to one connection and is reused: parsing is skipped when
// request() returns the very string it returned last time.
type Batch struct {
	Bytes []byte
	ends  []int  // the end offset in Bytes of each request
	heads []bool // each request's method is HEAD
	// Idempotent says every request's method may be sent again after the
	// keep-alive close race (GET, HEAD, PUT, DELETE, OPTIONS).
	Idempotent bool
}

// RequestError is bytes from a script that are not whole HTTP/1.1
// requests.
type RequestError struct {
	Offset int // where in the bytes the problem is
	Msg    string
}

func (e *RequestError) Error() string {
	return fmt.Sprintf("request() returned an unparsable request at byte %d: %s", e.Offset, e.Msg)
}

// Len is how many requests the batch holds.
func (b *Batch) Len() int { return len(b.ends) }

// Head reports whether request i of the batch is HEAD.
func (b *Batch) Head(i int) bool { return b.heads[i] }

// Span returns the bytes of requests i to j-1.
func (b *Batch) Span(i, j int) []byte {
	start := 0
	if i > 0 {
		start = b.ends[i-1]
	}
	return b.Bytes[start:b.ends[j-1]]
}

// set makes p the batch's bytes and parses them, unless they are the
// same bytes as before.
func (b *Batch) set(p []byte) error {
	if len(p) == len(b.Bytes) && len(p) > 0 && unsafe.SliceData(p) == unsafe.SliceData(b.Bytes) && len(b.ends) > 0 {
		return nil
	}
	b.Bytes, b.ends, b.heads, b.Idempotent = p, b.ends[:0], b.heads[:0], true
	if len(p) == 0 {
		b.Bytes = nil
		return &RequestError{Msg: "empty request"}
	}
	for off := 0; off < len(p); {
		end, method, err := parseRequest(p, off)
		if err != nil {
			b.Bytes, b.ends = nil, b.ends[:0]
			return err
		}
		b.ends = append(b.ends, end)
		b.heads = append(b.heads, method == "HEAD")
		if method == "" {
			b.Idempotent = false
		}
		off = end
	}
	return nil
}

// parseRequest reads the request at p[off:]: its request line, header
// section and body (Content-Length or chunked), and returns its end. It
// allocates nothing: method is a constant for the usual methods, else
// "" (neither HEAD nor idempotent).
func parseRequest(p []byte, off int) (end int, method string, err error) {
	line, next, ok := nextLine(p, off)
	if !ok {
		return 0, "", &RequestError{Offset: off, Msg: "no end to the request line"}
	}
	m, rest, ok1 := bytes.Cut(line, sp)
	target, version, ok2 := bytes.Cut(rest, sp)
	if !ok1 || !ok2 || len(m) == 0 || len(target) == 0 || bytes.IndexByte(version, ' ') >= 0 || !bytes.HasPrefix(version, http1) {
		return 0, "", &RequestError{Offset: off, Msg: "bad request line"}
	}
	method = knownMethod(m)
	length, chunked := int64(0), false
	for {
		start := next
		if line, next, ok = nextLine(p, next); !ok {
			return 0, "", &RequestError{Offset: start, Msg: "no end to the header section"}
		}
		if len(line) == 0 {
			break
		}
		name, value, ok := cutField(line)
		switch {
		case !ok:
			return 0, "", &RequestError{Offset: start, Msg: "bad header line"}
		case bytes.EqualFold(name, contentLength):
			if length, ok = parseLength(value); !ok {
				return 0, "", &RequestError{Offset: start, Msg: "bad Content-Length"}
			}
		case bytes.EqualFold(name, transferEncoding):
			chunked = bytes.EqualFold(bytes.TrimSpace(value[bytes.LastIndexByte(value, ',')+1:]), chunkedCoding)
		}
	}
	if chunked {
		return chunkedEnd(p, next, method)
	}
	if int64(len(p)-next) < length {
		return 0, "", &RequestError{Offset: len(p), Msg: "body shorter than its Content-Length"}
	}
	return next + int(length), method, nil
}

var (
	sp               = []byte(" ")
	http1            = []byte("HTTP/1.")
	contentLength    = []byte("Content-Length")
	transferEncoding = []byte("Transfer-Encoding")
	chunkedCoding    = []byte("chunked")
)

// knownMethod returns m as a constant string when it is one of the
// methods Batch tells apart (HEAD, and the idempotent ones), else "".
func knownMethod(m []byte) string {
	for _, k := range [...]string{"GET", "HEAD", "PUT", "DELETE", "OPTIONS"} {
		if string(m) == k {
			return k
		}
	}
	return ""
}

// parseLength parses a Content-Length value: decimal digits only.
func parseLength(v []byte) (int64, bool) {
	if len(v) == 0 || len(v) > 18 {
		return 0, false
	}
	var n int64
	for _, c := range v {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	return n, true
}

// chunkedEnd returns the end of the chunked body starting at p[off:].
func chunkedEnd(p []byte, off int, method string) (int, string, error) {
	for {
		line, next, ok := nextLine(p, off)
		if !ok {
			return 0, "", &RequestError{Offset: off, Msg: "no end to a chunk size"}
		}
		if i := bytes.IndexByte(line, ';'); i >= 0 {
			line = line[:i]
		}
		n, ok := parseHex(bytes.TrimSpace(line))
		if !ok {
			return 0, "", &RequestError{Offset: off, Msg: "bad chunk size"}
		}
		if n == 0 {
			for { // trailers, up to the empty line
				line, next, ok = nextLine(p, next)
				if !ok {
					return 0, "", &RequestError{Offset: off, Msg: "no end to the trailers"}
				}
				if len(line) == 0 {
					return next, method, nil
				}
			}
		}
		if int64(len(p)-next) < n+2 || p[next+int(n)] != '\r' || p[next+int(n)+1] != '\n' {
			return 0, "", &RequestError{Offset: next, Msg: "chunk shorter than its size"}
		}
		off = next + int(n) + 2
	}
}

// parseHex parses a chunk size: hexadecimal digits only.
func parseHex(v []byte) (int64, bool) {
	if len(v) == 0 || len(v) > 15 {
		return 0, false
	}
	var n int64
	for _, c := range v {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		case c >= 'A' && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		n = n<<4 | int64(c)
	}
	return n, true
}

// nextLine returns the line at p[off:] without its CRLF (or LF), and the
// offset after it; false when no line end follows.
func nextLine(p []byte, off int) (line []byte, next int, ok bool) {
	i := bytes.IndexByte(p[off:], '\n')
	if i < 0 {
		return nil, 0, false
	}
	line = p[off : off+i]
	return bytes.TrimSuffix(line, []byte("\r")), off + i + 1, true
}

// cutLine splits the first "\n"-ended line off fields (the h1 reader's
// kept header lines).
func cutLine(fields []byte) (line, rest []byte) {
	if i := bytes.IndexByte(fields, '\n'); i >= 0 {
		return bytes.TrimSuffix(fields[:i], []byte("\r")), fields[i+1:]
	}
	return fields, nil
}

// cutField splits a header line "Name: value" into its name and its
// trimmed value, both within line.
func cutField(line []byte) (name, value []byte, ok bool) {
	i := bytes.IndexByte(line, ':')
	if i <= 0 {
		return nil, nil, false
	}
	return line[:i], bytes.TrimSpace(line[i+1:]), true
}
