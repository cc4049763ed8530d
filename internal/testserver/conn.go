package testserver

import (
	"maps"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
)

// protoNames are the protocols requests are counted by (Traffic.Protocols),
// indexed by protoIndex.
var protoNames = [...]string{"HTTP/1.0", "HTTP/1.1", "HTTP/2.0", "HTTP/3.0"}

// protoIndex returns r's index in protoNames: HTTP/3, HTTP/2 and HTTP/1.0
// by name, every other protocol as HTTP/1.1.
func protoIndex(r *http.Request) int {
	switch {
	case r.ProtoMajor == 3:
		return 3
	case r.ProtoMajor == 2:
		return 2
	case r.ProtoMajor == 1 && r.ProtoMinor == 0:
		return 0
	}
	return 1
}

// conn is an accepted connection that counts what crosses it. Its counters
// are written by the goroutines serving it and read by tally snapshots;
// they are per connection, so busy connections never contend on a shared
// counter.
type conn struct {
	net.Conn
	id    uint64
	tally *tally
	epoch uint64 // tally.epoch at accept; guarded by tally.mu

	in, out  atomic.Int64 // bytes read and written
	requests atomic.Int64 // requests counted on this connection
	doneIn   atomic.Int64 // in when the last counted request's handler returned
	control  atomic.Bool  // carried a control request; nothing more is counted
	served   atomic.Bool  // net/http reported StateNew and not yet the end

	protos [len(protoNames)]atomic.Int64 // net/http's requests by protocol

	closeOnce sync.Once
}

// Read counts the bytes read unless the connection turned to control.
func (c *conn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if n > 0 && !c.control.Load() {
		c.in.Add(int64(n))
	}
	return n, err
}

// Write counts len(p) before writing, so the bytes are in the ledger by the
// time the client can have read them, and takes back what was not written.
func (c *conn) Write(p []byte) (int, error) {
	counted := !c.control.Load()
	if counted {
		c.out.Add(int64(len(p)))
	}
	n, err := c.Conn.Write(p)
	if counted && n < len(p) {
		c.out.Add(int64(n - len(p)))
	}
	return n, err
}

// Close closes the connection and folds its counts into its tally once.
func (c *conn) Close() error {
	err := c.Conn.Close()
	c.closeOnce.Do(func() { c.tally.fold(c) })
	return err
}

// ConnID returns c's id, unique per Server, from 1 (fault.Counter).
func (c *conn) ConnID() uint64 { return c.id }

// CountRequest counts one request read in full (fault.Counter).
func (c *conn) CountRequest() { c.requests.Add(1) }

// countHTTP counts one net/http request and its protocol.
func (c *conn) countHTTP(r *http.Request) {
	c.requests.Add(1)
	c.protos[protoIndex(r)].Add(1)
}

// NetConn returns the connection c wraps.
func (c *conn) NetConn() net.Conn { return c.Conn }

// markControl stops counting c: the bytes of the request being served
// (those read since the previous counted handler returned) are taken back,
// and nothing read or written afterwards is counted. Responses to control
// requests close the connection, so nothing else follows on it. The split
// is exact for clients that wait for each reply before sending the next
// request, except in a rare race with net/http's one-byte background read
// when a large reply went out before its handler returned (one byte off).
func (c *conn) markControl() {
	if c.control.CompareAndSwap(false, true) {
		c.in.Add(-(c.in.Load() - c.doneIn.Load()))
	}
}

// controlOnly reports whether c carried nothing but control requests.
func (c *conn) controlOnly() bool {
	return c.control.Load() && c.requests.Load() == 0
}

// listener wraps accepted connections in conn and registers them.
type listener struct {
	net.Listener
	tally *tally
	ids   *atomic.Uint64 // the server's connection id counter
}

// Accept returns the next connection as a *conn.
func (l *listener) Accept() (net.Conn, error) {
	nc, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	c := &conn{Conn: nc, id: l.ids.Add(1), tally: l.tally}
	l.tally.add(c)
	return c, nil
}

// tally is one listener's part of the ledger: the counts of closed
// connections, folded in when they close, plus the live connections, read
// at snapshot time. It is safe for concurrent use; mu is taken once per
// connection (accept, close) and per snapshot, never per request.
type tally struct {
	mu     sync.Mutex
	epoch  uint64 // bumped by reset
	live   map[*conn]struct{}
	closed Traffic // closed connections since the last reset
	shut   bool    // closeAll was called; new connections are closed at once
}

func newTally() *tally {
	return &tally{live: make(map[*conn]struct{}), closed: emptyTraffic()}
}

// emptyTraffic returns zero counts with their maps made.
func emptyTraffic() Traffic {
	return Traffic{RequestsPerConn: map[int64]int64{}, Protocols: map[string]int64{}}
}

// add registers a new connection, or closes it if the tally is shut.
func (t *tally) add(c *conn) {
	t.mu.Lock()
	c.epoch = t.epoch
	shut := t.shut
	if !shut {
		t.live[c] = struct{}{}
	}
	t.mu.Unlock()
	if shut {
		c.Close()
	}
}

// fold moves a closed connection's counts into t.closed.
func (t *tally) fold(c *conn) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.live, c)
	t.count(&t.closed, c, false)
}

// count adds c to tr; c must be closed or live as open says.
func (t *tally) count(tr *Traffic, c *conn, open bool) {
	if c.controlOnly() {
		return
	}
	req := c.requests.Load()
	tr.Requests += req
	tr.BytesIn += c.in.Load()
	tr.BytesOut += c.out.Load()
	for i := range c.protos {
		if n := c.protos[i].Load(); n > 0 {
			tr.Protocols[protoNames[i]] += n
		}
	}
	if open {
		tr.Open++
	}
	if c.epoch == t.epoch {
		tr.Conns++
	}
	if c.epoch == t.epoch || req > 0 {
		tr.RequestsPerConn[req]++
	}
}

// snapshot returns the counts of closed and live connections.
func (t *tally) snapshot() Traffic {
	if t == nil {
		return emptyTraffic()
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	tr := t.closed
	tr.RequestsPerConn = maps.Clone(t.closed.RequestsPerConn)
	tr.Protocols = maps.Clone(t.closed.Protocols)
	for c := range t.live {
		t.count(&tr, c, true)
	}
	return tr
}

// reset zeroes the counts; live connections keep going but are no longer
// counted in Conns.
func (t *tally) reset() {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.epoch++
	t.closed = emptyTraffic()
	for c := range t.live {
		c.in.Store(0)
		c.out.Store(0)
		c.requests.Store(0)
		for i := range c.protos {
			c.protos[i].Store(0)
		}
		c.doneIn.Store(0)
	}
}

// closeAll closes every live connection and every later one.
func (t *tally) closeAll() {
	t.mu.Lock()
	t.shut = true
	conns := make([]*conn, 0, len(t.live))
	for c := range t.live {
		conns = append(conns, c)
	}
	t.mu.Unlock()
	for _, c := range conns {
		c.Close()
	}
}
