package testserver

import (
	"bytes"
	"compress/zlib"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"

	"github.com/gb-bench/gb/internal/testserver/shape"
)

// compressedRoute is /compressed's entry in httpRoutes.
var compressedRoute = httpRoute{"/compressed",
	"?enc=gzip|br|zstd|deflate|identity&size=N&chunked=1&break=corrupt|cut|trailing: size pattern bytes " +
		"content-coded (enc default: the best of zstd, br, gzip that Accept-Encoding lists, else identity); " +
		"break damages the coded body inside exact framing",
	(*Server).serveCompressed}

// maxIdentity bounds /compressed's uncoded bodies, which it keeps in
// memory like the coded ones.
const maxIdentity = 64 << 20

// compressedQuery is /compressed's parameters.
type compressedQuery struct {
	enc     string // coding to apply; "" = negotiate
	size    int64  // decoded body bytes
	chunked bool   // no Content-Length: chunked framing
	brk     string // "", "corrupt", "cut" or "trailing"
}

func parseCompressed(r *http.Request) (compressedQuery, error) {
	q := r.URL.Query()
	c := compressedQuery{enc: q.Get("enc"), brk: q.Get("break"), chunked: q.Get("chunked") == "1", size: 10 << 10}
	switch c.enc {
	case "", "gzip", "br", "zstd", "deflate", "identity":
	default:
		return c, fmt.Errorf("enc %q: want gzip, br, zstd, deflate or identity", c.enc)
	}
	switch c.brk {
	case "", "corrupt", "cut", "trailing":
	default:
		return c, fmt.Errorf("break %q: want corrupt, cut or trailing", c.brk)
	}
	if s := q.Get("size"); s != "" {
		n, err := shape.ParseSize(s, maxBytesPath)
		if err != nil {
			return c, err
		}
		c.size = n
	}
	if c.enc == "identity" && c.size > maxIdentity {
		return c, fmt.Errorf("size %d: enc=identity goes up to %d (use /bytes/N)", c.size, maxIdentity)
	}
	if c.enc == "" {
		c.enc = negotiate(r.Header.Values("Accept-Encoding"))
	}
	return c, nil
}

// negotiate picks the coding for an Accept-Encoding: zstd, then br, then
// gzip, whichever is listed first in that order of preference without
// q=0; identity when none is.
func negotiate(accept []string) string {
	listed := map[string]bool{}
	for _, v := range accept {
		for _, item := range strings.Split(v, ",") {
			name, params, _ := strings.Cut(item, ";")
			p := strings.ReplaceAll(strings.TrimSpace(params), " ", "")
			if p == "q=0" || strings.HasPrefix(p, "q=0.") && strings.Trim(p[4:], "0") == "" {
				continue
			}
			listed[strings.ToLower(strings.TrimSpace(name))] = true
		}
	}
	for _, enc := range []string{"zstd", "br", "gzip"} {
		if listed[enc] {
			return enc
		}
	}
	return "identity"
}

// serveCompressed answers /compressed.
func (s *Server) serveCompressed(w http.ResponseWriter, r *http.Request) {
	c, err := parseCompressed(r)
	if err != nil {
		badRequest(w, err)
		return
	}
	body, err := codedBodies.get(c.enc, c.size)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	body = damage(body, c.brk)
	h := w.Header()
	h.Set("Content-Type", "text/plain")
	h.Set("Vary", "Accept-Encoding")
	h.Set("X-Decoded-Length", strconv.FormatInt(c.size, 10))
	if c.enc != "identity" {
		h.Set("Content-Encoding", c.enc)
	}
	if c.chunked {
		// Flushed in pieces: net/http frames the body as chunks.
		rc := http.NewResponseController(w)
		for len(body) > 0 {
			k := min(len(body), 4000)
			if _, err := w.Write(body[:k]); err != nil || rc.Flush() != nil {
				return
			}
			body = body[k:]
		}
		return
	}
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.Write(body)
}

// damage returns body broken as brk says, leaving body itself intact.
func damage(body []byte, brk string) []byte {
	switch brk {
	case "corrupt":
		b := append([]byte(nil), body...)
		for i := len(b) / 2; i < min(len(b), len(b)/2+16); i++ {
			b[i] ^= 0x5a
		}
		return b
	case "cut":
		return body[:len(body)/2]
	case "trailing":
		return append(append([]byte(nil), body...), "trailing junk after the stream"...)
	}
	return body
}

// codedCache keeps coded bodies by coding and size, so that a load is not
// spent compressing; at most maxCoded entries (then it starts over).
type codedCache struct {
	mu sync.Mutex
	m  map[string][]byte
}

const maxCoded = 64

var codedBodies = &codedCache{m: map[string][]byte{}}

func (c *codedCache) get(enc string, size int64) ([]byte, error) {
	key := enc + "/" + strconv.FormatInt(size, 10)
	c.mu.Lock()
	b, ok := c.m[key]
	c.mu.Unlock()
	if ok {
		return b, nil
	}
	b, err := encodePattern(enc, size)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	if len(c.m) >= maxCoded {
		clear(c.m)
	}
	c.m[key] = b
	c.mu.Unlock()
	return b, nil
}

// encodePattern returns size pattern bytes coded as enc.
func encodePattern(enc string, size int64) ([]byte, error) {
	var b bytes.Buffer
	w, err := NewEncoder(enc, &b)
	if err != nil {
		return nil, err
	}
	for off := int64(0); off < size; {
		k := int(min(size-off, shape.MaxChunk))
		if _, err := w.Write(shape.PatternAt(off, k)); err != nil {
			return nil, err
		}
		off += int64(k)
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// NewEncoder returns a writer that codes what it is given as enc (gzip,
// br, zstd, deflate (zlib) or identity) into w, as /compressed sends it:
// brotli and zstd at their fastest levels, zstd with a 1 MiB window. Close
// ends the coded stream; it does not close w.
func NewEncoder(enc string, w io.Writer) (io.WriteCloser, error) {
	switch enc {
	case "gzip":
		return gzip.NewWriter(w), nil
	case "br":
		return brotli.NewWriterLevel(w, brotli.BestSpeed), nil
	case "zstd":
		return zstd.NewWriter(w, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithWindowSize(1<<20))
	case "deflate":
		return zlib.NewWriter(w), nil
	case "identity":
		return nopCloser{w}, nil
	}
	return nil, errors.New("unknown coding " + enc)
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }
