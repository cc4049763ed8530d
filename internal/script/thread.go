package script

import (
	"errors"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	lua "github.com/yuin/gopher-lua"
)

// Group is one run's Lua states: a Thread per gb thread, and the setup
// state where setup(thread) and done() run.
type Group struct {
	prog    *Program
	setup   *lua.LState
	Threads []*Thread

	// OnError, when set, is called once, with the first error a callback
	// raised during the load (the run should stop); OnStop once every
	// thread has called thread:stop() (a thread's own stop ends only its
	// connections). Set them before the load starts.
	OnError func(error)
	OnStop  func()

	errOnce sync.Once
	err     error
	stopped atomic.Int32 // threads that called thread:stop()
}

// Thread is one gb thread's Lua state and the callbacks its script
// defines. Only the workers of one event loop (or one worker) use it,
// one at a time.
type Thread struct {
	Addr  string // thread.addr: the address its connections dial ("ip:port"); setup may change it
	group *Group
	L     *lua.LState
	wrk   *lua.LTable
	index int

	stopped                  bool           // the script called thread:stop()
	request, response, delay *lua.LFunction // nil when the script does not define it
	static                   lua.LString    // the request wrk.format() makes after init, sent without request()

	// What response() gets, cached from one response to the next.
	fields      map[string]*field // header names seen (at most maxCached)
	body        valueCache
	status      int
	statusBoxed lua.LValue
}

// NewGroup makes n threads' states whose connections dial addr, then
// calls setup(thread) for each in the setup state and init(args) in
// each thread, as wrk does before the load. Its error is a *RuntimeError
// when the script raised one.
func (p *Program) NewGroup(n int, addr string) (*Group, error) {
	g := &Group{prog: p, Threads: make([]*Thread, n)}
	var err error
	if g.setup, err = p.newState(nil); err != nil {
		return nil, err
	}
	for i := range g.Threads {
		t := &Thread{Addr: addr, group: g, index: i}
		if t.L, err = p.newState(t); err != nil {
			g.Close()
			return nil, err
		}
		t.wrk = t.L.GetGlobal("wrk").(*lua.LTable)
		g.Threads[i] = t
	}
	if err := g.runSetup(); err != nil {
		g.Close()
		return nil, err
	}
	for _, t := range g.Threads {
		if err := t.init(p.args); err != nil {
			g.Close()
			return nil, err
		}
	}
	return g, nil
}

// runSetup calls the script's setup(thread) for each thread, in the
// setup state.
func (g *Group) runSetup() error {
	fn, ok := g.setup.GetGlobal("setup").(*lua.LFunction)
	if !ok {
		return nil
	}
	for _, t := range g.Threads {
		if err := g.setup.CallByParam(lua.P{Fn: fn, Protect: true}, t.userdata(g.setup)); err != nil {
			return runtimeError("setup", err)
		}
	}
	return nil
}

// Close closes every state.
func (g *Group) Close() {
	if g.setup != nil {
		g.setup.Close()
	}
	for _, t := range g.Threads {
		if t != nil && t.L != nil {
			t.L.Close()
		}
	}
}

// Err returns the first error a callback raised during the load; nil
// when none did.
func (g *Group) Err() error { return g.err }

// raised notes a callback's error: the first one is kept and given to
// OnError.
func (g *Group) raised(err error) {
	g.errOnce.Do(func() {
		g.err = err
		if g.OnError != nil {
			g.OnError(err)
		}
	})
}

