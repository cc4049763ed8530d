// Package h3 is gb's HTTP/3 client: one QUIC connection per worker
// (reopened as needed) with several request streams in flight on it
// (load.Streamer), over github.com/quic-go/quic-go and its http3
// package's low-level ClientConn and RequestStream. quic-go does its I/O
// on goroutines of its own, so each stream slot of a Client runs its
// requests on a goroutine and hands each ended exchange to the worker
// through a channel; the worker's goroutine owns everything else (the
// connection, the slots' bookkeeping, the byte counts).
package h3

import (
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/gb-bench/gb/internal/client"
	"github.com/gb-bench/gb/internal/h1"
	"github.com/quic-go/quic-go"
	"github.com/quic-go/quic-go/http3"
)

// Config is what every worker's HTTP/3 client shares; it is read-only
// once the run starts. Build it with NewConfig.
type Config struct {
	// Client holds the address (Addr, host:port), the TLS configuration
	// (NextProtos is replaced by "h3"; a ClientSessionCache resumes
	// sessions) and Timeout (-s: each request's deadline, from the moment
	// its stream opens) and the connect timeout (the QUIC handshake's).
	// Its Request, KeepAlive and phase timeouts are not used.
	Client *client.Config
	// Streams is the most requests in flight per connection; the server's
	// stream limit (MAX_STREAMS) may make some wait for a stream. 0 = 1.
	Streams int
	// EarlyData sends requests in 0-RTT when a session is resumed and the
	// server accepts early data (safe methods only: NewConfig sets it for
	// GET and HEAD when the TLS configuration has a session cache).
	EarlyData bool

	timeout time.Duration // each request's deadline: Client.Timeout, 0 = 30 s
	raddr   *net.UDPAddr
	tls     *tls.Config
	quic    *quic.Config
	tr      *http3.Transport // builds each connection's ClientConn; holds no connection
	req     *http.Request    // the request, sent as it is by every stream (no body)
	body    []byte           // the request's body; nil = none
}

// ErrRequest is returned (wrapped) by NewConfig for a request HTTP/3
// cannot carry.
var ErrRequest = errors.New("request cannot be sent over HTTP/3")

// NewConfig prepares req for HTTP/3 once: its pseudo-headers (:method,
// :scheme https, :authority from Host, :path from Target) and fields
// (connection-specific ones are left out by quic-go's encoder). cc.Addr
// must be an IP:port (gb resolves the host once) and cc.TLS non-nil.
func NewConfig(cc *client.Config, req *h1.Request, streams int) (*Config, error) {
	if cc.TLS == nil {
		return nil, fmt.Errorf("%w: HTTP/3 needs TLS", ErrRequest)
	}
	raddr, err := net.ResolveUDPAddr("udp", cc.Addr)
	if err != nil {
		return nil, err
	}
	hr, err := newRequest(req)
	if err != nil {
		return nil, err
	}
	tc := cc.TLS.Clone()
	tc.NextProtos = []string{http3.NextProtoH3}
	tc.MinVersion = tls.VersionTLS13 // QUIC is TLS 1.3 only (RFC 9001 §4.2)
	c := &Config{Client: cc, Streams: max(streams, 1), raddr: raddr, tls: tc, req: hr, body: req.Body, timeout: cc.Timeout}
	if c.timeout <= 0 {
		c.timeout = 30 * time.Second
	}
	c.EarlyData = tc.ClientSessionCache != nil && (hr.Method == http.MethodGet || hr.Method == http.MethodHead)
	dial := cc.DialTimeout()
	c.quic = &quic.Config{
		HandshakeIdleTimeout: dial,
		MaxIdleTimeout:       max(c.timeout, 30*time.Second),
		// Large receive windows, so that flow control never slows a response
		// (h2's client does the same with its SETTINGS).
		InitialStreamReceiveWindow:     1 << 20,
		MaxStreamReceiveWindow:         16 << 20,
		InitialConnectionReceiveWindow: 4 << 20,
		MaxConnectionReceiveWindow:     64 << 20,
	}
	c.tr = &http3.Transport{DisableCompression: true, QUICConfig: c.quic, TLSClientConfig: tc}
	return c, nil
}

// newRequest is req as quic-go's request writer takes it.
func newRequest(req *h1.Request) (*http.Request, error) {
	method, path := req.Method, req.Target
	if method == "" {
		method = http.MethodGet
	}
	if path == "" {
		path = "/"
	}
	u, err := url.Parse("https://" + req.Host + path)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrRequest, err)
	}
	h := http.Header{}
	authority := req.Host
	if req.UserAgent != "" {
		h.Set("User-Agent", req.UserAgent)
	} else {
		h["User-Agent"] = []string{""} // none, as gb sends none over HTTP/1.1
	}
	h.Set("Accept", "*/*")
	if req.Body != nil && !req.BareBody {
		ct := req.ContentType
		if ct == "" {
			ct = "text/plain"
		}
		h.Set("Content-Type", ct)
	}
	mine := map[string]bool{}
	for _, f := range req.Headers {
		switch strings.ToLower(f.Name) {
		case "host":
			authority = f.Value
			continue
		case "te":
			if !strings.EqualFold(f.Value, "trailers") {
				return nil, fmt.Errorf("%w: TE: %s (only \"trailers\" is allowed)", ErrRequest, f.Value)
			}
		}
		key := http.CanonicalHeaderKey(f.Name)
		if !mine[key] {
			h[key], mine[key] = nil, true // the user's field replaces gb's default
		}
		h[key] = append(h[key], f.Value)
	}
	hr := &http.Request{Method: method, URL: u, Host: authority, Header: h, Proto: "HTTP/3", ProtoMajor: 3}
	if req.Body != nil {
		hr.ContentLength = int64(len(req.Body))
	}
	return hr, nil
}
