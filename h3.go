package gb

import (
	"context"

	"github.com/gb-bench/gb/internal/client"
	"github.com/gb-bench/gb/internal/h1"
	"github.com/gb-bench/gb/internal/h3"
	"github.com/gb-bench/gb/internal/load"
)

// newH3 is the HTTP/3 clients' shared configuration, nil for other
// protocols: req sent to cc, or each of m's targets to its address.
func newH3(cfg *Config, req *h1.Request, cc *client.Config, m *multiTarget) (*h3.Config, error) {
	if !cfg.http3() {
		return nil, nil
	}
	ccs, targets := []*client.Config{cc}, []h3.Target{{Request: req, Idempotent: cc.Idempotent}}
	if m != nil {
		ccs, targets = m.clients, make([]h3.Target, len(m.h2))
		for i, t := range m.h2 {
			targets[i] = h3.Target{Request: t.Request, Addr: m.addrOf[i], Idempotent: t.Idempotent}
		}
	}
	hc, err := h3.NewConfigTargets(ccs, targets, cfg.streams())
	if err != nil {
		return nil, configErr("", "%v", err)
	}
	return hc, nil
}

// useH3 makes lc's workers HTTP/3 clients of hc when the Plan speaks
// HTTP/3 (hc not nil; each keeps a connection to each of the targets'
// addresses it sends to): pool's when pooled (a ramp's steps: Carry, or
// connections the last step left), which carry them to the next run
// with carry.
func useH3(lc *load.Config, hc *h3.Config, pool *connPool, pooled, carry bool) {
	if hc == nil {
		return
	}
	if pooled {
		lc.KeepOpen, lc.NewConn = carry, pool.newConn
		return
	}
	lc.KeepOpen = false
	lc.NewConn = func(ctx context.Context) load.Conn { return h3.New(ctx, hc) }
}
