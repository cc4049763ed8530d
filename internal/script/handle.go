package script

import (
	lua "github.com/yuin/gopher-lua"
)

// registerThread adds the thread userdata's metatable to L: thread.addr
// (read and written), thread:get(name), thread:set(name, value) and
// thread:stop().
func registerThread(L *lua.LState) {
	mt := L.NewTypeMetatable(threadType)
	methods := L.SetFuncs(L.NewTable(), map[string]lua.LGFunction{
		"get":  threadGet,
		"set":  threadSet,
		"stop": threadStop,
	})
	L.SetField(mt, "__index", L.NewFunction(func(L *lua.LState) int {
		t := checkThread(L)
		if key := L.CheckString(2); key == "addr" {
			L.Push(lua.LString(t.Addr))
		} else {
			L.Push(methods.RawGetString(key))
		}
		return 1
	}))
	L.SetField(mt, "__newindex", L.NewFunction(func(L *lua.LState) int {
		t := checkThread(L)
		if L.CheckString(2) != "addr" {
			L.ArgError(2, "a thread has no field but addr to set")
		}
		t.Addr = L.ToStringMeta(L.Get(3)).String()
		return 0
	}))
}

// userdata returns t as a thread userdata of L.
func (t *Thread) userdata(L *lua.LState) *lua.LUserData {
	ud := L.NewUserData()
	ud.Value = t
	L.SetMetatable(ud, L.GetTypeMetatable(threadType))
	return ud
}

func checkThread(L *lua.LState) *Thread {
	if t, ok := L.CheckUserData(1).Value.(*Thread); ok {
		return t
	}
	L.ArgError(1, "thread expected")
	return nil
}

// threadGet is thread:get(name): a copy of the thread's global name.
func threadGet(L *lua.LState) int {
	t := checkThread(L)
	L.Push(copyValue(L, t.L.GetGlobal(L.CheckString(2)), 0))
	return 1
}

// threadSet is thread:set(name, value): the thread's global name set to
// a copy of value.
func threadSet(L *lua.LState) int {
	t := checkThread(L)
	t.L.SetGlobal(L.CheckString(2), copyValue(t.L, L.Get(3), 0))
	return 0
}

// threadStop is thread:stop(): as in wrk, the thread stops: each of its
// connections ends the request it has begun and sends no more, while the
// other threads go on (gb's threads share the request budget, so they
// send the rest of it). When every thread has stopped, the Group's
// OnStop is called.
func threadStop(L *lua.LState) int {
	checkThread(L).stop()
	return 0
}

// copyValue copies v into state to: booleans, numbers, strings and
// tables of them, as wrk allows; anything else (and tables nested
// deeper than 32) becomes nil.
func copyValue(to *lua.LState, v lua.LValue, depth int) lua.LValue {
	switch v := v.(type) {
	case lua.LBool, lua.LNumber, lua.LString:
		return v
	case *lua.LTable:
		if depth >= 32 {
			return lua.LNil
		}
		out := to.NewTable()
		for k, e := v.Next(lua.LNil); k != lua.LNil; k, e = v.Next(k) {
			if ck := copyValue(to, k, depth+1); ck != lua.LNil {
				out.RawSet(ck, copyValue(to, e, depth+1))
			}
		}
		return out
	}
	return lua.LNil
}
