package gb

import (
	"context"

	"github.com/gb-bench/gb/internal/client"
	"github.com/gb-bench/gb/internal/h1"
	"github.com/gb-bench/gb/internal/h2"
	"github.com/gb-bench/gb/internal/load"
)

// Protocol names the HTTP version a load speaks (Config.Protocol).
type Protocol string

// The protocols.
const (
	ProtocolHTTP1 Protocol = "h1"  // HTTP/1.1, the default
	ProtocolHTTP2 Protocol = "h2"  // HTTP/2 over TLS, negotiated with ALPN "h2" (https:// URLs)
	ProtocolH2C   Protocol = "h2c" // HTTP/2 over cleartext TCP with prior knowledge (http:// URLs)
)

// MaxStreams is the most streams per HTTP/2 connection a Config may ask
// for (Config.Streams).
const MaxStreams = 1024

// protocol is c.Protocol spelled as Result.Target.Engine says it.
func (c *Config) protocol() string {
	if c.Protocol == "" {
		return string(ProtocolHTTP1)
	}
	return string(c.Protocol)
}

// http2 reports whether c speaks HTTP/2 (h2 or h2c).
func (c *Config) http2() bool { return c.Protocol == ProtocolHTTP2 || c.Protocol == ProtocolH2C }

// streams is the streams per connection the Result records: 0 for
// HTTP/1.1.
func (c *Config) streams() int {
	if !c.http2() && !c.http3() {
		return 0
	}
	return max(c.Streams, 1)
}

// checkProtocol refuses what the protocol cannot do with t.
func (c *Config) checkProtocol(t *target) error {
	switch c.Protocol {
	case "", ProtocolHTTP1, ProtocolHTTP2, ProtocolH2C, ProtocolHTTP3:
	default:
		return configErr("Protocol", "unknown {Protocol} %q (want h1, h2, h2c or h3)", c.Protocol)
	}
	switch {
	case c.Streams < 0 || c.Streams > MaxStreams:
		return configErr("Streams", "{Streams} %d is out of range [1..%d]", c.Streams, MaxStreams)
	case c.http3():
		return c.checkHTTP3(t)
	case !c.http2() && c.Streams > 1:
		return configErr("Streams", "{Streams} is HTTP/2's and HTTP/3's: add {Protocol=h2} (https://), {Protocol=h2c} (http://) or {Protocol=h3} (https://)")
	case !c.http2():
		return nil
	case c.Protocol == ProtocolHTTP2 && !t.tls:
		return configErr("Protocol", "{Protocol=h2} needs an https:// URL (use {Protocol=h2c} for HTTP/2 over cleartext)")
	case c.Protocol == ProtocolH2C && t.tls:
		return configErr("Protocol", "{Protocol=h2c} needs an http:// URL (use {Protocol=h2} for HTTP/2 over TLS)")
	case c.Pipeline > 1:
		return configErr("Pipeline", "{Pipeline} is HTTP/1.1's: use {Streams} with HTTP/2")
	case c.Proxy != "" && !t.tls:
		return configErr("Proxy", "{Proxy} is not supported with {Protocol=h2c}: an http:// URL goes to the proxy as a forwarded HTTP/1.1 request, and gb tunnels (CONNECT) only https:// URLs; use {Protocol=h2} with an https:// URL")
	}
	return nil
}

// newH2 is the HTTP/2 clients' shared configuration, nil for HTTP/1.1:
// req (or each of m's targets' requests) encoded once, and ALPN "h2"
// offered on TLS. Several targets must share one address: a worker's
// HTTP/2 connection carries its streams to one server.
func newH2(cfg *Config, t *target, req *h1.Request, cc *client.Config, m *multiTarget) (*h2.Config, error) {
	if !cfg.http2() {
		return nil, nil
	}
	targets := []h2.Target{{Request: req, Idempotent: cc.Idempotent}}
	if m != nil {
		if len(m.clients) > 1 {
			return nil, configErr("Targets", "several targets on different addresses are not supported with HTTP/2: a worker's HTTP/2 connection carries the streams of one server, and one worker cannot wait on several connections at once; give targets of one scheme://host:port (or run one gb per address)")
		}
		targets = m.h2
	}
	scheme := "http"
	if cc.TLS != nil {
		cc.TLS.NextProtos = []string{"h2", "http/1.1"} // a server without h2 then says what it speaks
		scheme = "https"
	}
	hc, err := h2.NewConfigTargets(cc, targets, scheme, cfg.streams())
	if err != nil {
		return nil, configErr("", "%v", err)
	}
	return hc, nil
}

// useH2 makes lc's workers HTTP/2 clients when the Plan speaks HTTP/2
// (and does not lend its pool's: those are HTTP/2 clients already).
func (p *Plan) useH2(lc *load.Config) {
	if p.h2 == nil {
		return
	}
	lc.NewConn = func(ctx context.Context) load.Conn { return h2.New(ctx, p.h2) }
}
