// Package web serves a running load as a page in the browser (gb's
// --web): the live panel's figures and charts, streamed once a second as
// server-sent events at /events, and once the load ended the same HTML
// report as --html at /report, to which the page turns.
//
// The figures come from a Source read once a second by one sampler
// goroutine, never by a request of the load: the workers' counters and
// the closed intervals of the run's series. Watchers never make the load
// or the sampler wait: each has a bounded queue, and one that does not
// keep up is disconnected.
//
// The page is embedded (HTML, CSS and a small script that draws the
// charts on canvases); it loads nothing from elsewhere, and its
// Content-Security-Policy is the HTML report's plus its own script and
// event stream.
package web

import (
	"bytes"
	"context"
	"embed"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"golang.org/x/net/netutil"
)

//go:embed page.html app.js
var assets embed.FS

// ReportCSP is the HTML report's Content-Security-Policy (internal/htmlreport's
// page template); the report served at /report carries it.
const ReportCSP = "default-src 'none'; style-src 'unsafe-inline'; font-src data:; img-src data:"

// PageCSP is the live page's: the report's, plus the page's own script
// and its event stream.
const PageCSP = ReportCSP + "; script-src 'self'; connect-src 'self'"

// Limits of the server (beyond the watchers').
const (
	maxConns     = 64               // connections served at once; more wait to be accepted
	writeTimeout = 10 * time.Second // for one write to a client; a slower one is cut
	// Every is how often the page gets a sample.
	Every = time.Second
)

// endPrefix starts the end event.
var endPrefix = []byte("event: end\n")

// Server serves the page, the event stream and the report on a listener
// of its own. Make it with Listen; Close stops it.
type Server struct {
	ln     net.Listener
	srv    *http.Server
	hub    *hub
	public bool          // listens on an address other machines may reach
	host   string        // the host asked for (127.0.0.1 for none), for URL
	quit   chan struct{} // closed by Close: the sampler and the streams stop
	served chan struct{} // closed when Serve returned
	ticked chan struct{} // closed when the sampler returned

	mu       sync.Mutex // guards what follows; held for one sample, never by the load
	src      Source
	samp     sampler
	ended    bool   // Finish was called: no more samples
	finished bool   // Finish sent the end
	report   []byte // the final report's HTML; nil = none
	await    int    // end events sent to watchers whose page has not fetched the report yet
	settle   chan struct{}
}

// Listen binds addr ("host:port"; an empty host is 127.0.0.1, so ":8089"
// serves this machine alone) and starts serving and sampling (nothing is
// sampled before SetSource). The error is one line: a malformed address,
// a port in use, an address not on this machine.
func Listen(addr string) (*Server, error) { return listen(addr, Every) }

// listen is Listen sampling every period; 0 = never by itself (a test
// calls sampleNow).
func listen(addr string, every time.Duration) (*Server, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("want host:port, e.g. :8089 or 127.0.0.1:8089")
	}
	if host == "" {
		host = "127.0.0.1"
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(host, port))
	if err != nil {
		return nil, listenCause(err)
	}
	s := &Server{ln: netutil.LimitListener(ln, maxConns), hub: newHub(), public: !isLoopback(ln.Addr()), host: host,
		quit: make(chan struct{}), served: make(chan struct{}), ticked: make(chan struct{}), settle: make(chan struct{})}
	s.srv = &http.Server{Handler: s.routes(), ReadHeaderTimeout: 10 * time.Second, IdleTimeout: time.Minute, MaxHeaderBytes: 16 << 10}
	go func() {
		defer close(s.served)
		_ = s.srv.Serve(s.ln) // ends with Close
	}()
	go s.tick(every)
	return s, nil
}

// listenCause is err's innermost cause ("address already in use").
func listenCause(err error) error {
	var op *net.OpError
	if errors.As(err, &op) && op.Err != nil {
		err = op.Err
	}
	var sc *os.SyscallError
	if errors.As(err, &sc) && sc.Err != nil {
		err = sc.Err
	}
	return err
}

// isLoopback reports whether a is a loopback address (not an unspecified
// one, which every interface reaches).
func isLoopback(a net.Addr) bool {
	t, ok := a.(*net.TCPAddr)
	return ok && t.IP.IsLoopback()
}

// Addr returns the address served (the port chosen for ":0").
func (s *Server) Addr() string { return s.ln.Addr().String() }

// URL returns the page's address, e.g. "http://127.0.0.1:8089/": the host
// asked for and the port served.
func (s *Server) URL() string {
	_, port, _ := net.SplitHostPort(s.Addr())
	return "http://" + net.JoinHostPort(s.host, port) + "/"
}

// Public reports whether other machines may reach the server: it listens
// on an address that is not a loopback one.
func (s *Server) Public() bool { return s.public }

// SetSource makes the page show a new run (the first, or the next of
// --repeat) read from src, from the next second on. It returns at once.
func (s *Server) SetSource(src Source) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.src = src
	s.samp.reset()
	s.hub.newRun()
}

// tick samples the source once every period (never when 0) until Finish
// or Close.
func (s *Server) tick(every time.Duration) {
	defer close(s.ticked)
	var tc <-chan time.Time
	if every > 0 {
		t := time.NewTicker(every)
		defer t.Stop()
		tc = t.C
	}
	for {
		select {
		case <-tc:
			if !s.sampleNow() {
				return
			}
		case <-s.quit:
			return
		}
	}
}

