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
	"sync/atomic"
	"time"

	"github.com/gb-bench/gb/internal/client"
	"github.com/gb-bench/gb/internal/h1"
	"github.com/quic-go/quic-go"
	"github.com/quic-go/quic-go/http3"
)

// Config is what every worker's HTTP/3 client shares; it is read-only
// once the run starts. Build it with NewConfig or NewConfigTargets.
type Config struct {
	// Client holds the first address (Addr, host:port), the TLS
	// configuration (NextProtos is replaced by "h3"; a ClientSessionCache
	// resumes sessions), Timeout (-s: each request's deadline, from the
	// moment its stream opens), the connect timeout (the QUIC
	// handshake's), the phase timeouts (FirstByteTimeout, HeaderTimeout,
	// IdleTimeout: each stream's), LocalAddrs (the UDP sockets' local
	// addresses), SockBuf, Decoding and Checks. Its Request and KeepAlive
	// are not used.
	Client *client.Config
	// Streams is the most requests in flight per worker (on one
	// connection with one address); the server's stream limit
	// (MAX_STREAMS) may make some wait for a stream. 0 = 1.
	Streams int
	// EarlyData sends requests in 0-RTT when a session is resumed and the
	// server accepts early data (safe methods only: NewConfig sets it when
	// every target is a GET or HEAD and the TLS configuration has a
	// session cache).
	EarlyData bool

	timeout time.Duration // each request's deadline: Client.Timeout, 0 = 30 s
	phased  bool          // Client has a phase timeout
	quic    *quic.Config
	tr      *http3.Transport // builds each connection's ClientConn; holds no connection
	addrs   []address        // the servers' addresses; a worker keeps a connection to each it sends to
	reqs    []request        // the targets' requests, by load.Exchange.Target
	local   atomic.Uint32    // Client.LocalAddrs' next index
}

// address is one server's UDP address and the TLS configuration its
// connections use.
type address struct {
	raddr *net.UDPAddr
	tls   *tls.Config
}

// request is one target's request.
type request struct {
	req        *http.Request // sent as it is by every stream (its body apart)
	body       []byte        // the request's body; nil = none
	addr       int           // index in Config.addrs
	idempotent bool          // may be sent again after the keep-alive close race
}

// Target is one request of a run with several targets and the address
// it goes to (an index in NewConfigTargets' client configurations).
type Target struct {
	Request    *h1.Request
	Addr       int
	Idempotent bool
}

// ErrRequest is returned (wrapped) by NewConfig for a request HTTP/3
// cannot carry.
var ErrRequest = errors.New("request cannot be sent over HTTP/3")

// NewConfig prepares req for HTTP/3 once: its pseudo-headers (:method,
// :scheme https, :authority from Host, :path from Target) and fields
// (connection-specific ones are left out by quic-go's encoder). cc.Addr
// must be an IP:port (gb resolves the host once) and cc.TLS non-nil.
func NewConfig(cc *client.Config, req *h1.Request, streams int) (*Config, error) {
	return NewConfigTargets([]*client.Config{cc}, []Target{{Request: req, Idempotent: cc.Idempotent}}, streams)
}

// NewConfigTargets is NewConfig for several targets, sent to the
// addresses ccs (one client configuration per address, each as NewConfig
// wants it; the first's timeouts and options apply to all): target i of
// load.Exchange.Target goes to ccs[targets[i].Addr].
func NewConfigTargets(ccs []*client.Config, targets []Target, streams int) (*Config, error) {
	cc := ccs[0]
	c := &Config{Client: cc, Streams: max(streams, 1), timeout: cc.Timeout,
		phased: cc.FirstByteTimeout > 0 || cc.HeaderTimeout > 0 || cc.IdleTimeout > 0}
	if c.timeout <= 0 {
		c.timeout = 30 * time.Second
	}
	for _, a := range ccs {
		ad, err := newAddress(a)
		if err != nil {
			return nil, err
		}
		c.addrs = append(c.addrs, ad)
	}
	safe := true
	for _, t := range targets {
		hr, err := newRequest(t.Request)
		if err != nil {
			return nil, err
		}
		if t.Addr < 0 || t.Addr >= len(ccs) {
			return nil, fmt.Errorf("%w: address %d of %d", ErrRequest, t.Addr, len(ccs))
		}
		c.reqs = append(c.reqs, request{req: hr, body: t.Request.Body, addr: t.Addr, idempotent: t.Idempotent})
		safe = safe && (hr.Method == http.MethodGet || hr.Method == http.MethodHead)
	}
	c.EarlyData = safe && c.addrs[0].tls.ClientSessionCache != nil
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
	c.tr = &http3.Transport{DisableCompression: true, QUICConfig: c.quic, TLSClientConfig: c.addrs[0].tls}
	return c, nil
}

// request is target i's request (the first's when i is out of range).
func (c *Config) request(i int) *request {
	if i > 0 && i < len(c.reqs) {
		return &c.reqs[i]
	}
	return &c.reqs[0]
}

// newAddress is cc's server address and TLS configuration for QUIC.
func newAddress(cc *client.Config) (address, error) {
	if cc.TLS == nil {
		return address{}, fmt.Errorf("%w: HTTP/3 needs TLS", ErrRequest)
	}
	raddr, err := net.ResolveUDPAddr("udp", cc.Addr)
	if err != nil {
		return address{}, err
	}
	tc := cc.TLS.Clone()
	tc.NextProtos = []string{http3.NextProtoH3}
	tc.MinVersion = tls.VersionTLS13 // QUIC is TLS 1.3 only (RFC 9001 §4.2)
	return address{raddr: raddr, tls: tc}, nil
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
