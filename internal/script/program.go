package script

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/parse"
)

// Target is what the wrk table tells a script about the run's URL (wrk's
// scheme, host, port and path) and the headers given beside it.
type Target struct {
	URL     string   // the URL as given: init's args[0]
	Scheme  string   // "http" or "https"
	Host    string   // host name or IP literal, without brackets
	Port    string   // "" = none in the URL (wrk.port is then nil)
	Path    string   // path and query; "" = "/"
	Headers []string // "Name: value" lines put in wrk.headers before the script runs
}

// Program is a compiled script, shared read-only by every state made
// from it.
type Program struct {
	file   string
	proto  *lua.FunctionProto
	target Target
	args   []string
}

// CompileError is a script that does not parse: File:Line: Msg.
type CompileError struct {
	File string
	Line int
	Msg  string
}

func (e *CompileError) Error() string { return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg) }

// RuntimeError is an error a script raised, as Lua reports it
// ("file:line: message" when the error has a position), on one line.
type RuntimeError struct {
	Func string // the callback that raised it ("request", "init", ...); "" = the script's main chunk
	Msg  string
}

func (e *RuntimeError) Error() string {
	if e.Func == "" {
		return e.Msg
	}
	return e.Msg + " (in " + e.Func + ")"
}

// Compile parses src, the script read from file, for a run of target;
// args are the script's arguments (init's args[1], args[2], ...).
func Compile(file string, src []byte, target Target, args []string) (*Program, error) {
	chunk, err := parse.Parse(bytes.NewReader(src), file)
	if err != nil {
		var pe *parse.Error
		if errors.As(err, &pe) {
			msg := pe.Message
			if pe.Token != "" {
				msg += " near '" + oneLine(pe.Token) + "'"
			}
			return nil, &CompileError{File: file, Line: max(pe.Pos.Line, 1), Msg: msg}
		}
		return nil, &CompileError{File: file, Line: 1, Msg: oneLine(err.Error())}
	}
	proto, err := lua.Compile(chunk, file)
	if err != nil {
		return nil, &CompileError{File: file, Line: 1, Msg: oneLine(err.Error())}
	}
	if target.Path == "" {
		target.Path = "/"
	}
	return &Program{file: file, proto: proto, target: target, args: args}, nil
}

// File is the script's file name, as given to Compile.
func (p *Program) File() string { return p.file }

// runtimeError makes err, returned by a protected call of fn, a
// *RuntimeError of one line.
func runtimeError(fn string, err error) *RuntimeError {
	msg := err.Error()
	var ae *lua.ApiError
	if errors.As(err, &ae) && ae.Object != nil {
		msg = ae.Object.String()
	}
	return &RuntimeError{Func: fn, Msg: oneLine(msg)}
}

// oneLine keeps the first line of s, without control bytes.
func oneLine(s string) string {
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		s = s[:i]
	}
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return '?'
		}
		return r
	}, s)
}
