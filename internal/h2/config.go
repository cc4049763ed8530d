package h2

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/gb-bench/gb/internal/client"
	"github.com/gb-bench/gb/internal/h1"
	"github.com/gb-bench/gb/internal/load"
	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

// Config is what every worker's HTTP/2 client shares; it is read-only once
// the run starts. Build it with NewConfig.
type Config struct {
	// Client dials and handshakes (TLS with NextProtos "h2" for h2; nil
	// TLS for h2c) and holds Timeout and the phase timeouts, which apply
	// per stream (see Client.phase); its Request and KeepAlive are not
	// used.
	Client *client.Config
	// Streams is the most requests in flight per connection (h2load's
	// -m); the server's SETTINGS_MAX_CONCURRENT_STREAMS may lower it.
	// 0 = 1.
	Streams int
	// MaxHeaderBytes limits a response's header list (RFC 9113's size:
	// name, value and 32 bytes per field), advertised as
	// SETTINGS_MAX_HEADER_LIST_SIZE; 0 = 64 KiB.
	MaxHeaderBytes int
	// MaxFields limits the fields of a response's header list; 0 = 100.
	MaxFields int

	phased bool      // Client has a phase timeout (FirstByteTimeout, HeaderTimeout or IdleTimeout)
	reqs   []request // the targets' requests, by load.Exchange.Target; one without targets
}

// request is one target's request, encoded once.
type request struct {
	head       bool   // HEAD: responses have no body
	idempotent bool   // may go once more after the keep-alive close race
	body       []byte // request body; nil = none
	frames     []byte // the request's HEADERS and CONTINUATION frames, stream id 1
	ids        []int  // offsets in frames of each frame's stream id
}

// Target is one request of a run with several targets (load.Order sets
// each exchange's): all on the one address the Config's Client dials.
type Target struct {
	Request    *h1.Request
	Idempotent bool // the method may be sent again after the keep-alive close race
}

// ErrRequest is returned (wrapped) by NewConfig for a request HTTP/2
// cannot carry.
var ErrRequest = errors.New("request cannot be sent over HTTP/2")

// NewConfig encodes req for HTTP/2 once: its pseudo-headers (:method,
// :scheme, :authority from Host, :path from Target) and fields, names in
// lower case, connection-specific fields (Connection, Keep-Alive,
// Proxy-Connection, Transfer-Encoding, Upgrade) left out, and builds its
// HEADERS (and CONTINUATION) frames. scheme is "https" or "http".
func NewConfig(cc *client.Config, req *h1.Request, scheme string, streams int) (*Config, error) {
	return NewConfigTargets(cc, []Target{{Request: req, Idempotent: cc.Idempotent}}, scheme, streams)
}

// NewConfigTargets is NewConfig for a run of several targets on one
// address: exchange x sends targets[x.Target]'s request.
func NewConfigTargets(cc *client.Config, targets []Target, scheme string, streams int) (*Config, error) {
	c := &Config{Client: cc, Streams: max(streams, 1),
		phased: cc.FirstByteTimeout > 0 || cc.HeaderTimeout > 0 || cc.IdleTimeout > 0}
	for _, t := range targets {
		r, err := encodeFrames(t.Request, scheme)
		if err != nil {
			return nil, err
		}
		r.idempotent = t.Idempotent
		c.reqs = append(c.reqs, r)
	}
	return c, nil
}

// ForAddress is c for the client Config cc of another address of the
// run's targets: the same requests (shared, read-only) and streams,
// dialled and handshaken as cc says (with several addresses a worker
// holds a Client per address; see Multi).
func (c *Config) ForAddress(cc *client.Config) *Config {
	a := *c
	a.Client = cc
	return &a
}

// encodeFrames is req's HEADERS and CONTINUATION frames.
func encodeFrames(req *h1.Request, scheme string) (request, error) {
	r := request{head: req.IsHead(), body: req.Body}
	block, err := encodeRequest(req, scheme)
	if err != nil {
		return r, err
	}
	var buf bytes.Buffer
	fr := http2.NewFramer(&buf, nil)
	for first := true; first || len(block) > 0; first = false {
		n := min(len(block), minFrameSize)
		r.ids = append(r.ids, buf.Len()+5)
		if first {
			err = fr.WriteHeaders(http2.HeadersFrameParam{StreamID: 1, BlockFragment: block[:n],
				EndStream: req.Body == nil, EndHeaders: n == len(block)})
		} else {
			err = fr.WriteContinuation(1, n == len(block), block[:n])
		}
		if err != nil {
			return r, err
		}
		block = block[n:]
	}
	r.frames = buf.Bytes()
	return r, nil
}

// request is the request exchange x sends: its target's.
func (c *Config) request(x *load.Exchange) *request {
	if x.Target > 0 && x.Target < len(c.reqs) {
		return &c.reqs[x.Target]
	}
	return &c.reqs[0]
}

// minFrameSize is every peer's SETTINGS_MAX_FRAME_SIZE at least (RFC 9113
// §6.5.2): the request's frames are cut to it.
const minFrameSize = 16 << 10

func (c *Config) maxHeaderBytes() int {
	if c.MaxHeaderBytes <= 0 {
		return 64 << 10
	}
	return c.MaxHeaderBytes
}

func (c *Config) maxFields() int {
	if c.MaxFields <= 0 {
		return 100
	}
	return c.MaxFields
}

// encodeRequest is req's header block, encoded with no dynamic table
// (every field a literal without indexing or a static-table index), so
// that the same bytes are valid for every request of every connection.
// The block starts with a dynamic table size update to 0.
func encodeRequest(req *h1.Request, scheme string) ([]byte, error) {
	var buf bytes.Buffer
	enc := hpack.NewEncoder(&buf)
	enc.SetMaxDynamicTableSizeLimit(0)
	method, path, authority := req.Method, req.Target, req.Host
	if method == "" {
		method = "GET"
	}
	if path == "" {
		path = "/"
	}
	var fields []hpack.HeaderField
	add := func(name, value string) { fields = append(fields, hpack.HeaderField{Name: name, Value: value}) }
	if req.UserAgent != "" && !has(req, "user-agent") {
		add("user-agent", req.UserAgent)
	}
	if !has(req, "accept") {
		add("accept", "*/*")
	}
	if req.Body != nil {
		add("content-length", strconv.Itoa(len(req.Body)))
		if !has(req, "content-type") && !req.BareBody {
			add("content-type", cmp.Or(req.ContentType, "text/plain"))
		}
	}
	for _, h := range req.Headers {
		name := strings.ToLower(h.Name)
		switch name {
		case "host":
			authority = h.Value
			continue
		case "connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade":
			continue
		case "te":
			if !strings.EqualFold(h.Value, "trailers") {
				return nil, fmt.Errorf("%w: TE: %s (only \"trailers\" is allowed)", ErrRequest, h.Value)
			}
		}
		add(name, h.Value)
	}
	pseudo := []hpack.HeaderField{{Name: ":method", Value: method}, {Name: ":scheme", Value: scheme},
		{Name: ":authority", Value: authority}, {Name: ":path", Value: path}}
	for _, f := range append(pseudo, fields...) {
		if err := enc.WriteField(f); err != nil {
			return nil, err
		}
	}
	return buf.Bytes(), nil
}

// has reports whether req's own headers include name (any case).
func has(req *h1.Request, name string) bool {
	for _, h := range req.Headers {
		if strings.EqualFold(h.Name, name) {
			return true
		}
	}
	return false
}
