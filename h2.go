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
// offered on TLS. With targets on several addresses it also gives m the
// configuration of each address (m.h2s, for h2.Multi): a worker then
// holds a connection per address and carries one stream at a time, so
// Streams above 1 is refused.
func newH2(cfg *Config, t *target, req *h1.Request, cc *client.Config, m *multiTarget) (*h2.Config, error) {
	if !cfg.http2() {
		return nil, nil
	}
	targets := []h2.Target{{Request: req, Idempotent: cc.Idempotent}}
	if m != nil {
		if err := m.checkH2(cfg); err != nil {
			return nil, err
		}
		targets = m.h2
	}
	scheme := "http"
	if cc.TLS != nil {
		scheme = "https"
	}
	offerH2(cc)
	hc, err := h2.NewConfigTargets(cc, targets, scheme, cfg.streams())
	if err != nil {
		return nil, configErr("", "%v", err)
	}
	if m != nil && len(m.clients) > 1 {
		m.h2s = make([]*h2.Config, len(m.clients))
		for i, ac := range m.clients {
			offerH2(ac)
			m.h2s[i] = hc.ForAddress(ac)
		}
	}
	return hc, nil
}

// offerH2 has cc's TLS handshake offer ALPN "h2" (and http/1.1, so that a
// server without h2 says what it speaks).
func offerH2(cc *client.Config) {
	if cc.TLS != nil {
		cc.TLS.NextProtos = []string{"h2", "http/1.1"}
	}
}

// checkH2 refuses what HTTP/2 cannot do with m's targets: on several
// addresses a worker carries one stream at a time (it waits on one
// connection at once). Each target's scheme was checked with its URL.
func (m *multiTarget) checkH2(cfg *Config) error {
	if len(m.clients) > 1 && cfg.Streams > 1 {
		return configErr("Streams", "{Streams} %d with targets on several addresses is not supported: a worker waits on one connection at a time, so each of its connections (one per address) carries one stream; leave {Streams} at 1 or give targets of one scheme://host:port", cfg.Streams)
	}
	return nil
}

// useH2 makes lc's workers HTTP/2 clients when the Plan speaks HTTP/2
// (and does not lend its pool's: those are HTTP/2 clients already).
func (p *Plan) useH2(lc *load.Config) {
	if p.h2 == nil {
		return
	}
	lc.NewConn = func(ctx context.Context) load.Conn { return h2.New(ctx, p.h2) }
}
