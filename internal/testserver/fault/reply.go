package fault

import (
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/gb-bench/gb/internal/testserver/shape"
)

// chunkSize is the largest chunk the fault listener writes for a chunked
// body, in bytes.
const chunkSize = 16 << 10

// reply is a well-formed response of the fault listener, shaped by the
// common parameters (reliability.md §4.2).
type reply struct {
	ver   string        // "1.1" ("" too) or "1.0"
	code  int           // status code
	delay time.Duration // before the status line
	frame string        // "cl" ("" too): Content-Length; "chunked"; "close": no framing header, FIN ends the body; "none": no body, no framing header
	size  int64         // pattern body bytes (ignored when text is set)
	text  string        // literal body, if set
	conn  string        // "keep" ("" too); "close": Connection: close, then close; "silent": close without the header
	last  bool          // closeafter reached: this response ends the connection
	hdrs  []string      // extra "Name: value" lines (hdr=), after the framing headers
}

// norm fills in the defaults of the zero fields.
func (r reply) norm() reply {
	if r.ver == "" {
		r.ver = "1.1"
	}
	if r.frame == "" {
		r.frame = "cl"
	}
	if r.conn == "" {
		r.conn = "keep"
	}
	return r
}

// common parses the common parameters status=, delay=, size=, seed=,
// frame=, ver=, conn=, closeafter= and hdr= into a reply, starting from
// def. Errors are recorded in ex.perr.
func (ex *exchange) common(def shape.Shape, keys shape.Keys) reply {
	sh, err := ex.s.dice.Draw(ex.q, def, keys)
	ex.fail(err)
	r := reply{code: sh.Code, delay: sh.Delay, size: sh.Size}
	r.frame = ex.choice("frame", "cl", "chunked", "close")
	r.ver = ex.choice("ver", "1.1", "1.0")
	r.conn = ex.choice("conn", "keep", "close", "silent")
	if n := ex.num("closeafter", 0, 0, 1<<30); n > 0 && ex.fc.seq >= n {
		r.last = true
	}
	if len(ex.q["hdr"]) > shape.MaxListItems {
		ex.fail(fmt.Errorf("%w: more than %d hdr=", shape.ErrSyntax, shape.MaxListItems))
	}
	for _, kv := range ex.q["hdr"] {
		name, value, err := shape.ParseHeader(kv)
		ex.fail(err)
		r.hdrs = append(r.hdrs, name+": "+value)
	}
	return r
}

// closes reports whether the connection ends after r.
func (r reply) closes(req *request) bool {
	r = r.norm()
	return r.frame == "close" || r.conn != "keep" || r.last || req.close
}

// head returns the status line and header section of r. A closing
// HTTP/1.1 reply says Connection: close (unless conn=silent); a persistent
// HTTP/1.0 reply says Connection: keep-alive.
func (r reply) head(req *request) []byte {
	r = r.norm()
	b := make([]byte, 0, 128)
	b = fmt.Appendf(b, "HTTP/%s %d %s\r\n", r.ver, r.code, reason(r.code))
	n := r.size
	if r.text != "" {
		n = int64(len(r.text))
	}
	switch r.frame {
	case "cl":
		b = append(b, "Content-Length: "...)
		b = strconv.AppendInt(b, n, 10)
		b = append(b, "\r\n"...)
	case "chunked":
		b = append(b, "Transfer-Encoding: chunked\r\n"...)
	}
	switch {
	case r.closes(req) && r.conn != "silent" && r.ver == "1.1":
		b = append(b, "Connection: close\r\n"...)
	case r.ver == "1.0" && !r.closes(req):
		b = append(b, "Connection: keep-alive\r\n"...)
	}
	for _, h := range r.hdrs {
		b = append(b, h...)
		b = append(b, "\r\n"...)
	}
	return append(b, "\r\n"...)
}

// reason returns the reason phrase of code, or "Status" for unknown codes.
func reason(code int) string {
	if t := http.StatusText(code); t != "" {
		return t
	}
	return "Status"
}

// send writes r after its delay (no body for HEAD) and returns what to do
// with the connection. A pending parameter error is answered with 400
// instead.
func (ex *exchange) send(r reply) verdict {
	if ex.perr != nil {
		return ex.badParams()
	}
	if !ex.sleep(r.delay) {
		return finish
	}
	r = r.norm()
	head := r.head(ex.req)
	switch {
	case ex.req.method == http.MethodHead || r.frame == "none":
		ex.write(head)
	case r.text != "":
		ex.write(append(head, r.text...))
	case r.frame == "chunked":
		ex.write(head)
		ex.chunks(r.size, chunkSize, "")
	case r.size <= 4<<10:
		ex.write(append(head, shape.PatternAt(0, int(r.size))...))
	default:
		ex.write(head)
		ex.body(0, r.size)
	}
	if r.closes(ex.req) {
		return finish
	}
	return keep
}

// chunks writes n body bytes as a chunked body of chunks of at most per
// bytes, each size line carrying ext (";name=value" without the ';', or
// ""), then the last chunk and an empty trailer section.
func (ex *exchange) chunks(n int64, per int, ext string) bool {
	if !ex.chunkData(n, per, ext) {
		return false
	}
	return ex.write(chunkLine(0, ext, "\r\n"))
}

// chunkData writes the data chunks of n body bytes, without the last chunk.
func (ex *exchange) chunkData(n int64, per int, ext string) bool {
	for off := int64(0); off < n; {
		k := int(min(n-off, int64(per), shape.MaxChunk))
		b := chunkLine(k, ext, "")
		b = append(b, shape.PatternAt(off, k)...)
		if !ex.write(append(b, "\r\n"...)) {
			return false
		}
		off += int64(k)
	}
	return true
}

// chunkLine returns "<hex size>[;ext]\r\n" followed by tail.
func chunkLine(k int, ext, tail string) []byte {
	b := strconv.AppendInt(make([]byte, 0, k+32), int64(k), 16)
	if ext != "" {
		b = append(append(b, ';'), ext...)
	}
	b = append(b, "\r\n"...)
	return append(b, tail...)
}
