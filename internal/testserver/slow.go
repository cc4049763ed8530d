package testserver

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gb-bench/gb/internal/testserver/shape"
)

// The /slow/ endpoints are slow for one known reason each, so that gb's
// diagnosis (--profile) can be checked against a known answer. Each is
// built so that its cause dominates by construction, not by speed.
var slowRoutes = []httpRoute{
	{"/slow/cpu", "?n=200000 burns n rounds of arithmetic in one function of its own (CPU in user code)", (*Server).serveSlowCPU},
	{"/slow/mutex", "?d=1ms holds one server-wide lock for d per request (lock contention under -c 2 and more; turns on the mutex profile)", (*Server).serveSlowMutex},
	{"/slow/garbage", "?n=2000 allocates n small linked objects per request and drops them (GC pressure)", (*Server).serveSlowGarbage},
	{"/slow/syscall", "?n=2000 writes one byte to the null device n times, one write(2) each (CPU in syscalls)", (*Server).serveSlowSyscall},
	{"/slow/starved", "?n=1000000&g=0 starts g goroutines (0: GOMAXPROCS) that each burn n rounds of arithmetic and answers at once: the requests wait for a P behind them (scheduling; at most 10000 burning)", (*Server).serveSlowStarved},
	{"/slow/leak", "starts a goroutine per request that waits until the server closes (a goroutine leak; at most 100000)", (*Server).serveSlowLeak},
}

// Caps of the /slow/ parameters: one request stays well under a second.
const (
	maxBurn    = 50_000_000
	maxGarbage = 1_000_000
	maxHold    = time.Second
	maxLeaked  = 100_000
	maxWrites  = 1_000_000
	maxSpin    = 10_000 // /slow/starved's goroutines burning at once
	maxSpinG   = 64     // /slow/starved's g
)

// slowState is the server-wide state of the /slow/ endpoints.
type slowState struct {
	mu     sync.Mutex   // /slow/mutex's lock
	leaked atomic.Int64 // goroutines /slow/leak started
	spin   atomic.Int64 // /slow/starved's goroutines still burning
}

// mutexProfile turns the runtime's mutex profile on once, for /slow/mutex.
var mutexProfile sync.Once

// serveSlowCPU answers /slow/cpu?n=: the work is in burn, a function of
// the server's own code, and nothing else per request is comparable.
func (s *Server) serveSlowCPU(w http.ResponseWriter, r *http.Request) {
	n, ok := intParam(w, r, "n", 200_000, maxBurn)
	if !ok {
		return
	}
	writeText(w, burn(n))
}

// burn runs n rounds of xorshift and returns a digit of the result.
//
//go:noinline
func burn(n int) string {
	x := uint64(88172645463325252)
	for range n {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
	}
	return string(rune('0' + x%10))
}

// serveSlowMutex answers /slow/mutex?d=: it holds the server-wide lock
// across a sleep of d, so concurrent requests wait on it in turn.
func (s *Server) serveSlowMutex(w http.ResponseWriter, r *http.Request) {
	d := time.Millisecond
	if v := r.URL.Query().Get("d"); v != "" {
		var err error
		if d, err = shape.ParseDelay(v); err != nil || d > maxHold {
			badRequest(w, errParam("d", v))
			return
		}
	}
	mutexProfile.Do(func() {
		if runtime.SetMutexProfileFraction(-1) == 0 {
			runtime.SetMutexProfileFraction(1)
		}
	})
	holdLock(&s.slow.mu, d)
	writeText(w, "ok")
}

// holdLock locks mu for d.
//
//go:noinline
func holdLock(mu *sync.Mutex, d time.Duration) {
	mu.Lock()
	defer mu.Unlock()
	time.Sleep(d)
}

// node is one object of /slow/garbage's list.
type node struct {
	next *node
	val  [6]uint64
}

