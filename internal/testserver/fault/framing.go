package fault

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/gb-bench/gb/internal/testserver/shape"
)

// The fault listener's framing endpoints: bodies whose length the headers
// get wrong, odd Transfer-Encodings, chunked variants and interim replies.

// Limits of the framing endpoints.
const (
	maxInterim = 1000     // /1xx?n=
	longLine   = 64 << 10 // bytes of the long-ext and long-line chunk size lines
)

// serveLengthMismatch answers /length-mismatch?declared=&actual=: a
// Content-Length of declared (default 10) and actual (default 20) body
// bytes. Excess bytes go onto the wire and the connection is kept; a short
// body leaves the connection open with nothing more sent.
func serveLengthMismatch(ex *exchange) verdict {
	declared, actual := ex.size("declared", 10), ex.size("actual", 20)
	if ex.perr != nil {
		return ex.badParams()
	}
	if !ex.write(reply{code: http.StatusOK, size: declared}.head(ex.req)) || !ex.body(0, actual) {
		return finish
	}
	if actual < declared {
		return hold
	}
	return keepUnless(ex)
}

// serveCLInvalid answers /cl-invalid?v=: "Content-Length: v" (v=dup sends
// two different Content-Length fields), 10 body bytes, then FIN.
func serveCLInvalid(ex *exchange) verdict {
	v := ex.q.Get("v")
	if v == "" {
		v = "abc"
	}
	r := reply{code: http.StatusOK, frame: "none", conn: "close"}
	if v == "dup" {
		r.hdrs = []string{"Content-Length: 10", "Content-Length: 20"}
	} else if _, _, err := shape.ParseHeader("Content-Length:" + v); err != nil {
		ex.fail(err)
	} else {
		r.hdrs = []string{"Content-Length: " + v}
	}
	if ex.perr != nil {
		return ex.badParams()
	}
	ex.write(r.head(ex.req))
	ex.body(0, 10)
	return finish
}

// serveCLAndTE answers /cl-and-te?size=&cl=: both Content-Length (default:
// the decoded size, which is not the wire length) and Transfer-Encoding:
// chunked, with a valid chunked body of size bytes (default 100).
func serveCLAndTE(ex *exchange) verdict {
	size := ex.size("size", 100)
	cl := ex.size("cl", size)
	if ex.perr != nil {
		return ex.badParams()
	}
	r := reply{code: http.StatusOK, frame: "chunked", hdrs: []string{contentLength(cl)}}
	if !ex.write(r.head(ex.req)) || !ex.chunks(size, chunkSize, "") {
		return finish
	}
	return keepUnless(ex)
}

// serveTE answers /te?v=gzip&size=: "Transfer-Encoding: v". When the last
// coding is not chunked the body is size raw pattern bytes (not actually
// encoded) delimited by FIN; when it is, the body is chunked.
func serveTE(ex *exchange) verdict {
	v := ex.q.Get("v")
	if v == "" {
		v = "gzip"
	}
	if _, _, err := shape.ParseHeader("Transfer-Encoding:" + v); err != nil {
		ex.fail(err)
	}
	size := ex.size("size", 100)
	if ex.perr != nil {
		return ex.badParams()
	}
	codings := strings.Split(v, ",")
	chunked := strings.EqualFold(strings.TrimSpace(codings[len(codings)-1]), "chunked")
	r := reply{code: http.StatusOK, frame: "none", hdrs: []string{"Transfer-Encoding: " + v}}
	if !chunked {
		r.conn = "close"
	}
	if !ex.write(r.head(ex.req)) {
		return finish
	}
	if chunked {
		ex.chunks(size, chunkSize, "")
		return keepUnless(ex)
	}
	ex.body(0, size)
	return finish
}

