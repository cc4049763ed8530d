package fault

import (
	"errors"
	"fmt"
	"io"
	"net/url"
	"slices"
	"time"

	"github.com/gb-bench/gb/internal/testserver/shape"
)

// verdict is what a fault handler wants done with the connection after its
// response.
type verdict int

const (
	keep    verdict = iota // response complete; read the next request (unless the client asked to close)
	finish                 // response complete; close with FIN (close-delimited body, Connection: close)
	cut                    // close with FIN, the response cut short on purpose (EndFIN)
	reset                  // abort with RST (EndRST)
	hold                   // send nothing more; wait until the client leaves or the server closes
	abandon                // response complete; close at once (unread input makes the kernel send RST)
)

// exchange is one request and its response on the fault listener. It is
// owned by the connection's goroutine.
type exchange struct {
	fc      *faultConn
	s       *Server
	req     *request
	q       url.Values
	row     *Exchange // the ledger row; written only through book.close
	in, out int64     // request and response bytes so far
	end     End       // EndClientGone or EndStalled once the exchange failed
	perr    error     // first bad query parameter
}

// exchange serves one request and reports whether the connection stays
// open.
func (fc *faultConn) exchange(req *request) bool {
	s := fc.s
	ex := &exchange{fc: fc, s: s, req: req, q: req.query, in: req.headBytes}
	ex.row = s.book.open(Exchange{
		Conn: fc.id, Seq: fc.seq, Method: req.method, Target: req.target, Endpoint: req.path,
		Tag: req.tag, Auth: req.auth, Cookie: req.cookie, Arrival: time.Since(s.origin),
	})
	return ex.finish(ex.run())
}

// run reads the request body (unless the endpoint answers early), waits
// out a global stall and calls the endpoint.
func (ex *exchange) run() verdict {
	rt := faultRouteOf(ex.req.path)
	if rt == nil || !rt.early {
		if !ex.readBody() {
			return finish
		}
	}
	if !ex.s.gate.Wait(nil, ex.s.done) {
		ex.end = EndStalled
		return finish
	}
	if rt == nil {
		return ex.send(reply{code: 404, frame: "cl", text: "no such fault endpoint: " + ex.req.path + "\n"})
	}
	return rt.serve(ex)
}

// readBody discards the request body, answering 100 Continue first when
// asked; it reports false when the body could not be read.
func (ex *exchange) readBody() bool {
	n := ex.req.contentLength
	if n <= 0 {
		return true
	}
	if n > maxRequestBody {
		ex.send(reply{code: 413, frame: "cl", conn: "close", text: "request body too large\n"})
		return false
	}
	if ex.req.expect100 && !ex.write([]byte("HTTP/1.1 100 Continue\r\n\r\n")) {
		return false
	}
	ex.fc.c.SetReadDeadline(time.Now().Add(headTimeout))
	m, err := io.CopyN(io.Discard, ex.fc.br, n)
	ex.fc.c.SetReadDeadline(time.Time{})
	ex.in += m
	if err != nil {
		ex.end = EndClientGone
		return false
	}
	return true
}

// finish records how the exchange ended, then keeps, closes or resets the
// connection. The row is written before the FIN or RST goes out, so a
// client that has seen the end finds it in the ledger.
func (ex *exchange) finish(v verdict) bool {
	end := ex.end
	if end == "" {
		switch v {
		case keep, finish, abandon:
			end = EndComplete
		case cut:
			end = EndFIN
		case reset:
			end = EndRST
		case hold:
			end = ex.hold()
		}
	}
	ex.s.book.close(ex.row, end, ex.in, ex.out)
	switch {
	case end == EndComplete && v == keep && !ex.req.close:
		return true
	case end == EndComplete && v == abandon:
		ex.fc.c.Close()
	case end == EndComplete || end == EndFIN:
		ex.fc.fin()
	case end == EndRST:
		ex.fc.rst()
	}
	return false
}

// hold reads and discards until the client leaves (EndClientGone) or the
// server closes the connection (EndStalled).
func (ex *exchange) hold() End {
	io.Copy(io.Discard, ex.fc.br)
	if ex.s.closing() {
		return EndStalled
	}
	return EndClientGone
}

// sleep waits d; it reports false, marking the exchange stalled, when the
// server closes first.
func (ex *exchange) sleep(d time.Duration) bool {
	if ex.end != "" {
		return false
	}
	if !shape.Sleep(d, nil, ex.s.done) {
		ex.end = EndStalled
		return false
	}
	return true
}

// write writes p unless the exchange already failed; a failed write marks
// the client gone (or the exchange stalled when the server is closing).
func (ex *exchange) write(p []byte) bool {
	if ex.end != "" {
		return false
	}
	n, err := ex.fc.c.Write(p)
	ex.out += int64(n)
	if err != nil {
		ex.end = EndClientGone
		if ex.s.closing() {
			ex.end = EndStalled
		}
		return false
	}
	return true
}

// body writes the body bytes [off, off+n).
func (ex *exchange) body(off, n int64) bool {
	for end := off + n; off < end; {
		k := int(min(end-off, shape.MaxChunk))
		if !ex.write(shape.PatternAt(off, k)) {
			return false
		}
		off += int64(k)
	}
	return true
}

// fail records the first parameter error.
func (ex *exchange) fail(err error) {
	if ex.perr == nil {
		ex.perr = err
	}
}

// size returns the byte count parameter name, or def.
func (ex *exchange) size(name string, def int64) int64 {
	if v := ex.q.Get(name); v != "" {
		n, err := shape.ParseSize(v, shape.MaxBodySize)
		ex.fail(err)
		return n
	}
	return def
}

// num returns the integer parameter name in [lo, hi], or def.
func (ex *exchange) num(name string, def, lo, hi int) int {
	if v := ex.q.Get(name); v != "" {
		n, err := shape.ParseInt(v, lo, hi)
		ex.fail(err)
		return n
	}
	return def
}

// dur returns the duration parameter name (bare numbers are ms), or def;
// inf reports the value "inf".
func (ex *exchange) dur(name string, def time.Duration) (d time.Duration, inf bool) {
	v := ex.q.Get(name)
	if v == "inf" {
		return 0, true
	}
	if v == "" {
		return def, false
	}
	d, err := shape.ParseDelay(v)
	ex.fail(err)
	return d, false
}

// choice returns the parameter name, which must be one of allowed, or
// allowed[0] when absent.
func (ex *exchange) choice(name string, allowed ...string) string {
	v := ex.q.Get(name)
	if v == "" {
		return allowed[0]
	}
	if !slices.Contains(allowed, v) {
		ex.fail(fmt.Errorf("%w: %s=%q (want one of %v)", shape.ErrSyntax, name, v, allowed))
	}
	return v
}

// badParams answers 400 with the first parameter error.
func (ex *exchange) badParams() verdict {
	msg := ex.perr.Error()
	if !errors.Is(ex.perr, shape.ErrSyntax) {
		msg = shape.ErrSyntax.Error() + ": " + msg
	}
	ex.perr = nil
	return ex.send(reply{code: 400, frame: "cl", text: msg + "\n"})
}