// serveSlowGarbage answers /slow/garbage?n=: n objects per request, all
// garbage once it returns.
func (s *Server) serveSlowGarbage(w http.ResponseWriter, r *http.Request) {
	n, ok := intParam(w, r, "n", 2000, maxGarbage)
	if !ok {
		return
	}
	writeText(w, string(rune('0'+makeGarbage(n)%10)))
}

// makeGarbage builds a linked list of n nodes and returns its length.
//
//go:noinline
func makeGarbage(n int) int {
	var head *node
	for i := range n {
		head = &node{next: head, val: [6]uint64{uint64(i)}}
	}
	k := 0
	for p := head; p != nil; p = p.next {
		k++
	}
	return k
}

// serveSlowSyscall answers /slow/syscall?n=: n unbuffered one-byte writes
// to the null device, so the request's CPU is the kernel's.
func (s *Server) serveSlowSyscall(w http.ResponseWriter, r *http.Request) {
	n, ok := intParam(w, r, "n", 2000, maxWrites)
	if !ok {
		return
	}
	f, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	defer f.Close()
	writeText(w, strconv.Itoa(writeBytes(f, n)))
}

// writeBytes writes one byte to f n times and returns how many writes
// succeeded.
//
//go:noinline
func writeBytes(f *os.File, n int) int {
	b := []byte{'x'}
	k := 0
	for range n {
		if _, err := f.Write(b); err == nil {
			k++
		}
	}
	return k
}

// serveSlowStarved answers /slow/starved?n=&g=: it starts g goroutines
// (0: GOMAXPROCS) that burn n rounds each in spin, and answers without
// waiting for them. They keep every P busy, so the goroutines serving
// the next requests wait to run: the server's other goroutines starve
// its requests. That holds on any machine: a request adds g×n rounds
// and is served only when a P is free of them. Beyond maxSpin
// goroutines burning, a request starts none.
func (s *Server) serveSlowStarved(w http.ResponseWriter, r *http.Request) {
	n, ok := intParam(w, r, "n", 1_000_000, maxBurn)
	if !ok {
		return
	}
	g, ok := intParam(w, r, "g", 0, maxSpinG)
	if !ok {
		return
	}
	if g == 0 {
		g = runtime.GOMAXPROCS(0)
	}
	for range g {
		if s.slow.spin.Add(1) > maxSpin {
			s.slow.spin.Add(-1)
			break
		}
		go spin(n, &s.slow.spin)
	}
	writeText(w, "ok")
}

// spin burns n rounds of xorshift (burn's, in a function of its own so
// that the profile names it), then counts itself out of busy.
//
//go:noinline
func spin(n int, busy *atomic.Int64) uint64 {
	defer busy.Add(-1)
	x := uint64(2463534242)
	for range n {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
	}
	return x
}

// serveSlowLeak answers /slow/leak: each request starts a goroutine that
// waits until the server closes (up to maxLeaked of them).
func (s *Server) serveSlowLeak(w http.ResponseWriter, r *http.Request) {
	if s.slow.leaked.Add(1) <= maxLeaked {
		go leakUntil(s.done)
	}
	writeText(w, "ok")
}

// leakUntil waits for done.
func leakUntil(done <-chan struct{}) { <-done }

// intParam reads the integer query parameter name (def when absent),
// between 0 and hi; a bad value is answered 400 and reported false.
func intParam(w http.ResponseWriter, r *http.Request, name string, def, hi int) (int, bool) {
	v := r.URL.Query().Get(name)
	if v == "" {
		return def, true
	}
	n, err := shape.ParseInt(v, 0, hi)
	if err != nil {
		badRequest(w, err)
		return 0, false
	}
	return n, true
}

// errParam is the error of a bad query parameter.
func errParam(name, v string) error {
	return fmt.Errorf("%w: %s=%q", shape.ErrSyntax, name, v)
}

// writeText answers 200 with s as text/plain.
func writeText(w http.ResponseWriter, s string) {
	w.Header().Set("Content-Type", "text/plain")
	w.Header().Set("Content-Length", strconv.Itoa(len(s)))
	io.WriteString(w, s)
}
