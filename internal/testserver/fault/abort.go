package fault

import (
	"net/http"
	"strconv"

	"github.com/gb-bench/gb/internal/testserver/shape"
)

// The fault listener's endpoints that end a connection early: FIN or RST
// before, inside or right after a response.

// serveCloseAfter answers /close-after?bytes=N (or body=N): the first N
// bytes of a Content-Length reply (or its head and N body bytes), whose
// body is made longer than that if needed, then FIN.
func serveCloseAfter(ex *exchange) verdict {
	if !ex.partial("bytes") {
		return finish
	}
	return cut
}

// serveReset answers /reset?after=N (or body=N): as /close-after, then RST.
func serveReset(ex *exchange) verdict {
	if !ex.partial("after") {
		return finish
	}
	return reset
}

// partial writes the start of a Content-Length reply shaped by the common
// parameters (size default 1000, raised to N+1 if needed so the body is
// always longer than what is written): the first N bytes of the response
// when key=N is given, or the head plus N body bytes when body=N is. It
// reports false when the exchange failed or answered a parameter error.
func (ex *exchange) partial(key string) bool {
	r := ex.common(shape.Shape{Code: http.StatusOK, Size: 1000}, shape.Keys{})
	r.frame = "cl"
	n, bodyOnly := ex.size(key, 0), ex.q.Has("body")
	if bodyOnly {
		n = ex.size("body", 0)
	}
	r.size = max(r.size, n+1)
	if ex.perr != nil {
		ex.badParams()
		return false
	}
	if !ex.sleep(r.delay) {
		return false
	}
	head := r.head(ex.req)
	if !bodyOnly {
		if n <= int64(len(head)) {
			return ex.write(head[:n])
		}
		n -= int64(len(head))
	}
	return ex.write(head) && ex.body(0, n)
}

// serveCloseBefore answers /close-before: FIN with nothing written.
func serveCloseBefore(*exchange) verdict { return cut }

// serveResetBefore answers /reset-before: RST with nothing written.
func serveResetBefore(*exchange) verdict { return reset }

// serveEarly answers /early-response?code=413&drain=: the reply goes out
// before the request body is read. drain=0 (default) says Connection:
// close and closes at once, so unread body bytes make the kernel send RST;
// drain=1 then reads the body and keeps the connection.
func serveEarly(ex *exchange) verdict {
	code := ex.num("code", http.StatusRequestEntityTooLarge, 200, 599)
	drain := ex.choice("drain", "0", "1") == "1"
	r := reply{code: code, text: http.StatusText(code) + "\n"}
	if !drain {
		r.conn = "close"
	}
	if ex.perr != nil {
		return ex.badParams() // the unread body follows; close
	}
	ex.req.expect100 = false // the final answer is out: no 100 Continue
	v := ex.send(r)
	if !drain {
		return dropConn(v)
	}
	if !ex.readBody() {
		return finish
	}
	return v
}

// dropConn turns finish into abandon: close at once, without the lingering
// drain that would read the unread body.
func dropConn(v verdict) verdict {
	if v == finish {
		return abandon
	}
	return v
}

// contentLength formats n for a header.
func contentLength(n int64) string { return "Content-Length: " + strconv.FormatInt(n, 10) }