// serve1xx answers /1xx?codes=100,103&n=: n interim responses (default one
// per code, codes repeated in order), then the final reply.
func serve1xx(ex *exchange) verdict {
	list := ex.q.Get("codes")
	if list == "" {
		list = "100"
	}
	var codes []int
	for _, c := range strings.SplitN(list, ",", shape.MaxListItems) {
		n, err := shape.ParseInt(c, 100, 199)
		ex.fail(err)
		codes = append(codes, n)
	}
	n := ex.num("n", len(codes), 0, maxInterim)
	r := ex.common(defaultShape, shape.Keys{})
	if ex.perr != nil {
		return ex.badParams()
	}
	for i := range n {
		code := codes[i%len(codes)]
		if !ex.write(fmt.Appendf(nil, "HTTP/1.1 %d %s\r\n\r\n", code, reason(code))) {
			return finish
		}
	}
	return ex.send(r)
}

// serve101 answers /101: an unsolicited 101 Switching Protocols, then FIN.
func serve101(ex *exchange) verdict {
	ex.write([]byte("HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: gb-test\r\n\r\n"))
	return finish
}

// chunkedFault is the parsed query of the fault listener's /chunked.
type chunkedFault struct {
	n, size  int
	ext      string
	trailers []string // "Name: value"
	bad      string
}

// parseChunkedFault parses n= (default 3), size= (default 10), ext=,
// trailers= (comma-separated or repeated Name:Value) and bad=.
func (ex *exchange) parseChunkedFault() chunkedFault {
	cf := chunkedFault{n: ex.num("n", 3, 0, shape.MaxChunks), size: ex.num("size", 10, 1, shape.MaxChunk)}
	cf.ext = ex.q.Get("ext")
	if _, _, err := shape.ParseHeader("ext:" + cf.ext); err != nil || len(cf.ext) > maxLine {
		ex.fail(fmt.Errorf("%w: ext=%q", shape.ErrSyntax, cf.ext))
	}
	for _, list := range ex.q["trailers"] {
		for _, kv := range strings.Split(list, ",") {
			name, value, err := shape.ParseHeader(kv)
			ex.fail(err)
			cf.trailers = append(cf.trailers, name+": "+value)
		}
	}
	cf.bad = ex.choice("bad", "", "missing-final", "bad-hex", "overflow", "no-crlf", "long-ext", "long-line")
	return cf
}

// sizeLine returns chunk size line of k bytes; the first line (first)
// carries the bad= variant.
func (cf chunkedFault) sizeLine(k int, first bool) []byte {
	bad := ""
	if first {
		bad = cf.bad
	}
	switch bad {
	case "bad-hex":
		return []byte("xyz\r\n")
	case "overflow":
		return []byte("10000000000000000\r\n") // 2^64
	case "long-ext":
		return chunkLine(k, "x="+strings.Repeat("a", longLine), "")
	case "long-line":
		return append([]byte(strings.Repeat("0", longLine)), chunkLine(k, cf.ext, "")...)
	}
	return chunkLine(k, cf.ext, "")
}

// serveChunkedFault answers /chunked: n chunks of size bytes with ext on
// every size line, the last chunk, the trailers; or one bad= variant, after
// which the connection is closed (missing-final: FIN instead of the last
// chunk, EndFIN).
func serveChunkedFault(ex *exchange) verdict {
	cf := ex.parseChunkedFault()
	if ex.perr != nil {
		return ex.badParams()
	}
	r := reply{code: http.StatusOK, frame: "chunked"}
	for _, t := range cf.trailers {
		r.hdrs = append(r.hdrs, "Trailer: "+t[:strings.IndexByte(t, ':')])
	}
	if !ex.write(r.head(ex.req)) {
		return finish
	}
	for i := range cf.n {
		b := append(cf.sizeLine(cf.size, i == 0), shape.PatternAt(int64(i)*int64(cf.size), cf.size)...)
		if cf.bad != "no-crlf" {
			b = append(b, "\r\n"...)
		}
		if !ex.write(b) {
			return finish
		}
	}
	if cf.bad == "missing-final" {
		return cut
	}
	last := cf.sizeLine(0, cf.n == 0)
	for _, t := range cf.trailers {
		last = append(last, t+"\r\n"...)
	}
	if !ex.write(append(last, "\r\n"...)) || cf.bad != "" {
		return finish
	}
	return keepUnless(ex)
}
