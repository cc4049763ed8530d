// Package decode checks and measures content-coded response bodies for
// gb's --compressed: gzip (github.com/klauspost/compress/gzip, cheaper
// than the standard library's and allocation-free on reuse), br
// (github.com/andybalholm/brotli) and zstd
// (github.com/klauspost/compress/zstd, synchronous, window at most 8 MiB).
//
// A Body decodes one body at a time into a fixed scratch buffer and counts
// the decoded bytes; nothing decoded is kept, so a decompression bomb costs
// time up to Body.Max, never memory. Its decoders are made on first use
// and reset for every later body: decoding allocates nothing per body for
// gzip and zstd (andybalholm/brotli allocates a few small context maps per
// meta-block).
//
// The HTTP/1.1 reader (internal/h1, Reader.SetDecoder) streams each body
// through Body.Decode. A client that receives a body in pieces it cannot
// pull (HTTP/2 DATA frames of interleaved streams) keeps one Body per
// stream slot and calls Reset(enc) at the headers, Write(p) for each DATA
// payload and Close() at END_STREAM, which returns the decoded size and
// the same errors as Decode; the encoding comes from the Content-Encoding
// field values through Encoding.Add (Identity first), and Body.Accept from
// Accepted(the request's Accept-Encoding). A body that fails is an *Error
// (IsError), which the client counts as stats.FailDecode.
package decode
