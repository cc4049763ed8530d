// Package script runs a user's Lua 5.1 script with wrk's scripting API
// (the wrk table, setup, init, delay, request, response, done) on
// github.com/yuin/gopher-lua, a Lua VM written in Go.
//
// A Program is a script compiled once. A Group is one run's Lua states:
// one Thread per gb thread (an event loop, or a worker on the goroutine
// engine), each with its own state, so that no lock guards the request
// path; plus the setup state, where setup(thread) and done() run, as in
// wrk. A Thread is used by the workers of one event loop at a time only
// (they run one after another on the loop), never concurrently.
//
// Lua errors are reported as one line, "file:line: message": a script
// that does not parse is a *CompileError; an error raised by a callback
// is a *RuntimeError.
package script
