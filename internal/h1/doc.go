// Package h1 is gb's HTTP/1.1 codec: request bytes built once per run, and
// a response reader that frames bodies by RFC 9112 (Content-Length,
// chunked with trailers, close-delimited; no body for HEAD, 204, 304; 1xx
// skipped) over a fixed buffer, discarding bodies as it goes.
//
// The package does no I/O policy and keeps no time: the caller owns the
// connection, its deadlines and the timestamps. The reader allocates
// nothing per response; its errors are preallocated values.
package h1
