package h2

import (
	"context"
	"time"

	"github.com/gb-bench/gb/internal/load"
	"github.com/gb-bench/gb/stats"
)

// Multi is one worker's HTTP/2 connections to the several addresses of a
// run's targets: a Client per distinct address, each keeping its own
// connection open, so that targets sharing an address share its
// connection and the worker holds at most one connection per address (as
// HTTP/1.1's client.Multi). Each exchange goes on its target's address's
// connection. It carries one request at a time: a worker waits on one
// connection at once, so a run with targets on several addresses has one
// stream per connection (NewConfigs refuses more). It implements
// load.Streamer, so the worker drives it as it drives a Client.
type Multi struct {
	clients []*Client
	addrOf  []int   // target index -> index in clients; shared, read-only
	cur     *Client // the client of the exchange in flight; nil = none
}

var (
	_ load.Streamer = (*Multi)(nil)
	_ load.Counted  = (*Multi)(nil)
)

// NewMulti returns a worker's client for targets spread over the
// addresses of cfgs (see Config.ForAddress): target t is sent to
// cfgs[addrOf[t]]. ctx is as New's.
func NewMulti(ctx context.Context, cfgs []*Config, addrOf []int) *Multi {
	m := &Multi{clients: make([]*Client, len(cfgs)), addrOf: addrOf}
	for i, c := range cfgs {
		m.clients[i] = New(ctx, c)
	}
	return m
}

// Room is 1 while no exchange is in flight, else 0.
func (m *Multi) Room() int {
	if m.cur != nil {
		return 0
	}
	return 1
}

// Start begins x on its target's address's connection; see
// load.Streamer.
func (m *Multi) Start(x *load.Exchange) (stats.Outcome, bool) {
	c := m.clients[0]
	if x.Target >= 0 && x.Target < len(m.addrOf) {
		c = m.clients[m.addrOf[x.Target]]
	}
	o, done := c.Start(x)
	if !done {
		m.cur = c
	}
	return o, done
}

// Next waits for the exchange in flight; see load.Streamer.
func (m *Multi) Next(until time.Time) (*load.Exchange, stats.Outcome) {
	if m.cur == nil {
		return nil, stats.OK
	}
	x, o := m.cur.Next(until)
	if x != nil {
		m.cur = nil
	}
	return x, o
}

// Do sends one request and waits for its response (load.Conn).
func (m *Multi) Do(x *load.Exchange) stats.Outcome {
	if o, done := m.Start(x); done {
		return o
	}
	for {
		if y, o := m.Next(time.Time{}); y == x {
			return o
		}
	}
}

// Interrupt interrupts every address's client.
func (m *Multi) Interrupt() {
	for _, c := range m.clients {
		c.Interrupt()
	}
}

// Close closes every open connection and reports whether any was open.
func (m *Multi) Close() bool { return m.CloseCount() > 0 }

// CloseCount closes every open connection and returns how many were open
// (load.Counted).
func (m *Multi) CloseCount() int {
	n := 0
	for _, c := range m.clients {
		if c.Close() {
			n++
		}
	}
	return n
}
