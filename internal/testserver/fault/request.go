package fault

import (
	"bufio"
	"bytes"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/gb-bench/gb/internal/testserver/shape"
)

// Limits of the fault listener's request reader.
const (
	maxLine   = 8 << 10  // bytes in the request line or one header line (the bufio.Reader size)
	maxHead   = 64 << 10 // bytes in the whole request head
	maxFields = 100      // header fields
	maxTag    = 64       // bytes of X-Gb-Seq kept in the ledger
)

// request is a parsed request head of the fault listener.
type request struct {
	method, target, proto string
	path                  string
	query                 url.Values
	contentLength         int64 // -1 when absent
	close                 bool  // the client does not want the connection kept
	expect100             bool  // Expect: 100-continue
	tag                   string
	auth, cookie          bool
	headBytes             int64 // request line and header section, terminators included
}

// requestError is a request the reader rejects; code is the status to
// answer before closing.
type requestError struct {
	code int
	msg  string
}

func (e *requestError) Error() string { return fmt.Sprintf("%d %s", e.code, e.msg) }

func malformed(format string, args ...any) error {
	return &requestError{http.StatusBadRequest, fmt.Sprintf(format, args...)}
}

// readRequest reads one request head from br. A bare LF ends a line as
// well as CRLF. It returns a *requestError for requests it rejects and the
// reader's error (io.EOF, a timeout) otherwise.
func readRequest(br *bufio.Reader) (*request, error) {
	req := &request{contentLength: -1}
	line, err := req.readLine(br)
	if err != nil {
		return nil, err
	}
	if err := req.parseRequestLine(line); err != nil {
		return nil, err
	}
	var conn []string
	for fields := 0; ; fields++ {
		line, err := req.readLine(br)
		if err != nil {
			return nil, err
		}
		if len(line) == 0 {
			break
		}
		if fields == maxFields {
			return nil, &requestError{http.StatusRequestHeaderFieldsTooLarge, "too many header fields"}
		}
		name, value, err := splitField(line)
		if err != nil {
			return nil, err
		}
		if strings.EqualFold(name, "Connection") {
			conn = append(conn, strings.Split(strings.ToLower(value), ",")...)
		} else if err := req.field(name, value); err != nil {
			return nil, err
		}
	}
	keepAlive, closeConn := false, false
	for _, opt := range conn {
		switch strings.TrimSpace(opt) {
		case "close":
			closeConn = true
		case "keep-alive":
			keepAlive = true
		}
	}
	req.close = closeConn || req.proto == "HTTP/1.0" && !keepAlive
	return req, nil
}

// readLine reads one line without its terminator, counting head bytes.
func (req *request) readLine(br *bufio.Reader) ([]byte, error) {
	line, err := br.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		return nil, &requestError{http.StatusRequestHeaderFieldsTooLarge, "header line too long"}
	}
	if err != nil {
		if len(line) > 0 || req.headBytes > 0 {
			return nil, malformed("incomplete request head")
		}
		return nil, err
	}
	req.headBytes += int64(len(line))
	if req.headBytes > maxHead {
		return nil, &requestError{http.StatusRequestHeaderFieldsTooLarge, "request head too large"}
	}
	line = bytes.TrimSuffix(line[:len(line)-1], []byte("\r"))
	if bytes.IndexByte(line, '\r') >= 0 {
		return nil, malformed("bare CR")
	}
	return line, nil
}

// parseRequestLine parses "METHOD target HTTP/1.x".
func (req *request) parseRequestLine(line []byte) error {
	parts := strings.Split(string(line), " ")
	if len(parts) != 3 || !shape.IsToken(parts[0]) {
		return malformed("bad request line %q", line)
	}
	req.method, req.target, req.proto = parts[0], parts[1], parts[2]
	if req.proto != "HTTP/1.1" && req.proto != "HTTP/1.0" {
		return &requestError{http.StatusHTTPVersionNotSupported, "unsupported version " + req.proto}
	}
	u, err := url.ParseRequestURI(req.target)
	if err != nil {
		return malformed("bad request target %q", req.target)
	}
	if req.query, err = url.ParseQuery(u.RawQuery); err != nil {
		return malformed("bad query %q", u.RawQuery)
	}
	req.path = u.Path
	return nil
}

// splitField splits "Name: value"; whitespace before the colon and
// obs-fold are rejected (RFC 9112 §5.1, §5.2).
func splitField(line []byte) (name, value string, err error) {
	n, v, ok := strings.Cut(string(line), ":")
	if !ok || !shape.IsToken(n) {
		return "", "", malformed("bad header line %q", line)
	}
	return n, strings.Trim(v, " \t"), nil
}

// field records the header fields the fault listener acts on.
func (req *request) field(name, value string) error {
	switch strings.ToLower(name) {
	case "content-length":
		n, err := strconv.ParseInt(value, 10, 64)
		if err != nil || n < 0 || req.contentLength >= 0 && req.contentLength != n {
			return malformed("bad Content-Length %q", value)
		}
		req.contentLength = n
	case "transfer-encoding":
		return &requestError{http.StatusNotImplemented, "request Transfer-Encoding is not supported"}
	case "expect":
		req.expect100 = strings.EqualFold(value, "100-continue")
	case "x-gb-seq":
		req.tag = value[:min(len(value), maxTag)]
	case "authorization":
		req.auth = true
	case "cookie":
		req.cookie = true
	}
	return nil
}
