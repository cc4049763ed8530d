package testserver

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"

	"github.com/gb-bench/gb/internal/testserver/shape"
)

// Limits of the main listener's generated bodies.
const (
	maxBytesPath = 1 << 30 // /bytes/N
)

// badRequest answers 400 with the error text.
func badRequest(w http.ResponseWriter, err error) {
	http.Error(w, err.Error(), http.StatusBadRequest)
}

// writeBody answers code with n pattern bytes, framed by Content-Length.
func writeBody(w http.ResponseWriter, code int, n int64, contentType string) {
	h := w.Header()
	h.Set("Content-Type", contentType)
	h.Set("Content-Length", strconv.FormatInt(n, 10))
	w.WriteHeader(code)
	for off := int64(0); off < n; {
		k := int(min(n-off, shape.MaxChunk))
		if _, err := w.Write(shape.PatternAt(off, k)); err != nil {
			return
		}
		off += int64(k)
	}
}

// serveBytes answers /bytes/{n}.
func (s *Server) serveBytes(w http.ResponseWriter, r *http.Request) {
	n, err := shape.ParseSize(r.PathValue("n"), maxBytesPath)
	if err != nil {
		badRequest(w, err)
		return
	}
	writeBody(w, http.StatusOK, n, "application/octet-stream")
}

// fixedSize answers n pattern bytes (the GoHttpBench-style /10k.dat).
func fixedSize(n int64) func(*Server, http.ResponseWriter, *http.Request) {
	return func(_ *Server, w http.ResponseWriter, _ *http.Request) {
		writeBody(w, http.StatusOK, n, "application/octet-stream")
	}
}

// fixedText answers body as text/plain.
func fixedText(body string) func(*Server, http.ResponseWriter, *http.Request) {
	return func(_ *Server, w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		w.Write([]byte(body))
	}
}

// message is the TechEmpower JSON test's reply.
type message struct {
	Message string `json:"message"`
}

// serveJSON answers /json, encoding the reply per request as the
// TechEmpower rules ask.
func (s *Server) serveJSON(w http.ResponseWriter, _ *http.Request) {
	b, _ := json.Marshal(message{Message: "Hello, World!"})
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	w.Write(b)
}

// serveShape answers /ok, /delay, /status and /close: a status, a delay
// and a body size drawn from the query's weighted lists, plus any hdr=
// headers. closeConn adds Connection: close.
func serveShape(keys shape.Keys, closeConn bool) func(*Server, http.ResponseWriter, *http.Request) {
	return func(s *Server, w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		sh, err := s.dice.Draw(q, shape.Shape{Code: http.StatusOK}, keys)
		if err == nil {
			err = addHeaders(w.Header(), q["hdr"])
		}
		if err != nil {
			badRequest(w, err)
			return
		}
		if !shape.Sleep(sh.Delay, r.Context().Done(), s.done) {
			return
		}
		if closeConn {
			w.Header().Set("Connection", "close")
		}
		if sh.Code == http.StatusNoContent || sh.Code == http.StatusNotModified {
			w.WriteHeader(sh.Code)
			return
		}
		writeBody(w, sh.Code, sh.Size, "text/plain; charset=utf-8")
	}
}

// addHeaders adds each "Name:Value" of list to h.
func addHeaders(h http.Header, list []string) error {
	if len(list) > shape.MaxListItems {
		return shape.ErrSyntax
	}
	for _, kv := range list {
		name, value, err := shape.ParseHeader(kv)
		if err != nil {
			return err
		}
		h.Add(name, value)
	}
	return nil
}

// chunkedQuery is the parsed query of /chunked.
type chunkedQuery struct {
	n, size  int
	trailers [][2]string
}

// parseChunked parses n= (default 5), size= (default 100, at most
// shape.MaxChunk) and trailers= (comma-separated or repeated Name:Value).
func parseChunked(r *http.Request) (chunkedQuery, error) {
	q := r.URL.Query()
	cq := chunkedQuery{n: 5, size: 100}
	var err error
	if v := q.Get("n"); v != "" {
		if cq.n, err = shape.ParseInt(v, 0, shape.MaxChunks); err != nil {
			return cq, err
		}
	}
	if v := q.Get("size"); v != "" {
		if cq.size, err = shape.ParseInt(v, 1, shape.MaxChunk); err != nil {
			return cq, err
		}
	}
	for _, list := range q["trailers"] {
		for _, kv := range strings.Split(list, ",") {
			name, value, err := shape.ParseHeader(kv)
			if err != nil {
				return cq, err
			}
			cq.trailers = append(cq.trailers, [2]string{name, value})
		}
	}
	return cq, nil
}

// serveChunked answers /chunked: n chunks of size bytes each (one Flush
// per chunk, so one wire chunk each), then the trailers.
func (s *Server) serveChunked(w http.ResponseWriter, r *http.Request) {
	cq, err := parseChunked(r)
	if err != nil {
		badRequest(w, err)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "application/octet-stream")
	for _, t := range cq.trailers {
		h.Add("Trailer", t[0])
	}
	rc := http.NewResponseController(w)
	var off int64
	for range cq.n {
		if _, err := w.Write(shape.PatternAt(off, cq.size)); err != nil {
			return
		}
		if rc.Flush() != nil {
			return
		}
		off += int64(cq.size)
	}
	for _, t := range cq.trailers {
		h.Add(t[0], t[1])
	}
}
