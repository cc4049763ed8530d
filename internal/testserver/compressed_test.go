package testserver_test

import (
	"bytes"
	"compress/zlib"
	"io"
	"net/http"
	"testing"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"

	"github.com/gb-bench/gb/internal/testserver"
	"github.com/gb-bench/gb/internal/testsupport"
)

// uncompress decodes body as enc with the codings' own libraries.
func uncompress(enc string, body []byte) ([]byte, error) {
	var r io.Reader
	var err error
	switch enc {
	case "gzip":
		r, err = gzip.NewReader(bytes.NewReader(body))
	case "br":
		r = brotli.NewReader(bytes.NewReader(body))
	case "zstd":
		var d *zstd.Decoder
		d, err = zstd.NewReader(bytes.NewReader(body))
		r = d
	case "deflate":
		r, err = zlib.NewReader(bytes.NewReader(body))
	default:
		return body, nil
	}
	if err != nil {
		return nil, err
	}
	return io.ReadAll(r)
}

// getWith fetches url with the header pairs hdr set and returns the
// response and its body as sent: the transport does not decompress.
func getWith(t *testing.T, url string, hdr ...string) (*http.Response, []byte) {
	t.Helper()
	rt := &headerTransport{http.Transport{DisableCompression: true}, hdr}
	resp, body := get(t, &http.Client{Timeout: testsupport.Guard, Transport: rt}, url)
	return resp, []byte(body)
}

// headerTransport sets header pairs on every request.
type headerTransport struct {
	http.Transport
	hdr []string
}

func (h *headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for i := 0; i+1 < len(h.hdr); i += 2 {
		r.Header.Set(h.hdr[i], h.hdr[i+1])
	}
	return h.Transport.RoundTrip(r)
}

func TestCompressed(t *testing.T) {
	s := testsupport.Server(t, testserver.Options{})
	for _, enc := range []string{"gzip", "br", "zstd", "deflate", "identity"} {
		for _, chunked := range []string{"0", "1"} {
			resp, body := getWith(t, s.URL()+"/compressed?size=100000&chunked="+chunked+"&enc="+enc)
			ce := resp.Header.Get("Content-Encoding")
			plain, err := uncompress(ce, body)
			if resp.StatusCode != 200 || (ce != enc && enc != "identity") || err != nil ||
				string(plain) != testsupport.PatternBody(100000) {
				t.Errorf("%s chunked=%s: %d %q, %d bytes decoded, %v", enc, chunked, resp.StatusCode, ce, len(plain), err)
			}
			if (chunked == "1") != (resp.ContentLength < 0) {
				t.Errorf("%s chunked=%s: Content-Length %d", enc, chunked, resp.ContentLength)
			}
		}
	}
	// Negotiated: the best coding the request lists.
	for accept, want := range map[string]string{
		"gzip, br, zstd": "zstd", "gzip, br": "br", "gzip": "gzip", "zstd;q=0, gzip": "gzip", "": "", "deflate": "",
	} {
		resp, _ := getWith(t, s.URL()+"/compressed", "Accept-Encoding", accept)
		if got := resp.Header.Get("Content-Encoding"); got != want {
			t.Errorf("Accept-Encoding %q: Content-Encoding %q, want %q", accept, got, want)
		}
	}
	// Broken bodies keep exact framing and do not decode.
	for _, brk := range []string{"corrupt", "cut", "trailing"} {
		for _, enc := range []string{"gzip", "zstd"} {
			resp, body := getWith(t, s.URL()+"/compressed?size=100000&enc="+enc+"&break="+brk)
			if plain, err := uncompress(enc, body); err == nil && len(plain) == 100000 && brk != "trailing" {
				t.Errorf("%s %s: decodes", enc, brk)
			}
			if resp.ContentLength != int64(len(body)) {
				t.Errorf("%s %s: Content-Length %d for %d bytes", enc, brk, resp.ContentLength, len(body))
			}
		}
	}
	for _, q := range []string{"enc=lzma", "break=x", "size=-1", "enc=identity&size=100m"} {
		if resp, _ := getWith(t, s.URL()+"/compressed?"+q); resp.StatusCode != 400 {
			t.Errorf("%s: %d, want 400", q, resp.StatusCode)
		}
	}
}
