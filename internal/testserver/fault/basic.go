package fault

import (
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/gb-bench/gb/internal/testserver/shape"
)

// The fault listener's well-formed endpoints.

// defaultShape is a 200 with an empty body and no delay.
var defaultShape = shape.Shape{Code: http.StatusOK}

// serveOK answers /ok.
func serveOK(ex *exchange) verdict {
	return ex.send(ex.common(defaultShape, shape.Keys{}))
}

// serveStatus answers /status?code=.
func serveStatus(ex *exchange) verdict {
	return ex.send(ex.common(defaultShape, shape.Keys{Status: "code"}))
}

// serveDelay answers /delay?ms=.
func serveDelay(ex *exchange) verdict {
	return ex.send(ex.common(defaultShape, shape.Keys{Delay: "ms"}))
}

// serveHead answers /head?cl=: the usual reply with a body of cl bytes,
// which send leaves out for HEAD.
func serveHead(ex *exchange) verdict {
	r := ex.common(defaultShape, shape.Keys{})
	r.size = ex.size("cl", 100)
	return ex.send(r)
}

// serveHTTP10 answers /http10?ka=: an HTTP/1.0 reply, close-delimited
// (ka=0, the default) or kept alive with Content-Length (ka=1).
func serveHTTP10(ex *exchange) verdict {
	r := ex.common(shape.Shape{Code: http.StatusOK, Size: 100}, shape.Keys{})
	r.ver = "1.0"
	if ex.choice("ka", "0", "1") == "0" {
		r.frame = "close"
	} else {
		r.frame = "cl"
	}
	return ex.send(r)
}

// serveNoBody answers /nobody?code=204|304&cl=&te=chunked: a bodiless
// status carrying framing headers, on a connection kept alive.
func serveNoBody(ex *exchange) verdict {
	code, _ := strconv.Atoi(ex.choice("code", "204", "304"))
	r := reply{code: code, frame: "none"}
	if ex.q.Has("cl") {
		r.hdrs = append(r.hdrs, contentLength(ex.size("cl", 0)))
	}
	if ex.choice("te", "", "chunked") == "chunked" {
		r.hdrs = append(r.hdrs, "Transfer-Encoding: chunked")
	}
	return ex.send(r)
}

// serveBigBody answers /big-body?bytes=: a Content-Length body of bytes
// (default 1 GiB), streamed from the pattern.
func serveBigBody(ex *exchange) verdict {
	r := ex.common(shape.Shape{Code: http.StatusOK, Size: 1 << 30}, shape.Keys{})
	r.size = ex.size("bytes", r.size)
	return ex.send(r)
}

// serveAuthEcho answers /auth-echo with which credentials arrived.
func serveAuthEcho(ex *exchange) verdict {
	return ex.send(reply{
		code: http.StatusOK,
		hdrs: []string{"Content-Type: application/json"},
		text: fmt.Sprintf(`{"authorization":%t,"cookie":%t}`+"\n", ex.req.auth, ex.req.cookie),
	})
}

// serveIdleClose answers /idle-close?after=: a normal reply; then, if no
// request arrives within after (default 100ms), the connection is closed
// without notice (FIN).
func serveIdleClose(ex *exchange) verdict {
	r := ex.common(defaultShape, shape.Keys{})
	d, inf := ex.dur("after", 100*time.Millisecond)
	if inf || d <= 0 {
		ex.fail(fmt.Errorf("%w: after= must be a positive duration", shape.ErrSyntax))
	}
	v := ex.send(r)
	ex.fc.idle = d
	return v
}
