package script

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
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
		switch method {
		case "GET", "HEAD", "PUT", "DELETE", "OPTIONS":
		default:
			b.Idempotent = false
		}
		off = end
	}
	return nil
}

// parseRequest reads the request at p[off:]: its request line, header
// section and body (Content-Length or chunked), and returns its end.
func parseRequest(p []byte, off int) (end int, method string, err error) {
	line, next, ok := nextLine(p, off)
	if !ok {
		return 0, "", &RequestError{Offset: off, Msg: "no end to the request line"}
	}
	parts := strings.Split(string(line), " ")
	if len(parts) != 3 || parts[0] == "" || parts[1] == "" || !strings.HasPrefix(parts[2], "HTTP/1.") {
		return 0, "", &RequestError{Offset: off, Msg: "bad request line"}
	}
	method = parts[0]
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
		case strings.EqualFold(name, "Content-Length"):
			if length, err = strconv.ParseInt(value, 10, 64); err != nil || length < 0 {
				return 0, "", &RequestError{Offset: start, Msg: "bad Content-Length"}
			}
		case strings.EqualFold(name, "Transfer-Encoding"):
			chunked = strings.EqualFold(strings.TrimSpace(value[strings.LastIndex(value, ",")+1:]), "chunked")
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
		n, err := strconv.ParseInt(strings.TrimSpace(string(line)), 16, 64)
		if err != nil || n < 0 {
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
// trimmed value.
func cutField(line []byte) (name, value string, ok bool) {
	i := bytes.IndexByte(line, ':')
	if i <= 0 {
		return "", "", false
	}
	return string(line[:i]), strings.TrimSpace(string(line[i+1:])), true
}
