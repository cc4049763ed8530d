package fault

import (
	"fmt"
	"net/http"
	"time"

	"github.com/gb-bench/gb/internal/testserver/shape"
)

// The fault listener's slow endpoints. Every wait ends when the server
// closes (EndStalled).

// Limits of the slow endpoints.
const (
	maxSlowHead = 16 << 20 // /slow-headers?bytes=
	maxDrip     = 1 << 30  // /drip?bytes=
	padLine     = 1024     // longest X-Pad line, bytes
)

// serveSlowHeaders answers /slow-headers?interval=&bytes=: the status line
// and header section (padded with X-Pad lines to bytes) written one byte
// per interval, then an empty body.
func serveSlowHeaders(ex *exchange) verdict {
	interval, _ := ex.dur("interval", 100*time.Millisecond)
	total := ex.size("bytes", 0)
	if total > maxSlowHead {
		ex.fail(fmt.Errorf("%w: bytes= above %d", shape.ErrSyntax, maxSlowHead))
	}
	if ex.perr != nil {
		return ex.badParams()
	}
	head := reply{code: http.StatusOK}.head(ex.req)
	head = padHead(head, int(total))
	for i := range head {
		if i > 0 && !ex.sleep(interval) || !ex.write(head[i:i+1]) {
			return finish
		}
	}
	return keepUnless(ex)
}

// minPad is the shortest X-Pad line: "X-Pad: a\r\n".
const minPad = 10

// padHead inserts X-Pad lines before the final CRLF of head so that it is
// total bytes long; a shortfall smaller than minPad rounds up to minPad.
func padHead(head []byte, total int) []byte {
	out := append([]byte(nil), head[:len(head)-2]...)
	for rem := total - len(head); rem > 0; {
		n := min(rem, padLine)
		if left := rem - n; left > 0 && left < minPad {
			n -= minPad - left // leave room for one more line
		}
		n = max(n, minPad)
		out = append(out, "X-Pad: "...)
		out = append(out, shape.PatternAt(0, n-9)...)
		out = append(out, "\r\n"...)
		rem -= n
	}
	return append(out, "\r\n"...)
}

// keepUnless returns keep, or finish when the client asked to close.
func keepUnless(ex *exchange) verdict {
	if ex.req.close {
		return finish
	}
	return keep
}

// serveDrip answers /drip?interval=&bytes=: the head at once (Content-Length
// bytes, default 10), then the body one byte per interval.
func serveDrip(ex *exchange) verdict {
	interval, _ := ex.dur("interval", 100*time.Millisecond)
	r := ex.common(shape.Shape{Code: http.StatusOK}, shape.Keys{})
	r.frame, r.size = "cl", ex.size("bytes", 10)
	if r.size > maxDrip {
		ex.fail(fmt.Errorf("%w: bytes= above %d", shape.ErrSyntax, maxDrip))
	}
	if ex.perr != nil {
		return ex.badParams()
	}
	if !ex.sleep(r.delay) || !ex.write(r.head(ex.req)) {
		return finish
	}
	for i := range r.size {
		if !ex.sleep(interval) || !ex.write(shape.PatternAt(i, 1)) {
			return finish
		}
	}
	return closeOrKeep(ex, r)
}

// closeOrKeep returns finish when r ends the connection, else keep.
func closeOrKeep(ex *exchange, r reply) verdict {
	if r.closes(ex.req) {
		return finish
	}
	return keep
}

// serveStall answers /stall?ms=&then=: nothing for ms (default inf: until
// the client leaves or the server closes), then the reply, or a FIN with
// nothing written when then=close.
func serveStall(ex *exchange) verdict {
	d, inf := ex.dur("ms", 0)
	if !ex.q.Has("ms") {
		inf = true
	}
	then := ex.choice("then", "reply", "close")
	r := ex.common(defaultShape, shape.Keys{})
	if ex.perr != nil {
		return ex.badParams()
	}
	if inf {
		return hold
	}
	if !ex.sleep(d) {
		return finish
	}
	if then == "close" {
		return cut
	}
	return ex.send(r)
}

// serveStallBody answers /stall-body?after=&ms=: the head of a Content-Length
// reply of size bytes (default 2*after, at least after+1), after body bytes
// (default 10), then nothing for ms (default inf), then the rest.
func serveStallBody(ex *exchange) verdict {
	after := ex.size("after", 10)
	d, inf := ex.dur("ms", 0)
	if !ex.q.Has("ms") {
		inf = true
	}
	r := ex.common(shape.Shape{Code: http.StatusOK, Size: max(2*after, after+1)}, shape.Keys{})
	r.frame, r.size = "cl", max(r.size, after+1)
	if ex.perr != nil {
		return ex.badParams()
	}
	if !ex.sleep(r.delay) || !ex.write(r.head(ex.req)) || !ex.body(0, after) {
		return finish
	}
	if inf {
		return hold
	}
	if !ex.sleep(d) || !ex.body(after, r.size-after) {
		return finish
	}
	return closeOrKeep(ex, r)
}
