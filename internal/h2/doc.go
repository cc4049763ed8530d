// Package h2 is gb's HTTP/2 client over one connection at a time: h2 over
// TLS (ALPN) or h2c with prior knowledge, several streams in flight
// (load.Streamer). Frames are read and written with
// golang.org/x/net/http2's Framer and headers coded with its hpack; the
// request's header block is encoded once per run (no dynamic table, so it
// never changes) and only its stream id is patched per request. A Client
// is owned by one worker and does all its I/O on the worker's goroutine
// or event-loop task.
package h2
