package gb

import (
	"context"
	"slices"
	"sync/atomic"
	"time"

	"github.com/gb-bench/gb/internal/client"
	"github.com/gb-bench/gb/internal/load"
)

// connPool lends the workers of each ramp step their connections and takes
// them back after the step, so that keep-alive connections carry over to
// the next step instead of being closed and reopened. load calls newConn
// from Run's goroutine before the workers start, and settle runs after
// they stopped, so the pool needs no lock.
type connPool struct {
	cfg  *client.Config
	ctx  *stepContext
	idle []*client.Fast // open after the last step, for the next one
	lent []*client.Fast // given to the current step's workers
}

func newConnPool(cfg *client.Config) *connPool {
	return &connPool{cfg: cfg, ctx: &stepContext{}}
}

// newConn is load.Config.NewConn: an idle connection of the last step if
// one is left, else a new client. ctx is the step's run context.
func (cp *connPool) newConn(ctx context.Context) load.Conn {
	cp.ctx.follow(ctx)
	var f *client.Fast
	if n := len(cp.idle); n > 0 {
		f, cp.idle = cp.idle[n-1], cp.idle[:n-1]
	} else {
		f = client.NewFast(cp.ctx, cp.cfg)
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
		cp.idle = slices.DeleteFunc(cp.lent, func(f *client.Fast) bool { return !f.Open() })
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

func closeAll(fs []*client.Fast) {
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
