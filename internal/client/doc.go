// Package client sends gb's request over real connections: Fast is the
// HTTP/1.1 client (plain TCP or TLS) that each load worker owns. It dials,
// handshakes, writes the prebuilt request, reads the response with h1, takes
// the phase timestamps, counts bytes and classifies failures into the
// outcomes of package stats. Nothing is allocated per request.
package client
