package gb

import (
	"context"

	"github.com/gb-bench/gb/internal/client"
	"github.com/gb-bench/gb/internal/h1"
	"github.com/gb-bench/gb/internal/h2"
	"github.com/gb-bench/gb/internal/load"
)

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

// useH2 makes lc's workers HTTP/2 clients of hc when the Plan speaks
// HTTP/2 (hc not nil; the Plan calls it when it does not lend its pool's:
// those are HTTP/2 clients already).
func useH2(lc *load.Config, hc *h2.Config) {
	if hc == nil {
		return
	}
	lc.NewConn = func(ctx context.Context) load.Conn { return h2.New(ctx, hc) }
}
