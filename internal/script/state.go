package script

import (
	"context"
	"math"
	"net"
	"strconv"
	"strings"
	"time"

	lua "github.com/yuin/gopher-lua"
)

// threadType names the metatable of the thread userdata (setup's
// argument, wrk.thread).
const threadType = "wrk.thread"

// newState makes a Lua state with the standard libraries wrk's scripts
// use and the wrk table for p's target, and runs p's main chunk in it.
// t is the thread the state belongs to (wrk.thread); nil for the setup
// state.
func (p *Program) newState(t *Thread) (*lua.LState, error) {
	L := lua.NewState(lua.Options{SkipOpenLibs: true})
	for _, lib := range []struct {
		name string
		open lua.LGFunction
	}{
		{lua.LoadLibName, lua.OpenPackage}, {lua.BaseLibName, lua.OpenBase},
		{lua.TabLibName, lua.OpenTable}, {lua.StringLibName, lua.OpenString},
		{lua.MathLibName, lua.OpenMath}, {lua.OsLibName, lua.OpenOs},
		{lua.IoLibName, lua.OpenIo}, {lua.CoroutineLibName, lua.OpenCoroutine},
	} {
		L.Push(L.NewFunction(lib.open))
		L.Push(lua.LString(lib.name))
		L.Call(1, 0)
	}
	registerThread(L)
	wrk := p.wrkTable(L)
	if t != nil {
		wrk.RawSetString("thread", t.userdata(L))
	}
	L.SetGlobal("wrk", wrk)
	L.Push(L.NewFunctionFromProto(p.proto))
	if err := L.PCall(0, 0, nil); err != nil {
		L.Close()
		return nil, runtimeError("", err)
	}
	return L, nil
}

// wrkTable makes the wrk table: the target's fields, an empty headers
// table with the Target's headers, and the functions.
func (p *Program) wrkTable(L *lua.LState) *lua.LTable {
	tg := p.target
	wrk := L.NewTable()
	wrk.RawSetString("scheme", lua.LString(tg.Scheme))
	wrk.RawSetString("host", lua.LString(tg.Host))
	if tg.Port != "" {
		wrk.RawSetString("port", lua.LString(tg.Port))
	}
	wrk.RawSetString("method", lua.LString("GET"))
	wrk.RawSetString("path", lua.LString(tg.Path))
	headers := L.NewTable()
	for _, h := range tg.Headers {
		if name, value, ok := strings.Cut(h, ":"); ok {
			headers.RawSetString(strings.TrimSpace(name), lua.LString(strings.TrimSpace(value)))
		}
	}
	wrk.RawSetString("headers", headers)
	f := &formatter{wrk: wrk}
	wrk.RawSetString("format", L.NewFunction(f.format))
	wrk.RawSetString("lookup", L.NewFunction(lookup))
	wrk.RawSetString("connect", L.NewFunction(connect))
	return wrk
}

// hostHeader sets wrk.headers.Host, unless the script did, to the
// target's host (bracketed when an IPv6 literal) and port, as wrk does
// before init.
func hostHeader(wrk *lua.LTable) {
	headers, ok := wrk.RawGetString("headers").(*lua.LTable)
	if !ok || headers.RawGetString("Host") != lua.LNil {
		return
	}
	host := lua.LVAsString(wrk.RawGetString("host"))
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if port := wrk.RawGetString("port"); port != lua.LNil {
		host += ":" + lua.LVAsString(port)
	}
	headers.RawSetString("Host", lua.LString(host))
}

// formatter is one state's wrk.format: it builds each request in a
// buffer it reuses, so that a request costs the Lua string it returns.
type formatter struct {
	wrk *lua.LTable
	buf []byte
}

// format is wrk.format(method, path, headers, body): an HTTP/1.1
// request from the arguments, each nil one taken from the wrk table. As
// wrk's, it sets Host from wrk.headers when headers lacks it, and sets
// (or, without a body, removes) Content-Length in the headers table it
// uses.
func (f *formatter) format(L *lua.LState) int {
	arg := func(i int, field string) lua.LValue {
		if v := L.Get(i); v != lua.LNil {
			return v
		}
		return f.wrk.RawGetString(field)
	}
	method, path, body := arg(1, "method"), arg(2, "path"), arg(4, "body")
	headers, ok := arg(3, "headers").(*lua.LTable)
	if !ok {
		L.ArgError(3, "headers must be a table")
	}
	if headers.RawGetString("Host") == lua.LNil {
		if wh, ok := f.wrk.RawGetString("headers").(*lua.LTable); ok {
			headers.RawSetString("Host", wh.RawGetString("Host"))
		}
	}
	if body == lua.LNil {
		headers.RawSetString("Content-Length", lua.LNil)
	} else {
		headers.RawSetString("Content-Length", lua.LNumber(len(lua.LVAsString(body))))
	}
	b := f.buf[:0]
	b = appendValue(L, b, method)
	b = append(b, ' ')
	b = appendValue(L, b, path)
	b = append(b, " HTTP/1.1\r\n"...)
	for k, v := headers.Next(lua.LNil); k != lua.LNil; k, v = headers.Next(k) {
		b = appendValue(L, b, k)
		b = append(b, ": "...)
		b = appendValue(L, b, v)
		b = append(b, "\r\n"...)
	}
	b = append(b, "\r\n"...)
	if body != lua.LNil {
		b = append(b, lua.LVAsString(body)...)
	}
	f.buf = b
	L.Push(lua.LString(b))
	return 1
}

// appendValue appends v as Lua's tostring writes it: strings and whole
// numbers without a detour through fmt, anything else by its __tostring
// or its default form.
func appendValue(L *lua.LState, b []byte, v lua.LValue) []byte {
	switch v := v.(type) {
	case lua.LString:
		return append(b, v...)
	case lua.LNumber:
		if f := float64(v); f == math.Trunc(f) && math.Abs(f) < 1<<53 {
			return strconv.AppendInt(b, int64(f), 10)
		}
	}
	return append(b, L.ToStringMeta(v).String()...)
}

// lookup is wrk.lookup(host, service): the addresses of host and the
// port of service (a number or a name such as "http"), as "ip:port"
// strings; an empty table when none resolve.
func lookup(L *lua.LState) int {
	host, service := L.CheckString(1), L.ToStringMeta(L.Get(2)).String()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out := L.NewTable()
	port, err := net.DefaultResolver.LookupPort(ctx, "tcp", service)
	if err != nil {
		L.Push(out)
		return 1
	}
	ips, err := net.DefaultResolver.LookupHost(ctx, host)
	if err == nil {
		for _, ip := range ips {
			out.Append(lua.LString(net.JoinHostPort(ip, strconv.Itoa(port))))
		}
	}
	L.Push(out)
	return 1
}

// connect is wrk.connect(addr): whether a TCP connection to addr (an
// "ip:port" from wrk.lookup) opens within 5 s. The connection is closed
// at once.
func connect(L *lua.LState) int {
	addr := L.ToStringMeta(L.Get(1)).String()
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err == nil {
		_ = c.Close()
	}
	L.Push(lua.LBool(err == nil))
	return 1
}
