package profile

import (
	"compress/gzip"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"strings"
	"sync"
	"time"
	"unicode"

	pprof "github.com/google/pprof/profile"
)

// maxRedirects bounds the same-origin redirects a fetch follows.
const maxRedirects = 3

// StatusError is a non-200 answer from the target.
type StatusError struct {
	Code    int
	Message string // the first line of the body, sanitised and cut
}

func (e *StatusError) Error() string {
	if e.Message == "" {
		return fmt.Sprintf("HTTP %d", e.Code)
	}
	return fmt.Sprintf("HTTP %d: %s", e.Code, e.Message)
}

// errTooLarge is returned when a body or its decompressed form exceeds
// its cap.
var errTooLarge = errors.New("profile: larger than the cap")

// fetcher gets URLs below the pprof base with gb's own client: its own
// connections, no proxy, no transparent gzip, same-origin redirects only.
type fetcher struct {
	client *http.Client
	base   *url.URL
	mem    *budget // holds the bodies read; the caller frees them
}

func newFetcher(base *url.URL, tlsConf *tls.Config, mem *budget) *fetcher {
	tr := &http.Transport{
		DialContext:            (&net.Dialer{Timeout: 5 * time.Second}).DialContext,
		TLSHandshakeTimeout:    5 * time.Second,
		DisableCompression:     true, // gzip is decompressed here, with a cap
		MaxIdleConnsPerHost:    4,
		MaxResponseHeaderBytes: 64 << 10,
	}
	if tlsConf != nil {
		tr.TLSClientConfig = tlsConf.Clone()
		tr.TLSClientConfig.NextProtos = nil
	}
	c := &http.Client{Transport: tr, CheckRedirect: func(req *http.Request, via []*http.Request) error {
		if len(via) > maxRedirects {
			return fmt.Errorf("profile: more than %d redirects", maxRedirects)
		}
		if req.URL.Scheme != base.Scheme || req.URL.Host != base.Host {
			return fmt.Errorf("profile: refusing a redirect to another host (%s)", clean(req.URL.Redacted(), 80))
		}
		return nil
	}}
	return &fetcher{client: c, base: base, mem: mem}
}

// close drops the fetcher's idle connections.
func (f *fetcher) close() { f.client.CloseIdleConnections() }

// open sends GET base+rel and returns the response of a 200 answer; other
// statuses become a *StatusError. wrote, when not nil, is called once the
// request is on the wire (the server's profile window starts about then).
func (f *fetcher) open(ctx context.Context, rel string, wrote func()) (*http.Response, error) {
	u, err := f.base.Parse(rel)
	if err != nil {
		return nil, err
	}
	if wrote != nil {
		var once sync.Once
		ctx = httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
			WroteRequest: func(httptrace.WroteRequestInfo) { once.Do(wrote) },
		})
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("User-Agent", "gb-profile")
	resp, err := f.client.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		head, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		resp.Body.Close()
		line, _, _ := strings.Cut(string(head), "\n")
		line = strings.TrimSuffix(line, "\r")
		return nil, &StatusError{Code: resp.StatusCode, Message: clean(line, 120)}
	}
	return resp, nil
}

// get returns the body of GET base+rel, at most max bytes, taken from
// the memory budget: the caller frees it.
func (f *fetcher) get(ctx context.Context, rel string, max int64, wrote func()) (*body, error) {
	resp, err := f.open(ctx, rel, wrote)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.ContentLength > max {
		return nil, fmt.Errorf("%w: %d bytes announced, cap %d", errTooLarge, resp.ContentLength, max)
	}
	return readBody(resp.Body, max, f.mem)
}

// parse decodes a profile as sent by net/http/pprof: gzip-compressed
// protobuf, decompressed here to at most maxData bytes. Legacy text
// formats and nested gzip are refused, and a panic in the decoder on
// hostile input becomes an error.
//
// Memory stays bounded however the target shapes its profile: a first
// pass decompresses b without keeping it and estimates what parsing would
// take from the protobuf's element counts (see scan), which can be fifty
// times the size; only when that and the decompressed size fit the
// budget does a second pass decompress into a buffer of exactly that size
// and parse it. The buffer is given back on return; the parsed profile's
// share, held, when the caller drops the profile.
func parse(b *body, maxData int64, mem *budget) (p *pprof.Profile, held int64, err error) {
	open := func() (io.Reader, error) {
		if !b.isGzip() {
			return b.reader(), nil
		}
		zr, err := gzip.NewReader(b.reader())
		if err != nil {
			return nil, fmt.Errorf("profile: bad gzip: %v", err)
		}
		return zr, nil
	}
	r, err := open()
	if err != nil {
		return nil, 0, err
	}
	size, est, err := scan(r, maxData)
	switch {
	case errors.Is(err, errTooLarge):
		return nil, 0, fmt.Errorf("profile: decompressed profile is larger than the cap of %d bytes", maxData)
	case errors.Is(err, errNestedGzip):
		return nil, 0, err
	case errors.Is(err, errMalformed):
		return nil, 0, fmt.Errorf("profile: not a pprof profile: %v", err)
	case err != nil:
		return nil, 0, fmt.Errorf("profile: bad gzip: %v", err)
	}
	if err := mem.reserve(size + est); err != nil {
		return nil, 0, fmt.Errorf("profile: parsing it would take about %d MiB: %w", (size+est+1<<20-1)>>20, err)
	}
	defer mem.release(size)
	data := make([]byte, size)
	if r, err = open(); err == nil {
		_, err = io.ReadFull(r, data)
	}
	if err == nil {
		p, err = parseSafe(data)
	}
	if err != nil {
		mem.release(est)
		return nil, 0, err
	}
	return p, est, nil
}

// parseSafe parses an uncompressed profile and checks it, turning a
// panic in the decoder on hostile input into an error.
func parseSafe(data []byte) (p *pprof.Profile, err error) {
	defer func() {
		if r := recover(); r != nil {
			p, err = nil, fmt.Errorf("profile: malformed profile (%v)", r)
		}
	}()
	if p, err = pprof.ParseUncompressed(data); err != nil {
		return nil, fmt.Errorf("profile: not a pprof profile: %v", err)
	}
	if err := p.CheckValid(); err != nil {
		return nil, fmt.Errorf("profile: malformed profile: %v", err)
	}
	return p, nil
}

func isGzip(b []byte) bool { return len(b) >= 2 && b[0] == 0x1f && b[1] == 0x8b }

// clean makes untrusted text printable: control and non-graphic
// characters become '?', and it is cut to at most max runes.
func clean(s string, max int) string {
	var b strings.Builder
	n := 0
	for _, r := range s {
		if n == max {
			b.WriteString("...")
			break
		}
		if !unicode.IsGraphic(r) {
			r = '?'
		}
		b.WriteRune(r)
		n++
	}
	return strings.TrimSpace(b.String())
}