// init sets wrk.headers.Host, calls init(args) (args[0] is the URL),
// builds the request sent when the script defines no request(), and
// notes which callbacks the script defines.
func (t *Thread) init(args []string) error {
	L := t.L
	hostHeader(t.wrk)
	if fn, ok := L.GetGlobal("init").(*lua.LFunction); ok {
		a := L.NewTable()
		a.RawSetInt(0, lua.LString(t.group.prog.target.URL))
		for i, s := range args {
			a.RawSetInt(i+1, lua.LString(s))
		}
		if err := L.CallByParam(lua.P{Fn: fn, Protect: true}, a); err != nil {
			return runtimeError("init", err)
		}
	}
	format := t.wrk.RawGetString("format")
	if err := L.CallByParam(lua.P{Fn: format, NRet: 1, Protect: true}); err != nil {
		return runtimeError("wrk.format", err)
	}
	t.static, _ = L.Get(-1).(lua.LString)
	L.Pop(1)
	static := t.static
	t.wrk.RawSetString("request", L.NewFunction(func(L *lua.LState) int {
		L.Push(static)
		return 1
	}))
	t.request, _ = L.GetGlobal("request").(*lua.LFunction)
	t.response, _ = L.GetGlobal("response").(*lua.LFunction)
	t.delay, _ = L.GetGlobal("delay").(*lua.LFunction)
	return nil
}

// stop marks t stopped (thread:stop()); the last thread to stop calls the
// Group's OnStop. A thread stops from its own state's callbacks (on its
// loop) or from setup(), before the load: t.stopped needs no lock.
func (t *Thread) stop() {
	if t.stopped || t.group == nil {
		return
	}
	t.stopped = true
	g := t.group
	if int(g.stopped.Add(1)) == len(g.Threads) && g.OnStop != nil {
		g.OnStop()
	}
}

// Stopped reports whether the thread's script called thread:stop(): its
// connections send no more requests. Only the thread's loop calls it.
func (t *Thread) Stopped() bool { return t.stopped }

// ErrNotString is a request() that returned something else than a string.
var ErrNotString = errors.New("request() did not return a string")

// WantsResponse reports whether the script defines response(): only then
// are responses' headers and bodies kept for it.
func (t *Thread) WantsResponse() bool { return t.response != nil }

// HasDelay reports whether the script defines delay().
func (t *Thread) HasDelay() bool { return t.delay != nil }

// Request fills b with the next request's bytes: request()'s result, or
// the request built after init when the script defines none. The bytes
// are b's until the next Request into b. A request() that raised is a
// *RuntimeError (also given to the Group's OnError); one that returned a
// non-string is ErrNotString; bytes that are not whole HTTP/1.1 requests
// are a *RequestError.
func (t *Thread) Request(b *Batch) error {
	s := t.static
	if t.request != nil {
		L := t.L
		L.Push(t.request) // CallByParam without its variadic arguments: this runs per request
		if err := L.PCall(0, 1, nil); err != nil {
			rerr := runtimeError("request", err)
			t.group.raised(rerr)
			return rerr
		}
		v := L.Get(-1)
		L.Pop(1)
		var ok bool
		if s, ok = v.(lua.LString); !ok {
			return ErrNotString
		}
	}
	return b.set(unsafe.Slice(unsafe.StringData(string(s)), len(s)))
}

// Delay returns delay()'s result, the wait before the next request
// (milliseconds in Lua); 0 when the script defines none, or returned
// something else than a positive number.
func (t *Thread) Delay() (time.Duration, error) {
	if t.delay == nil {
		return 0, nil
	}
	L := t.L
	if err := L.CallByParam(lua.P{Fn: t.delay, NRet: 1, Protect: true}); err != nil {
		rerr := runtimeError("delay", err)
		t.group.raised(rerr)
		return 0, rerr
	}
	v, _ := L.Get(-1).(lua.LNumber)
	L.Pop(1)
	if v <= 0 {
		return 0, nil
	}
	return time.Duration(float64(v) * float64(time.Millisecond)), nil
}

// Response calls response(status, headers, body), headers as a table of
// name to value (the last value of a repeated name), body as a string.
// Its error is a *RuntimeError, also given to the Group's OnError.
func (t *Thread) Response(status int, fields, body []byte) error {
	if t.response == nil {
		return nil
	}
	L := t.L
	if t.statusBoxed == nil || status != t.status {
		t.status, t.statusBoxed = status, lua.LNumber(status)
	}
	if err := L.CallByParam(lua.P{Fn: t.response, Protect: true}, t.statusBoxed, t.headerTable(fields), t.body.get(body)); err != nil {
		rerr := runtimeError("response", err)
		t.group.raised(rerr)
		return rerr
	}
	return nil
}
