package testserver

import (
	"expvar"
	"fmt"
	"io"
	"net/http"
	"net/http/pprof"
	"strings"

	"github.com/gb-bench/gb/internal/testserver/fault"
	"github.com/gb-bench/gb/internal/testserver/shape"
)

// maxRequestBody caps the request body bytes a handler reads and discards.
const maxRequestBody = 1 << 30

// httpRoute is one endpoint of the main and TLS listeners.
type httpRoute struct {
	pattern string // http.ServeMux pattern
	desc    string
	serve   func(s *Server, w http.ResponseWriter, r *http.Request)
}

// httpRoutes lists the endpoints of the main and TLS listeners. It is a
// function, not a variable, because serveIndex lists the routes.
func httpRoutes() []httpRoute {
	return append([]httpRoute{
		{"/{$}", "this list", (*Server).serveIndex},
		{"/bytes/{n}", "n body bytes (a..z repeated), Content-Length framing; n up to 1GiB, suffixes k/m/g", (*Server).serveBytes},
		{"/hello", `"Hello, World!" (13 bytes, text/plain)`, fixedText("Hello, World!")},
		{"/1k.dat", "1024 body bytes", fixedSize(1 << 10)},
		{"/10k.dat", "10240 body bytes", fixedSize(10 << 10)},
		{"/100k.dat", "102400 body bytes", fixedSize(100 << 10)},
		{"/1m.dat", "1048576 body bytes", fixedSize(1 << 20)},
		{"/json", `{"message":"Hello, World!"} as application/json (TechEmpower)`, (*Server).serveJSON},
		{"/leftpad", `?str=&len=&chr= left-pads str, slowly on purpose (profiling demo); {"str":"..."}`, (*Server).serveLeftpad},
		{"/ok", "?status=&delay=&size=&seed=&hdr=Name:Value weighted lists, e.g. status=200:95,503:5", serveShape(shape.Keys{}, false)},
		{"/delay", "?d=10ms:90,200ms:10&seed= waits a weighted random delay (bare numbers are ms)", serveShape(shape.Keys{Delay: "d"}, false)},
		{"/status", "?s=200:95,503:5&seed= answers a weighted random status", serveShape(shape.Keys{Status: "s"}, false)},
		{"/limited", "?d=20ms&max=8 at most max requests work at once, d each (throughput saturates at max/d)", serveLimited()},
		{"/chunked", "?n=5&size=100&trailers=X-T:1 n chunks of size bytes, then trailers", (*Server).serveChunked},
		compressedRoute,
		wrongRoute(),
		{"/close", "like /ok, with Connection: close", serveShape(shape.Keys{}, true)},
		{"POST /__ctl", "?stall=1s[&at=5s] stalls every response (stall=0 cancels); not counted", (*Server).serveCtl},
		{"GET /__ledger", "the ledger as JSON; not counted", (*Server).serveLedger},
		{"POST /__reset", "zeroes the ledger and restarts seeded sequences; not counted", (*Server).serveReset},
	}, slowRoutes...)
}

// pprofRoutes are mounted unless Options.NoPprof.
var pprofRoutes = []httpRoute{
	{"/debug/pprof/", "net/http/pprof profiles (cpu: /debug/pprof/profile?seconds=N); not counted", handlerFunc(pprof.Index)},
	{"/debug/pprof/cmdline", "", handlerFunc(pprof.Cmdline)},
	{"/debug/pprof/profile", "", handlerFunc(pprof.Profile)},
	{"/debug/pprof/symbol", "", handlerFunc(pprof.Symbol)},
	{"/debug/pprof/trace", "", handlerFunc(pprof.Trace)},
	{"/debug/vars", "expvar (memstats, cmdline); not counted", handlerFunc(expvar.Handler().ServeHTTP)},
}

// handlerFunc adapts a plain handler to httpRoute.serve.
func handlerFunc(h http.HandlerFunc) func(*Server, http.ResponseWriter, *http.Request) {
	return func(_ *Server, w http.ResponseWriter, r *http.Request) { h(w, r) }
}

// newMux mounts the routes on a mux of the server's own.
func (s *Server) newMux() *http.ServeMux {
	mux := http.NewServeMux()
	for _, rt := range s.routes() {
		mux.HandleFunc(rt.pattern, func(w http.ResponseWriter, r *http.Request) { rt.serve(s, w, r) })
	}
	return mux
}

// routes returns the mounted routes.
func (s *Server) routes() []httpRoute {
	if s.opts.NoPprof {
		return httpRoutes()
	}
	return append(httpRoutes(), pprofRoutes...)
}

// uncounted reports whether a path is a control or debug endpoint, which
// is neither stalled nor counted in the ledger.
func (s *Server) uncounted(path string) bool {
	return strings.HasPrefix(path, "/__") || !s.opts.NoPprof && strings.HasPrefix(path, "/debug/")
}

// serverHeader is the Server header of every counted reply (what ab's
// "Server Software" line shows).
var serverHeader = []string{"gb-serve"}

// serveHTTP is the handler of the main and TLS listeners: it counts the
// request on its connection, drains the request body (so keep-alive
// survives large uploads), waits out a global stall, then dispatches.
func (s *Server) serveHTTP(w http.ResponseWriter, r *http.Request) {
	c, _ := r.Context().Value(connKey{}).(*conn)
	if s.uncounted(r.URL.Path) {
		if c != nil {
			c.markControl()
		}
		if r.ProtoMajor == 1 {
			w.Header().Set("Connection", "close")
		}
		s.mux.ServeHTTP(w, r)
		return
	}
	if c != nil {
		c.countHTTP(r)
	}
	w.Header()["Server"] = serverHeader
	if r.Body != http.NoBody {
		io.Copy(io.Discard, io.LimitReader(r.Body, maxRequestBody))
	}
	if s.stall.Wait(r.Context().Done(), s.done) {
		s.mux.ServeHTTP(w, r)
	}
	if c != nil {
		// The reply's last bytes are still buffered by net/http, so a
		// client that waits for each reply has sent nothing more yet:
		// in ends at this request (see conn.markControl).
		c.doneIn.Store(c.in.Load())
	}
}

// serveIndex lists the endpoints of both listeners.
func (s *Server) serveIndex(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	fmt.Fprintf(w, "gb testserver\nmain:  %s\n", s.URL())
	if s.tlsLn != nil {
		fmt.Fprintf(w, "tls:   %s\n", s.TLSURL())
	}
	if s.unixLn != nil {
		fmt.Fprintf(w, "unix:  %s\n", s.UnixPath())
	}
	fmt.Fprintf(w, "fault: %s\n\n", s.FaultURL())
	for _, e := range s.Endpoints() {
		where := "main"
		if e.Fault {
			where = "fault"
		}
		fmt.Fprintf(w, "%-6s %-22s %s\n", where, e.Path, e.Description)
	}
}

// Endpoint describes one endpoint for `gb serve` to print.
type Endpoint struct {
	Path        string // path, with a method prefix where only one method is allowed
	Description string // one line: parameters and behaviour
	Fault       bool   // served by FaultURL; false: by URL and TLSURL
}

// Endpoints lists the endpoints of the main listener (and TLS listener),
// then those of the fault listener.
func (s *Server) Endpoints() []Endpoint {
	var es []Endpoint
	for _, rt := range s.routes() {
		if rt.desc != "" {
			es = append(es, Endpoint{Path: strings.TrimSuffix(rt.pattern, "{$}"), Description: rt.desc})
		}
	}
	for _, rt := range fault.Routes() {
		es = append(es, Endpoint{Path: rt.Path, Description: rt.Description, Fault: true})
	}
	return es
}
