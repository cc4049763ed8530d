package testserver

import (
	"net/http"
	"sync"

	"github.com/gb-bench/gb/internal/testserver/shape"
)

// maxLimit caps max= of /limited.
const maxLimit = 10000

// limiter holds one semaphore per max= value, so every request that asks
// for the same limit shares it. The zero value is ready.
type limiter struct {
	mu   sync.Mutex
	sems map[int]chan struct{} // guarded by mu; never shrinks (at most maxLimit entries)
}

// sem returns the semaphore of n slots.
func (l *limiter) sem(n int) chan struct{} {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.sems == nil {
		l.sems = make(map[int]chan struct{})
	}
	c, ok := l.sems[n]
	if !ok {
		c = make(chan struct{}, n)
		l.sems[n] = c
	}
	return c
}

// serveLimited returns /limited's handler: a server with max workers. A
// request waits for one of max slots (FIFO), holds it for its delay d=
// (the "work"), releases it and answers like /ok. With d fixed, throughput
// therefore saturates at max/d requests per second: below max concurrent
// requests latency is d, above it requests queue and latency grows with
// the concurrency. Each server has its own limiter (the handler is built
// once per mux).
func serveLimited() func(*Server, http.ResponseWriter, *http.Request) {
	var lim limiter
	return func(s *Server, w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		sh, err := s.dice.Draw(q, shape.Shape{Code: http.StatusOK}, shape.Keys{Delay: "d"})
		n := 1
		if err == nil && q.Has("max") {
			n, err = shape.ParseInt(q.Get("max"), 1, maxLimit)
		}
		if err != nil {
			badRequest(w, err)
			return
		}
		sem := lim.sem(n)
		select {
		case sem <- struct{}{}:
		case <-r.Context().Done():
			return
		case <-s.done:
			return
		}
		ok := shape.Sleep(sh.Delay, r.Context().Done(), s.done)
		<-sem
		if ok {
			writeBody(w, sh.Code, sh.Size, "text/plain; charset=utf-8")
		}
	}
}