// sampleNow publishes a sample of the source, if it has started; false
// once the run ended.
func (s *Server) sampleNow() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ended {
		return false
	}
	if s.src == nil {
		return true
	}
	if smp := s.samp.sample(s.src); smp.T > 0 {
		s.hub.publish(event("sample", smp))
	}
	return true
}

// End is the data of the end event: the run's final figures and where
// its report is.
type End struct {
	Final  Sample `json:"final"`
	Report string `json:"report,omitempty"` // "/report"; absent when there is none
}

// Finish ends the page's run: it takes the final figures at once, then
// makes render's HTML (the report of --html; render nil or returning nil:
// none) the page at /report, and sends the end to the watching pages,
// which turn to it. Only the first call counts.
func (s *Server) Finish(render func() []byte) {
	s.mu.Lock()
	if s.ended {
		s.mu.Unlock()
		return
	}
	s.ended = true // the sampler stops
	end := End{}
	if s.src != nil {
		end.Final = s.samp.sample(s.src)
	}
	s.mu.Unlock()
	var report []byte
	if render != nil {
		report = render() // not under mu: the report takes a while
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.report = report
	if report != nil {
		end.Report = "/report"
	}
	s.await += s.hub.finish(event("end", end))
	s.finished = true
	s.settleIfDone()
}

// settleIfDone closes settle when every page that got the end has fetched
// the report (or there is none to fetch). Under mu.
func (s *Server) settleIfDone() {
	if s.finished && (s.await <= 0 || s.report == nil) {
		select {
		case <-s.settle:
		default:
			close(s.settle)
		}
	}
}

// Watching returns how many pages are streaming the run now.
func (s *Server) Watching() int {
	s.hub.mu.Lock()
	defer s.hub.mu.Unlock()
	return len(s.hub.watchers)
}

// Settled is closed once the run ended and every page watching it then
// (or opened since) has fetched the final report.
func (s *Server) Settled() <-chan struct{} { return s.settle }

// Close stops serving: it waits up to a second for responses in progress,
// then cuts them.
func (s *Server) Close() {
	select {
	case <-s.quit:
		return
	default:
	}
	close(s.quit)
	<-s.ticked
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if s.srv.Shutdown(ctx) != nil {
		_ = s.srv.Close()
	}
	<-s.served
}

// routes are the server's pages.
func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", s.asset("page.html", "text/html; charset=utf-8"))
	mux.HandleFunc("GET /app.js", s.asset("app.js", "text/javascript; charset=utf-8"))
	mux.HandleFunc("GET /events", s.events)
	mux.HandleFunc("GET /report", s.finalReport)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !s.public && !loopbackHost(r.Host) {
			// A page elsewhere that made its name resolve to this
			// machine (DNS rebinding) reads nothing.
			http.Error(w, "this server answers only to 127.0.0.1, [::1] and localhost", http.StatusMisdirectedRequest)
			return
		}
		h := w.Header()
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("Cache-Control", "no-store")
		h.Set("Content-Security-Policy", PageCSP)
		mux.ServeHTTP(w, r)
	})
}

// loopbackHost reports whether a Host header names this machine by a
// loopback address or "localhost".
func loopbackHost(host string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// asset serves the embedded file name as ctype.
func (s *Server) asset(name, ctype string) http.HandlerFunc {
	b, err := assets.ReadFile(name)
	if err != nil {
		panic(err) // embedded at build time
	}
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", ctype)
		write(w, b)
	}
}

// write writes b to w within writeTimeout.
func write(w http.ResponseWriter, b []byte) {
	rc := http.NewResponseController(w)
	_ = rc.SetWriteDeadline(time.Now().Add(writeTimeout))
	_, _ = w.Write(b)
}

// finalReport serves the report once the run ended.
func (s *Server) finalReport(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	rep := s.report
	s.mu.Unlock()
	if rep == nil {
		http.Error(w, "no report: the run has not ended, or it ended without one", http.StatusNotFound)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Security-Policy", ReportCSP)
	write(w, rep)
	s.mu.Lock()
	s.await--
	s.settleIfDone()
	s.mu.Unlock()
}

// events streams the run's samples to one watcher: those so far, then
// each as it comes, and the end, after which the stream closes.
func (s *Server) events(w http.ResponseWriter, r *http.Request) {
	wt, first, afterEnd := s.hub.join()
	if wt == nil {
		http.Error(w, fmt.Sprintf("too many watchers (%d): close a page and reload", MaxWatchers), http.StatusServiceUnavailable)
		return
	}
	defer s.hub.leave(wt)
	if afterEnd {
		s.mu.Lock()
		s.await++
		s.mu.Unlock()
	}
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("X-Accel-Buffering", "no")
	rc := http.NewResponseController(w)
	send := func(evs ...[]byte) bool {
		_ = rc.SetWriteDeadline(time.Now().Add(writeTimeout))
		for _, ev := range evs {
			if _, err := w.Write(ev); err != nil {
				return false
			}
		}
		return rc.Flush() == nil
	}
	first = append([][]byte{[]byte("retry: 2000\n\n")}, first...)
	if !send(first...) {
		panic(http.ErrAbortHandler)
	}
	if afterEnd {
		return
	}
	for {
		select {
		case ev := <-wt.queue:
			if !send(ev) {
				panic(http.ErrAbortHandler)
			}
			if bytes.HasPrefix(ev, endPrefix) {
				return
			}
		case <-wt.dropped:
			// Too slow: cut the connection rather than end the stream,
			// which the browser would reopen at once.
			panic(http.ErrAbortHandler)
		case <-r.Context().Done():
			return
		case <-s.quit:
			return
		}
	}
}
