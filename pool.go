package gb

import (
	"context"
	"slices"
	"sync/atomic"
	"time"

	"github.com/gb-bench/gb/internal/client"
	"github.com/gb-bench/gb/internal/h2"
	"github.com/gb-bench/gb/internal/h3"
	"github.com/gb-bench/gb/internal/load"
)

// connPool lends the workers of each ramp step their connections and takes
// them back after the step, so that keep-alive connections (HTTP/1.1's,
// and HTTP/2's and HTTP/3's with their streams) carry over to the next step instead of
// being closed and reopened. load calls newConn from Run's goroutine
// before the workers start, and settle runs after they stopped, so the
// pool needs no lock.
type connPool struct {
	make func(ctx context.Context) pooledConn // a new client on ctx
	ctx  *stepContext
	idle []pooledConn // open after the last step, for the next one
	lent []pooledConn // given to the current step's workers
}

// pooledConn is a client the pool can keep: client.Fast, h2.Client or
// h3.Client.
type pooledConn interface {
	load.Conn
	Close() bool // closes its connection; reports whether one was open
	Open() bool  // holds an open connection (between loads)
}

// newConnPool returns a pool of HTTP/1.1 clients of cfg, or of HTTP/2
// clients of h2cfg, or HTTP/3 clients of h3cfg, when it is not nil.
func newConnPool(cfg *client.Config, h2cfg *h2.Config, h3cfg *h3.Config) *connPool {
	cp := &connPool{ctx: &stepContext{}}
	cp.make = func(ctx context.Context) pooledConn { return client.NewFast(ctx, cfg) }
	if h2cfg != nil {
		cp.make = func(ctx context.Context) pooledConn { return h2.New(ctx, h2cfg) }
	}
	if h3cfg != nil {
		cp.make = func(ctx context.Context) pooledConn { return h3.New(ctx, h3cfg) }
	}
	return cp
}

// newConn is load.Config.NewConn: an idle connection of the last step if
// one is left, else a new client. ctx is the step's run context.
func (cp *connPool) newConn(ctx context.Context) load.Conn {
	cp.ctx.follow(ctx)
	var f pooledConn
	if n := len(cp.idle); n > 0 {
		f, cp.idle = cp.idle[n-1], cp.idle[:n-1]
	} else {
		f = cp.make(cp.ctx)
	}
	cp.lent = append(cp.lent, f)
	return f
}

// settle ends a step. With keep, the step's connections become idle for
// the next step; otherwise (no keep-alive, the last step, or a step cut
// off by its time limit or a signal, which leaves its clients interrupted
// for good) they are closed. Idle connections the step did not use are
// closed either way.
func (cp *connPool) settle(keep bool) {
	closeAll(cp.idle)
	cp.idle = nil
	if keep {
		// A client whose worker got no request never connected: it
		// holds nothing to carry.
		cp.idle = slices.DeleteFunc(cp.lent, func(c pooledConn) bool { return !c.Open() })
		cp.lent = nil
		return
	}
	closeAll(cp.lent)
	cp.lent = nil
}

// held is how many open connections the pool holds between steps.
func (cp *connPool) held() int { return len(cp.idle) }

// close closes every connection of the pool.
func (cp *connPool) close() {
	closeAll(cp.idle)
	closeAll(cp.lent)
	cp.idle, cp.lent = nil, nil
}

func closeAll(fs []pooledConn) {
	for _, f := range fs {
		f.Close()
	}
}

// stepContext is the context of every pooled client: it follows the run
// context of the step in progress, so a dial or handshake ends when that
// step stops although the client outlives the step that made it. A client
// reads it only while a step runs, after follow.
type stepContext struct {
	cur atomic.Pointer[context.Context]
}

var _ context.Context = (*stepContext)(nil)

// follow makes ctx the context in effect.
func (s *stepContext) follow(ctx context.Context) { s.cur.Store(&ctx) }

func (s *stepContext) now() context.Context {
	if p := s.cur.Load(); p != nil {
		return *p
	}
	return context.Background()
}

func (s *stepContext) Deadline() (time.Time, bool) { return s.now().Deadline() }
func (s *stepContext) Done() <-chan struct{}       { return s.now().Done() }
func (s *stepContext) Err() error                  { return s.now().Err() }
func (s *stepContext) Value(key any) any           { return s.now().Value(key) }
