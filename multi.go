package gb

import (
	"context"

	"github.com/gb-bench/gb/internal/client"
	"github.com/gb-bench/gb/internal/h2"
	"github.com/gb-bench/gb/internal/load"
	"github.com/gb-bench/gb/stats"
)

// multiTarget is a Plan's many targets: their requests and the addresses
// they are sent to. nil in a Plan of one target.
type multiTarget struct {
	order   load.Order
	names   []stats.TargetStats // URL and method of each, for Result.Targets
	clients []*client.Config    // one per distinct address; the Plan's own client is one of them
	addrOf  []int               // target -> index in clients
	method0 string              // the first target's method, for Result.Load
	body0   int64               // the first target's body length
	h2      []h2.Target         // every target's request, for HTTP/2 (newH2)
	h2s     []*h2.Config        // HTTP/2 on several addresses: each address's configuration (newH2); nil otherwise
}

// prepareTargets parses and checks every target of a Config with several
// and builds their requests, before any load: an error names the target
// (its Source) and is a *ConfigError for the caller's mistakes. Targets on
// one address (IP and port, and the server name over TLS) share its
// client Config, so a worker keeps one connection per address. cfg is
// the Plan's Config, first its first target's (Config.firstTarget), own
// the Plan's client Config (the first target's address's) and newClient
// makes another address's (Plan.clientConfig). nil for one target.
func prepareTargets(cfg, first *Config, own *client.Config, newClient func(*Config, *target) (*client.Config, error)) (*multiTarget, error) {
	list := cfg.targetList()
	if len(list) < 2 {
		return nil, nil
	}
	m := &multiTarget{order: load.Order{Targets: len(list), Random: cfg.Order == OrderRandom, Seed: uint64(cfg.Seed)},
		method0: first.method(), body0: int64(len(first.Body))}
	reqs := make([]client.Target, len(list))
	byHost := map[string]int{} // scheme://host:port -> index in m.clients
	byAddr := map[string]int{} // resolved address (and server name) -> index in m.clients
	for i := range list {
		tc := cfg.forTarget(&list[i])
		src := list[i].source(i)
		t, err := parseTarget(tc.URL)
		if err != nil {
			return nil, targetErr(src, tc.URL, err)
		}
		t.ownBody = i > 0 || cfg.URL == ""
		req, err := buildRequest(tc, t)
		if err != nil {
			return nil, targetErr(src, "", err)
		}
		method := tc.method()
		reqs[i] = client.Target{Request: req.Append(nil), Head: method == "HEAD", Idempotent: idempotent(method)}
		m.h2 = append(m.h2, h2.Target{Request: req, Idempotent: idempotent(method)})
		m.names = append(m.names, stats.TargetStats{URL: t.url.Redacted(), Method: method})
		hostKey := t.url.Scheme + "://" + t.url.Host
		a, ok := byHost[hostKey]
		if !ok {
			cc := own
			if i > 0 {
				if cc, err = newClient(tc, t); err != nil {
					return nil, targetErr(src, "", err)
				}
			}
			addrKey := cc.Addr
			if t.tls {
				addrKey += " " + t.host
			}
			if a, ok = byAddr[addrKey]; !ok {
				a = len(m.clients)
				byAddr[addrKey] = a
				m.clients = append(m.clients, cc)
			}
			byHost[hostKey] = a
		}
		m.addrOf = append(m.addrOf, a)
	}
	for _, cc := range m.clients {
		cc.Targets = reqs
	}
	if len(m.clients) > 1 { // a connection per worker and address
		if err := checkFileLimit(cfg.concurrency() * len(m.clients)); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// spread makes a load of several targets spread its requests by the
// order and count each target; with targets on several addresses, each
// worker gets a client per address (client.Multi). The connections the
// Plan carries between runs (Carry) are then not kept. A nil m (one
// target) leaves lc as it is.
func (m *multiTarget) spread(lc *load.Config) {
	if m == nil {
		return
	}
	lc.Order = m.order
	if len(m.clients) > 1 {
		lc.KeepOpen = false
		lc.NewConn = func(ctx context.Context) load.Conn { return client.NewMulti(ctx, m.clients, m.addrOf) }
		if m.h2s != nil {
			lc.NewConn = func(ctx context.Context) load.Conn { return h2.NewMulti(ctx, m.h2s, m.addrOf) }
		}
	}
}

// describe adds the targets' names and order to a Result of a Plan with
// several, whose Target describes the first; nil m adds nothing.
func (m *multiTarget) describe(r *stats.Result) {
	if m == nil {
		return
	}
	r.Load.Method, r.Load.BodyLength = m.method0, m.body0
	r.Load.Order, r.Load.Seed = string(OrderRoundRobin), 0
	if m.order.Random {
		r.Load.Order, r.Load.Seed = string(OrderRandom), int64(m.order.Seed)
	}
	r.Targets = append([]stats.TargetStats(nil), m.names...)
}
