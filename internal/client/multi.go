package client

import (
	"context"
	"slices"
	"sync/atomic"

	"github.com/gb-bench/gb/internal/load"
	"github.com/gb-bench/gb/stats"
)

// Target is one request of a run with several targets (Config.Targets):
// its wire bytes, built once, and what the client must know of it.
type Target struct {
	Request    []byte // the request's wire bytes (h1.Request.Append)
	Head       bool   // the request is HEAD: its response has no body
	Idempotent bool   // the method may be retried after the keep-alive close race
}

// request returns the wire bytes of the request being sent: the current
// exchange's target's with Config.Targets, else Config.Request.
func (f *Fast) request() []byte {
	if f.scr != nil {
		return f.scr.batch.Bytes
	}
	if t := f.cfg.Targets; t != nil {
		return t[f.target].Request
	}
	return f.cfg.Request
}

// head reports whether the request being sent is HEAD.
func (f *Fast) head() bool {
	if f.scr != nil {
		return f.scr.batch.Head(f.scr.index)
	}
	if t := f.cfg.Targets; t != nil {
		return t[f.target].Head
	}
	return f.cfg.Head
}

// idempotent reports whether the request being sent may be retried.
func (f *Fast) idempotent() bool {
	if f.scr != nil {
		return f.scr.batch.Idempotent
	}
	if t := f.cfg.Targets; t != nil {
		return t[f.target].Idempotent
	}
	return f.cfg.Idempotent
}

// Multi is one worker's connections to the several addresses of a run's
// targets: a Fast per distinct address (host:port, and server name for
// TLS), each keeping its own connection alive, so targets that share an
// address share its connection and the worker holds at most one
// connection per address. Do sends each exchange on its target's
// address's Fast. A Multi is owned by one worker, like a Fast.
type Multi struct {
	fasts  []*Fast
	addrOf []int // target index -> index in fasts; shared, read-only (NewStreamMulti: the worker's slot's entry is its own)

	// NewStreamMulti's: the context of the Fasts it makes as new
	// addresses appear, and the addresses known so far. nil otherwise.
	ctx  context.Context
	cfgs *atomic.Pointer[[]*Config]
	// shared is fasts as Interrupt, which any goroutine may call, reads
	// it: grow stores a copy after each growth (fasts is the worker's).
	// stopped is set by Interrupt before it reads shared, so that a Fast
	// grow makes as Interrupt runs is interrupted by one or the other.
	shared  atomic.Pointer[[]*Fast]
	stopped atomic.Bool
}

var _ load.Conn = (*Multi)(nil)

// NewMulti returns a worker's client for targets spread over the
// addresses of cfgs: target t is sent to cfgs[addrOf[t]] (each Config's
// Targets lists every target, by the run's index). ctx is as NewFast's;
// on an event loop all the connections are the worker's task's.
func NewMulti(ctx context.Context, cfgs []*Config, addrOf []int) *Multi {
	m := &Multi{fasts: make([]*Fast, len(cfgs)), addrOf: addrOf}
	for i, c := range cfgs {
		m.fasts[i] = NewFast(ctx, c)
	}
	m.shared.Store(&m.fasts)
	return m
}

// NewStreamMulti returns a worker's client for targets read as the load
// goes (a lazy stream), whose addresses are learnt on the way: cfgs holds
// the addresses known so far, only ever appended to (a new slice stored
// each time), and the Feed that prepares the request in the worker's slot
// sets addrOf[slot] to its address, in cfgs, before Do. A Fast is made
// for an address when the worker first sends to it.
func NewStreamMulti(ctx context.Context, cfgs *atomic.Pointer[[]*Config], addrOf []int) *Multi {
	return &Multi{addrOf: addrOf, ctx: ctx, cfgs: cfgs}
}

// Do sends x's target's request on that target's address's connection.
func (m *Multi) Do(x *load.Exchange) stats.Outcome {
	a := m.addrOf[x.Target]
	if a >= len(m.fasts) {
		m.grow(a)
	}
	return m.fasts[a].Do(x)
}

// grow makes the Fasts of a stream's addresses up to a, and shares them
// with Interrupt (once per new address, off the per-request path).
func (m *Multi) grow(a int) {
	cfgs := *m.cfgs.Load()
	n := len(m.fasts)
	for i := n; i <= a; i++ {
		m.fasts = append(m.fasts, NewFast(m.ctx, cfgs[i]))
	}
	shared := slices.Clone(m.fasts)
	m.shared.Store(&shared)
	if m.stopped.Load() { // Interrupt may have read the Fasts before these
		for _, f := range shared[n:] {
			f.Interrupt()
		}
	}
}

// Interrupt interrupts every address's client. It may be called from any
// goroutine, while the worker grows its Fasts.
func (m *Multi) Interrupt() {
	m.stopped.Store(true)
	if fs := m.shared.Load(); fs != nil {
		for _, f := range *fs {
			f.Interrupt()
		}
	}
}

// Close closes every open connection and reports whether any was open.
func (m *Multi) Close() bool { return m.CloseCount() > 0 }

// CloseCount closes every open connection and returns how many were open
// (load.Counted).
func (m *Multi) CloseCount() int {
	n := 0
	for _, f := range m.fasts {
		if f.Close() {
			n++
		}
	}
	return n
}
