package gb

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/gb-bench/gb/internal/client"
	"github.com/gb-bench/gb/internal/load"
	"github.com/gb-bench/gb/stats"
)

// OrderStream is Result.Load.Order for a load whose targets came from
// Config.Targeter (gb --lazy): its Targets are rows per method and URL
// template, not one per target.
const OrderStream = "stream"

// MaxTargetRows is how many rows of method and URL template a load of
// Config.Targeter counts apart; the rest share one more row.
const MaxTargetRows = 100

// otherRows names the row of the targets beyond MaxTargetRows.
var otherRows = stats.TargetStats{Method: "*", URL: fmt.Sprintf("(the other URLs: rows for the first %d method and URL templates)", MaxTargetRows)}

// lazyTargets is a Plan's Config.Targeter: each worker's request built
// from the next target as it is sent (load.Feed), in the worker's slot of
// the client's Targets, and the rows that count them.
type lazyTargets struct {
	cfg       *Config                                        // the Plan's, for what applies to every target
	newClient func(*Config, *target) (*client.Config, error) // a new address's client Config (Plan.clientConfig)
	slots     []client.Target

	// The addresses of the stream's targets, learnt as they come: the
	// client Config of each (the first is the Plan's), published for the
	// workers' clients (client.NewStreamMulti), and each worker slot's
	// address, set by feed for the worker's next request.
	configs atomic.Pointer[[]*client.Config]
	addrOf  []int

	mu      sync.Mutex     // guards what follows: the Targeter is called by one worker at a time
	origins map[string]int // scheme://host:port -> index in configs
	list    []*client.Config
	first   *Target // the target NewPlan read, sent first; nil once taken
	t       Target  // the Targeter's
	rows    map[string]int
	names   []stats.TargetStats
	overrun bool // a target fell into otherRows
}

// startLazy reads a Targeter Config's first target into its Targets, so
// that NewPlan checks and routes it as any URL; nil without a Targeter.
func (c *Config) startLazy() (*lazyTargets, error) {
	if c.Targeter == nil {
		return nil, nil
	}
	if err := c.checkTargeter(); err != nil {
		return nil, err
	}
	var first Target
	if err := c.Targeter(&first); err != nil {
		if errors.Is(err, ErrNoTargets) {
			return nil, configErr("Targeter", "{Targeter}: no targets")
		}
		return nil, targeterErr(err)
	}
	c.Targets = []Target{first}
	return &lazyTargets{first: &first, rows: map[string]int{}}, nil
}

// checkTargeter refuses what a Targeter cannot combine with.
func (c *Config) checkTargeter() error {
	switch {
	case c.Targeter == nil:
		return nil
	case c.URL != "" || len(c.Targets) > 0:
		return configErr("Targeter", "{Targeter} replaces {URL} and {Targets}: leave them empty")
	case c.Pipeline > 1:
		return configErr("Targeter", "{Targeter} cannot be combined with {Pipeline}")
	case c.http2():
		return configErr("Targeter", "{Targeter} is not supported over HTTP/2")
	case c.http3():
		return configErr("Targeter", "{Targeter} is not supported over HTTP/3: it builds each worker's next request in the worker's one slot as the load goes, and an HTTP/3 worker's streams take their targets from the load's order; give the targets whole instead")
	}
	return nil
}

// targeterErr is a Targeter's error as the load reports it: a
// TargetReader's as it is (it names its file and line).
func targeterErr(err error) error {
	var ce *ConfigError
	if errors.As(err, &ce) {
		return err
	}
	return fmt.Errorf("the Targeter failed: %w", err)
}

// attach gives the Plan's client cc, whose first target is t, a request
// slot per worker; cfg is the Plan's Config and newClient makes another
// address's client Config (Plan.clientConfig). A nil l does nothing.
func (l *lazyTargets) attach(cfg *Config, t *target, cc *client.Config, newClient func(*Config, *target) (*client.Config, error)) {
	if l == nil {
		return
	}
	l.cfg, l.newClient = cfg, newClient
	l.slots = make([]client.Target, cfg.concurrency())
	l.addrOf = make([]int, len(l.slots))
	cc.Targets = l.slots
	l.origins = map[string]int{t.url.Scheme + "://" + t.url.Host: 0}
	l.list = []*client.Config{cc}
	list := l.list
	l.configs.Store(&list)
}

// use makes lc's workers take their targets from the Targeter; a nil l
// leaves lc as it is.
func (l *lazyTargets) use(lc *load.Config) {
	if l == nil {
		return
	}
	lc.Feed = l.feed
	lc.Order = load.Order{Targets: MaxTargetRows + 1}
	lc.NewConn = func(ctx context.Context) load.Conn { return client.NewStreamMulti(ctx, &l.configs, l.addrOf) }
	lc.KeepOpen = false
}

