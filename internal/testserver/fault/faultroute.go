package fault

import "sync"

// faultRoute is one endpoint of the fault listener.
type faultRoute struct {
	path  string
	desc  string
	serve func(*exchange) verdict
	early bool // serve runs before the request body is read
}

// faultRoutes lists the fault listener's endpoints (reliability.md §4.3).
// Unless stated otherwise an endpoint also takes the common parameters
// status=, delay=, size=, seed=, frame=cl|chunked|close, ver=1.0|1.1,
// conn=keep|close|silent, closeafter=N and hdr=Name:Value.
func faultRoutes() []faultRoute {
	return []faultRoute{
		{"/ok", "well-formed reply shaped by the common parameters (status= delay= size= frame= ver= conn= closeafter= hdr= seed=)", serveOK, false},
		{"/status", "?code=N fixed status (weighted lists allowed); body by size=", serveStatus, false},
		{"/delay", "?ms=N waits before the status line (time to first byte)", serveDelay, false},
		{"/slow-headers", "?interval=100ms&bytes=N writes the head one byte per interval, padded to bytes", serveSlowHeaders, false},
		{"/drip", "?interval=100ms&bytes=10 head at once, then the body one byte per interval", serveDrip, false},
		{"/stall", "?ms=N|inf[&then=close] sends nothing for ms (default inf), then replies (or FIN)", serveStall, false},
		{"/stall-body", "?after=10&ms=N|inf head and after body bytes of size (default 2*after), then a stall", serveStallBody, false},
		{"/close-after", "?bytes=N|body=N first N bytes of the response (or head + N body bytes) of a longer CL reply, then FIN", serveCloseAfter, false},
		{"/reset", "?after=N|body=N first N bytes of the response (or head + N body bytes), then RST", serveReset, false},
		{"/close-before", "reads the request, then FIN with nothing written", serveCloseBefore, false},
		{"/reset-before", "reads the request, then RST with nothing written", serveResetBefore, false},
		{"/idle-close", "?after=100ms normal reply, then FIN once the connection idled for after", serveIdleClose, false},
		{"/length-mismatch", "?declared=10&actual=20 Content-Length declared, actual body bytes (short: connection held open)", serveLengthMismatch, false},
		{"/cl-invalid", "?v=abc|-1|10,20|dup|99999999999999999999 invalid Content-Length, 10 body bytes, then FIN", serveCLInvalid, false},
		{"/cl-and-te", "?size=100&cl=N Content-Length and Transfer-Encoding: chunked with a valid chunked body", serveCLAndTE, false},
		{"/te", "?v=gzip&size=100 Transfer-Encoding without chunked last: raw body delimited by FIN", serveTE, false},
		{"/chunked", "?n=3&size=10&ext=&trailers=X-T:1&bad=missing-final|bad-hex|overflow|no-crlf|long-ext|long-line", serveChunkedFault, false},
		{"/1xx", "?codes=100,103&n=N interim responses (codes repeated to n), then the final reply", serve1xx, false},
		{"/101", "unsolicited 101 Switching Protocols, then FIN", serve101, false},
		{"/nobody", "?code=204|304&cl=N&te=chunked framing headers on a bodiless status", serveNoBody, false},
		{"/head", "?cl=100 HEAD gets Content-Length and no body; GET gets the body", serveHead, false},
		{"/http10", "?ka=0|1 HTTP/1.0 reply: close-delimited (0) or keep-alive with Content-Length (1)", serveHTTP10, false},
		{"/fold", "obs-fold header line (X-Fold: a CRLF SP b)", serveFold, false},
		{"/bare-lf", "head lines end in LF instead of CRLF", serveBareLF, false},
		{"/space-colon", "?name=X-Space header with a space before the colon", serveSpaceColon, false},
		{"/non-ascii-hdr", "header value with UTF-8 and 0xFF bytes", serveNonASCII, false},
		{"/big-headers", "?bytes=1MiB&count=N about bytes of header lines in count fields (streamed)", serveBigHeaders, false},
		{"/big-body", "?bytes=1GiB Content-Length body, generated and streamed", serveBigBody, false},
		{"/garbage", "?kind=random|ssh|tls|empty|html no valid status line, then FIN", serveGarbage, false},
		{"/early-response", "?code=413&drain=0|1 answers before reading the body; drain=0 closes at once, 1 reads it and keeps the connection", serveEarly, true},
		{"/auth-echo", `{"authorization":bool,"cookie":bool}: which credentials arrived (also in the ledger row)`, serveAuthEcho, false},
	}
}

// faultIndex maps a path to its route.
var faultIndex = sync.OnceValue(func() map[string]*faultRoute {
	rts := faultRoutes()
	m := make(map[string]*faultRoute, len(rts))
	for i := range rts {
		m[rts[i].path] = &rts[i]
	}
	return m
})

// faultRouteOf returns the route of path, or nil.
func faultRouteOf(path string) *faultRoute { return faultIndex()[path] }

// Route describes one endpoint, for listings such as gb serve's.
type Route struct {
	Path        string // e.g. "/reset"
	Description string // its parameters and what it does, one line
}

// Routes lists the endpoints, in the order gb serve prints them.
func Routes() []Route {
	rts := faultRoutes()
	out := make([]Route, len(rts))
	for i, rt := range rts {
		out[i] = Route{Path: rt.path, Description: rt.desc}
	}
	return out
}
