package script

import (
	"bytes"

	lua "github.com/yuin/gopher-lua"
)

// maxCached bounds a thread's cache of header names (and each one's last
// value): a server that sends ever new names costs allocations, not
// memory.
const maxCached = 64

// field is a header name a thread has seen, with the last value it had:
// both as Lua strings already boxed, so that a response whose header
// repeats the last value allocates nothing for it.
type field struct {
	name  string
	value string
	boxed lua.LValue // lua.LString(value)
}

// valueCache keeps the last boxed Lua string of something that often
// repeats (a body, a status): the same bytes again allocate nothing.
type valueCache struct {
	s     string
	boxed lua.LValue
}

// get returns p as a boxed Lua string, the cached one when p is equal.
func (c *valueCache) get(p []byte) lua.LValue {
	if c.boxed != nil && string(p) == c.s {
		return c.boxed
	}
	c.s = string(p)
	c.boxed = lua.LString(c.s)
	return c.boxed
}

// headerTable returns the response's header fields (the h1 reader's kept
// lines, "Name: value\r\n" each) as a new table of name to value, the
// last value of a repeated name, as wrk's response() gets them.
func (t *Thread) headerTable(fields []byte) *lua.LTable {
	h := t.L.CreateTable(0, bytes.Count(fields, newline)+1)
	for len(fields) > 0 {
		var line []byte
		line, fields = cutLine(fields)
		name, value, ok := cutField(line)
		if !ok {
			continue
		}
		f := t.fields[string(name)]
		if f == nil {
			f = &field{name: string(name)}
			if len(t.fields) < maxCached {
				if t.fields == nil {
					t.fields = make(map[string]*field)
				}
				t.fields[f.name] = f
			}
		}
		if f.boxed == nil || string(value) != f.value {
			f.value = string(value)
			f.boxed = lua.LString(f.value)
		}
		h.RawSetString(f.name, f.boxed)
	}
	return h
}

var newline = []byte("\n")