// feed is the load's Feed: the next target, built into the worker's slot.
func (l *lazyTargets) feed(slot int, _ *load.Exchange) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	t := &l.t
	if l.first != nil {
		*t, l.first = *l.first, nil
	} else {
		*t = Target{}
		if err := l.cfg.Targeter(t); err != nil {
			if errors.Is(err, ErrNoTargets) {
				return 0, load.ErrFeedEnd
			}
			return 0, targeterErr(err)
		}
	}
	tg, method, err := l.build(t, slot)
	if err != nil {
		return 0, err
	}
	return l.row(method, tg), nil
}

// build parses t and writes its request into the worker's slot,
// reusing the slot's bytes, and notes the address it goes to; it returns
// t parsed and its method.
func (l *lazyTargets) build(t *Target, slot int) (*target, string, error) {
	src := t.Source
	if src == "" {
		src = "Targeter"
	}
	tg, err := parseTarget(t.URL)
	if err != nil {
		return nil, "", targetErr(src, t.URL, err)
	}
	tg.ownBody = true
	tc := l.cfg.forTarget(t)
	if l.addrOf[slot], err = l.address(tc, tg); err != nil {
		return nil, "", targetErr(src, "", err)
	}
	req, err := buildRequest(tc, tg)
	if err != nil {
		return nil, "", targetErr(src, "", err)
	}
	s := &l.slots[slot]
	method := tc.method()
	s.Request = req.Append(s.Request[:0])
	s.Head, s.Idempotent = method == "HEAD", idempotent(method)
	return tg, method, nil
}

// MaxStreamAddresses is how many addresses (scheme, host and port) the
// targets of a Config.Targeter may go to: each worker may hold a
// connection to each.
const MaxStreamAddresses = 64

// address returns the index in l's client Configs of t's address, making
// its Config (routed, resolved) when t is the first target to go there.
func (l *lazyTargets) address(tc *Config, t *target) (int, error) {
	origin := t.url.Scheme + "://" + t.url.Host
	if a, ok := l.origins[origin]; ok {
		return a, nil
	}
	if len(l.list) == MaxStreamAddresses {
		return 0, fmt.Errorf("%s: a stream of targets may go to %d addresses at most", origin, MaxStreamAddresses)
	}
	if err := checkFileLimit(l.cfg.concurrency() * (len(l.list) + 1)); err != nil {
		return 0, err
	}
	cc, err := l.newClient(tc, t)
	if err != nil {
		return 0, err
	}
	cc.Targets = l.slots
	a := len(l.list)
	list := append(l.list[:a:a], cc) // a new array and header: the workers' clients read the old ones
	l.list = list
	l.configs.Store(&list)
	l.origins[origin] = a
	return a, nil
}

// row returns the account row of method and t's URL template, making it
// while there are fewer than MaxTargetRows.
func (l *lazyTargets) row(method string, t *target) int {
	u := urlTemplate(t)
	key := method + " " + u
	if r, ok := l.rows[key]; ok {
		return r
	}
	if len(l.names) == MaxTargetRows {
		l.overrun = true
		return MaxTargetRows
	}
	r := len(l.names)
	l.rows[key] = r
	l.names = append(l.names, stats.TargetStats{Method: method, URL: u})
	return r
}

// urlTemplate is t's URL without credentials, each path segment with a
// digit in it written "*" and the query, if any, "?*": the URLs of a
// stream of ids share a row.
func urlTemplate(t *target) string {
	path, query, _ := strings.Cut(t.path, "?")
	segs := strings.Split(path, "/")
	for i, s := range segs {
		if strings.ContainsAny(s, "0123456789") {
			segs[i] = "*"
		}
	}
	u := t.url.Scheme + "://" + t.url.Host + strings.Join(segs, "/")
	if query != "" {
		u += "?*"
	}
	return u
}

// describe gives a Targeter load's Result its order and the room for
// its rows, which nameRows names after the run; a nil l adds nothing.
func (l *lazyTargets) describe(r *stats.Result) {
	if l == nil {
		return
	}
	r.Load.Order = OrderStream
	r.Targets = make([]stats.TargetStats, MaxTargetRows+1)
}

// nameRows names a Targeter load's rows and drops the ones no measured
// request used; a nil l does nothing.
func (l *lazyTargets) nameRows(r *stats.Result) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	out := r.Targets[:0]
	for i, t := range r.Targets {
		if t.Requests == 0 {
			continue
		}
		n := otherRows
		if i < len(l.names) {
			n = l.names[i]
		}
		t.Method, t.URL = n.Method, n.URL
		out = append(out, t)
	}
	r.Targets = out
}
