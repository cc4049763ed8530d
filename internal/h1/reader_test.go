package h1

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"syscall"
	"testing"
)

// want is what one response on the stream should yield.
type want struct {
	status, minor int
	keepAlive     bool
	framing       Framing
	cl            int64 // ContentLength
	clAndTE       bool
	info          int
	header, body  int64 // HeaderBytes, BodyBytes
	server        string
	end           int   // offset just past this response in the input; 0 = the input's end
	hdrErr        error // ReadHeader's error; the stream's last expectation
	bodyErr       error // ReadBody's error; the stream's last expectation
}

// readCase is a byte stream and the responses it must produce in order.
// When every listed response succeeds, the next ReadHeader must meet a
// clean EOF with no byte of a new response (io.EOF, Started false).
type readCase struct {
	name string
	in   string
	head bool
	lim  Limits
	buf  int   // buffer size; 0 = DefaultBufferSize
	end  error // the source's error after the input; nil = io.EOF
	want []want
}

// lenOf is len(s) as the int64 Response counts in.
func lenOf(s string) int64 { return int64(len(s)) }

const (
	hCL5      = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n"
	hChunked  = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
	hClose    = "HTTP/1.1 200 OK\r\n\r\n"
	chunkBody = "5\r\nhello\r\n0\r\n\r\n"
	info100   = "HTTP/1.1 100 Continue\r\n\r\n"
)

// Common expectations.
var (
	okCL5      = want{status: 200, minor: 1, keepAlive: true, framing: Length, cl: 5, header: lenOf(hCL5), body: 5}
	okChunked5 = want{status: 200, minor: 1, keepAlive: true, framing: Chunked, cl: -1, header: lenOf(hChunked), body: 5}
)

func with(w want, f func(*want)) want { f(&w); return w }

func readCases() []readCase {
	big := strings.Repeat("0123456789abcdef", 1<<16) // 1 MiB
	bigChunked := strings.Repeat("2710\r\n"+big[:10000]+"\r\n", 50) + "0\r\n\r\n"
	long := strings.Repeat("a", 5000)
	atMax := strings.Repeat("a", MaxLine-len("X-Long: \r\n")) // a line of MaxLine bytes with its CRLF
	// Fills most of a 4 KiB buffer, so that what follows straddles its end.
	filler := strings.Repeat("x", 4000)
	hFiller := "HTTP/1.1 200 OK\r\nContent-Length: 4000\r\n\r\n"
	server64 := strings.Repeat("s", 64)

	return []readCase{
		// Content-Length.
		{name: "cl", in: hCL5 + "hello", want: []want{okCL5}},
		{name: "cl zero", in: "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", want: []want{
			{status: 200, minor: 1, keepAlive: true, framing: Length, cl: 0, header: lenOf("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")},
		}},
		{name: "cl server and reason", in: "HTTP/1.1 404 Not Found\r\nserver:  nginx/1.25 \r\ncontent-length: 5\r\n\r\nhello", want: []want{
			{status: 404, minor: 1, keepAlive: true, framing: Length, cl: 5, header: lenOf("HTTP/1.1 404 Not Found\r\nserver:  nginx/1.25 \r\ncontent-length: 5\r\n\r\n"), body: 5, server: "nginx/1.25"},
		}},
		{name: "cl no reason phrase", in: "HTTP/1.1 200\r\nContent-Length: 5\r\n\r\nhello", want: []want{
			with(okCL5, func(w *want) { w.header = lenOf("HTTP/1.1 200\r\nContent-Length: 5\r\n\r\n") }),
		}},
		{name: "cl server truncated to 64 bytes", in: "HTTP/1.1 200 OK\r\nServer: " + server64 + "tail\r\nContent-Length: 5\r\n\r\nhello", want: []want{
			with(okCL5, func(w *want) {
				w.header = lenOf("HTTP/1.1 200 OK\r\nServer: " + server64 + "tail\r\nContent-Length: 5\r\n\r\n")
				w.server = server64
			}),
		}},
		{name: "cl equal list", in: "HTTP/1.1 200 OK\r\nContent-Length: 10, 10\r\n\r\n0123456789", want: []want{
			{status: 200, minor: 1, keepAlive: true, framing: Length, cl: 10, header: lenOf("HTTP/1.1 200 OK\r\nContent-Length: 10, 10\r\n\r\n"), body: 10},
		}},
		{name: "cl equal duplicate fields", in: "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 5\r\n\r\nhello", want: []want{
			with(okCL5, func(w *want) { w.header = lenOf("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 5\r\n\r\n") }),
		}},
		{name: "cl excess bytes", in: hCL5 + "hello" + "junk", want: []want{
			with(okCL5, func(w *want) { w.end = len(hCL5 + "hello") }),
			{hdrErr: ErrStatusLine},
		}},

		// Invalid Content-Length.
		{name: "cl abc", in: "HTTP/1.1 200 OK\r\nContent-Length: abc\r\n\r\n", want: []want{{hdrErr: ErrContentLength}}},
		{name: "cl negative", in: "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n", want: []want{{hdrErr: ErrContentLength}}},
		{name: "cl plus sign", in: "HTTP/1.1 200 OK\r\nContent-Length: +5\r\n\r\nhello", want: []want{{hdrErr: ErrContentLength}}},
		{name: "cl unequal list", in: "HTTP/1.1 200 OK\r\nContent-Length: 10,20\r\n\r\n", want: []want{{hdrErr: ErrContentLength}}},
		{name: "cl empty list element", in: "HTTP/1.1 200 OK\r\nContent-Length: 5,,5\r\n\r\nhello", want: []want{{hdrErr: ErrContentLength}}},
		{name: "cl inner space", in: "HTTP/1.1 200 OK\r\nContent-Length: 1 0\r\n\r\n", want: []want{{hdrErr: ErrContentLength}}},
		{name: "cl empty", in: "HTTP/1.1 200 OK\r\nContent-Length: \r\n\r\n", want: []want{{hdrErr: ErrContentLength}}},
		{name: "cl empty after valid", in: "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length:\r\n\r\nhello", want: []want{{hdrErr: ErrContentLength}}},
		{name: "cl conflicting fields", in: "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!", want: []want{{hdrErr: ErrContentLength}}},
		{name: "cl overflow", in: "HTTP/1.1 200 OK\r\nContent-Length: 99999999999999999999\r\n\r\n", want: []want{{hdrErr: ErrContentLength}}},
		{name: "cl invalid on head", head: true, in: "HTTP/1.1 200 OK\r\nContent-Length: x\r\n\r\n", want: []want{{hdrErr: ErrContentLength}}},

		// Chunked.
		{name: "chunked", in: hChunked + chunkBody, want: []want{okChunked5}},
		{name: "chunked extensions upper hex leading zeros trailers",
			in: hChunked + "5;name=value\r\nhello\r\n" + "0A ; a=b;c=\"d;e\"\r\n0123456789\r\n" + "00000010\r\n" + big[:16] + "\r\n" +
				"aB\r\n" + big[:0xab] + "\r\n" + "000;last\r\nX-Trailer: 1\r\nExpires: never\r\n\r\n",
			want: []want{with(okChunked5, func(w *want) { w.body = 5 + 10 + 16 + 0xab })}},
		{name: "chunked bare LF", in: hChunked + "5\nhello\n0\n\n", want: []want{okChunked5}},
		{name: "chunked case and list", in: "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, CHUNKED\r\n\r\n" + chunkBody, want: []want{
			with(okChunked5, func(w *want) { w.header = lenOf("HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, CHUNKED\r\n\r\n") }),
		}},
		{name: "chunked empty list elements", in: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked, \r\n\r\n" + chunkBody, want: []want{
			with(okChunked5, func(w *want) { w.header = lenOf("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked, \r\n\r\n") }),
		}},
		{name: "chunked in second te field", in: "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n\r\n" + chunkBody, want: []want{
			with(okChunked5, func(w *want) {
				w.header = lenOf("HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n\r\n")
			}),
		}},
		{name: "chunked bad hex", in: hChunked + "zz\r\n", want: []want{
			with(okChunked5, func(w *want) { w.body, w.bodyErr = 0, ErrChunk }),
		}},
		{name: "chunked 0x prefix", in: hChunked + "0x5\r\nhello\r\n0\r\n\r\n", want: []want{
			with(okChunked5, func(w *want) { w.body, w.bodyErr = 0, ErrChunk }),
		}},
		{name: "chunked empty size line", in: hChunked + "\r\nhello\r\n0\r\n\r\n", want: []want{
			with(okChunked5, func(w *want) { w.body, w.bodyErr = 0, ErrChunk }),
		}},
		{name: "chunked size with inner space", in: hChunked + "5 6\r\nhello\r\n0\r\n\r\n", want: []want{
			with(okChunked5, func(w *want) { w.body, w.bodyErr = 0, ErrChunk }),
		}},
		{name: "chunked overflow 2^64", in: hChunked + "10000000000000000\r\n", want: []want{
			with(okChunked5, func(w *want) { w.body, w.bodyErr = 0, ErrChunk }),
		}},
		{name: "chunked overflow 2^60", in: hChunked + "1000000000000000\r\n", want: []want{
			with(okChunked5, func(w *want) { w.body, w.bodyErr = 0, ErrChunk }),
		}},
		{name: "chunked largest size then truncated", in: hChunked + "fffffffffffffff\r\nabc", want: []want{
			with(okChunked5, func(w *want) { w.body, w.bodyErr = 3, ErrTruncated }),
		}},
		{name: "chunked many leading zeros", in: hChunked + "00000000000000000000000000000005\r\nhello\r\n0\r\n\r\n", want: []want{okChunked5}},
		{name: "chunked missing crlf after data", in: hChunked + "5\r\nhelloX\r\n0\r\n\r\n", want: []want{
			with(okChunked5, func(w *want) { w.bodyErr = ErrChunk }),
		}},
		{name: "chunked one byte before LF after data", in: hChunked + "5\r\nhelloX\n0\r\n\r\n", want: []want{
			with(okChunked5, func(w *want) { w.bodyErr = ErrChunk }),
		}},
		{name: "chunked data longer than size", in: hChunked + "5\r\nhello world\r\n0\r\n\r\n", want: []want{
			with(okChunked5, func(w *want) { w.bodyErr = ErrChunk }),
		}},
		{name: "chunked next size right after data", in: hChunked + "5\r\nhello0\r\n\r\n", want: []want{
			with(okChunked5, func(w *want) { w.bodyErr = ErrChunk }),
		}},
		{name: "chunked missing final chunk", in: hChunked + "5\r\nhello\r\n", want: []want{
			with(okChunked5, func(w *want) { w.bodyErr = ErrTruncated }),
		}},
		{name: "chunked missing trailer end", in: hChunked + "5\r\nhello\r\n0\r\nX-T: 1\r\n", want: []want{
			with(okChunked5, func(w *want) { w.bodyErr = ErrTruncated }),
		}},
		{name: "chunked truncated in data", in: hChunked + "a\r\nhel", want: []want{
			with(okChunked5, func(w *want) { w.body, w.bodyErr = 3, ErrTruncated }),
		}},
		{name: "chunked truncated after data", in: hChunked + "5\r\nhello\r", want: []want{
			with(okChunked5, func(w *want) { w.bodyErr = ErrTruncated }),
		}},
		{name: "chunked truncated in size line", in: hChunked + "5\r\nhello\r\n1", want: []want{
			with(okChunked5, func(w *want) { w.bodyErr = ErrTruncated }),
		}},
		{name: "chunked size line too long", in: hChunked + "5;" + long + "\r\nhello\r\n0\r\n\r\n", want: []want{
			with(okChunked5, func(w *want) { w.body, w.bodyErr = 0, ErrChunkLine }),
		}},
		{name: "chunked size line over limit", lim: Limits{MaxChunkLine: 16}, in: hChunked + "5;ext=0123456789\r\nhello\r\n0\r\n\r\n", want: []want{
			with(okChunked5, func(w *want) { w.body, w.bodyErr = 0, ErrChunkLine }),
		}},
		{name: "chunked size line at limit", lim: Limits{MaxChunkLine: 16}, in: hChunked + "5;ext=012345\r\nhello\r\n0\r\n\r\n", want: []want{okChunked5}},
		{name: "chunked trailers over header limit", lim: Limits{MaxHeaderBytes: int(lenOf(hChunked)) + 16},
			in: hChunked + "5\r\nhello\r\n0\r\nX-Trailer: 0123456789\r\n\r\n", want: []want{
				with(okChunked5, func(w *want) { w.bodyErr = ErrHeaderTooLarge }),
			}},

		// Content-Length and Transfer-Encoding together.
		{name: "cl and te chunked", in: "HTTP/1.1 200 OK\r\nContent-Length: 100\r\nTransfer-Encoding: chunked\r\n\r\n" + chunkBody, want: []want{
			with(okChunked5, func(w *want) {
				w.header = lenOf("HTTP/1.1 200 OK\r\nContent-Length: 100\r\nTransfer-Encoding: chunked\r\n\r\n")
				w.keepAlive, w.clAndTE = false, true
			}),
		}},
		{name: "te chunked and cl", in: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n" + chunkBody, want: []want{
			with(okChunked5, func(w *want) {
				w.header = lenOf("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n")
				w.keepAlive, w.clAndTE = false, true
			}),
		}},
		{name: "te gzip", in: "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n\x1f\x8b\x08rest", want: []want{
			{status: 200, minor: 1, framing: UntilEOF, cl: -1, header: lenOf("HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n"), body: 7},
		}},
		{name: "te chunked then gzip", in: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked, gzip\r\n\r\n" + chunkBody, want: []want{
			{status: 200, minor: 1, framing: UntilEOF, cl: -1, header: lenOf("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked, gzip\r\n\r\n"), body: lenOf(chunkBody)},
		}},
		{name: "te gzip and cl", in: "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\nContent-Length: 2\r\n\r\n\x1f\x8b\x08rest", want: []want{
			{status: 200, minor: 1, framing: UntilEOF, cl: -1, clAndTE: true, header: lenOf("HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\nContent-Length: 2\r\n\r\n"), body: 7},
		}},
		{name: "te on http/1.0 keep-alive", in: "HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nTransfer-Encoding: chunked\r\n\r\n" + chunkBody, want: []want{
			{status: 200, minor: 0, framing: Chunked, cl: -1, header: lenOf("HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nTransfer-Encoding: chunked\r\n\r\n"), body: 5},
		}},

		// No body whatever the headers say.
		{name: "head with cl", head: true, in: "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n" + "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n", want: []want{
			{status: 200, minor: 1, keepAlive: true, framing: NoBody, cl: 10, header: lenOf("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n"), end: len("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n")},
			{status: 200, minor: 1, keepAlive: true, framing: NoBody, cl: 10, header: lenOf("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n")},
		}},
		{name: "head with te chunked", head: true, in: hChunked + hChunked, want: []want{
			{status: 200, minor: 1, keepAlive: true, framing: NoBody, cl: -1, header: lenOf(hChunked), end: len(hChunked)},
			{status: 200, minor: 1, keepAlive: true, framing: NoBody, cl: -1, header: lenOf(hChunked)},
		}},
		{name: "204 with cl and te", in: "HTTP/1.1 204 No Content\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n" + hCL5 + "hello", want: []want{
			{status: 204, minor: 1, keepAlive: true, framing: NoBody, cl: -1, header: lenOf("HTTP/1.1 204 No Content\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n"),
				end: len("HTTP/1.1 204 No Content\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n")},
			okCL5,
		}},
		{name: "304 with cl", in: "HTTP/1.1 304 Not Modified\r\nContent-Length: 5\r\n\r\n" + hCL5 + "hello", want: []want{
			{status: 304, minor: 1, keepAlive: true, framing: NoBody, cl: 5, header: lenOf("HTTP/1.1 304 Not Modified\r\nContent-Length: 5\r\n\r\n"),
				end: len("HTTP/1.1 304 Not Modified\r\nContent-Length: 5\r\n\r\n")},
			okCL5,
		}},
		{name: "304 with te", in: "HTTP/1.1 304 Not Modified\r\nTransfer-Encoding: chunked\r\n\r\n", want: []want{
			{status: 304, minor: 1, keepAlive: true, framing: NoBody, cl: -1, header: lenOf("HTTP/1.1 304 Not Modified\r\nTransfer-Encoding: chunked\r\n\r\n")},
		}},

		// Interim responses.
		{name: "1xx skipped", in: info100 + "HTTP/1.1 103 Early Hints\r\nLink: </s.css>; rel=preload\r\nServer: early\r\n\r\n" + hCL5 + "hello", want: []want{
			with(okCL5, func(w *want) {
				w.info = 2
				w.header = lenOf(info100 + "HTTP/1.1 103 Early Hints\r\nLink: </s.css>; rel=preload\r\nServer: early\r\n\r\n" + hCL5)
			}),
		}},
		{name: "1xx up to the limit", in: strings.Repeat(info100, 5) + hCL5 + "hello", want: []want{
			with(okCL5, func(w *want) { w.info, w.header = 5, lenOf(strings.Repeat(info100, 5)+hCL5) }),
		}},
		{name: "1xx too many", in: strings.Repeat(info100, 6) + hCL5 + "hello", want: []want{{hdrErr: ErrTooManyInfo}}},
		{name: "1xx lower limit", lim: Limits{MaxInfo: 1}, in: strings.Repeat(info100, 2) + hCL5 + "hello", want: []want{{hdrErr: ErrTooManyInfo}}},
		{name: "1xx then eof", in: info100, want: []want{{hdrErr: ErrTruncated}}},
		{name: "1xx then garbage", in: info100 + "garbage\r\n", want: []want{{hdrErr: ErrStatusLine}}},
		{name: "unexpected 101", in: "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\n", want: []want{{hdrErr: ErrUnexpected101}}},
		{name: "101 after 100", in: info100 + "HTTP/1.1 101 Switching Protocols\r\n\r\n", want: []want{{hdrErr: ErrUnexpected101}}},

		// Persistence.
		{name: "http/1.0", in: "HTTP/1.0 200 OK\r\nContent-Length: 5\r\n\r\nhello", want: []want{
			{status: 200, minor: 0, framing: Length, cl: 5, header: lenOf("HTTP/1.0 200 OK\r\nContent-Length: 5\r\n\r\n"), body: 5},
		}},
		{name: "http/1.0 keep-alive", in: "HTTP/1.0 200 OK\r\nConnection: Keep-Alive\r\nContent-Length: 5\r\n\r\nhello", want: []want{
			{status: 200, minor: 0, keepAlive: true, framing: Length, cl: 5, header: lenOf("HTTP/1.0 200 OK\r\nConnection: Keep-Alive\r\nContent-Length: 5\r\n\r\n"), body: 5},
		}},
		{name: "http/1.0 close-delimited", in: "HTTP/1.0 200 OK\r\n\r\nhello", want: []want{
			{status: 200, minor: 0, framing: UntilEOF, cl: -1, header: lenOf("HTTP/1.0 200 OK\r\n\r\n"), body: 5},
		}},
		{name: "http/1.0 keep-alive without length", in: "HTTP/1.0 200 OK\r\nConnection: keep-alive\r\n\r\nhello", want: []want{
			{status: 200, minor: 0, framing: UntilEOF, cl: -1, header: lenOf("HTTP/1.0 200 OK\r\nConnection: keep-alive\r\n\r\n"), body: 5},
		}},
		{name: "connection close", in: "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 5\r\n\r\nhello", want: []want{
			{status: 200, minor: 1, framing: Length, cl: 5, header: lenOf("HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 5\r\n\r\n"), body: 5},
		}},
		{name: "connection close in list", in: "HTTP/1.1 200 OK\r\nConnection: Upgrade,  CLOSE \r\nContent-Length: 5\r\n\r\nhello", want: []want{
			{status: 200, minor: 1, framing: Length, cl: 5, header: lenOf("HTTP/1.1 200 OK\r\nConnection: Upgrade,  CLOSE \r\nContent-Length: 5\r\n\r\n"), body: 5},
		}},
		{name: "connection close wins", in: "HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nConnection: close\r\nContent-Length: 5\r\n\r\nhello", want: []want{
			{status: 200, minor: 0, framing: Length, cl: 5, header: lenOf("HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nConnection: close\r\nContent-Length: 5\r\n\r\n"), body: 5},
		}},
		{name: "close-delimited", in: hClose + "all of this is the body", want: []want{
			{status: 200, minor: 1, framing: UntilEOF, cl: -1, header: lenOf(hClose), body: lenOf("all of this is the body")},
		}},
		{name: "close-delimited empty", in: hClose, want: []want{
			{status: 200, minor: 1, framing: UntilEOF, cl: -1, header: lenOf(hClose)},
		}},
		{name: "close-delimited reset", in: hClose + "partial", end: syscall.ECONNRESET, want: []want{
			{status: 200, minor: 1, framing: UntilEOF, cl: -1, header: lenOf(hClose), body: 7, bodyErr: syscall.ECONNRESET},
		}},
		{name: "close-delimited tls cut inside a record", in: hClose + "partial", end: io.ErrUnexpectedEOF, want: []want{
			{status: 200, minor: 1, framing: UntilEOF, cl: -1, header: lenOf(hClose), body: 7, bodyErr: ErrTruncated},
		}},

		// Truncation and connection errors.
		{name: "eof before any byte", in: "", want: []want{{hdrErr: io.EOF}}},
		{name: "reset before any byte", in: "", end: syscall.ECONNRESET, want: []want{{hdrErr: syscall.ECONNRESET}}},
		{name: "truncated in prefix", in: "HTT", want: []want{{hdrErr: ErrTruncated}}},
		{name: "truncated in status line", in: "HTTP/1.1 20", want: []want{{hdrErr: ErrTruncated}}},
		{name: "truncated in headers", in: "HTTP/1.1 200 OK\r\nContent-Len", want: []want{{hdrErr: ErrTruncated}}},
		{name: "truncated before blank line", in: "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n", want: []want{{hdrErr: ErrTruncated}}},
		{name: "reset in headers", in: "HTTP/1.1 200 OK\r\n", end: syscall.ECONNRESET, want: []want{{hdrErr: syscall.ECONNRESET}}},
		{name: "truncated in cl body", in: "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nhello", want: []want{
			{status: 200, minor: 1, keepAlive: true, framing: Length, cl: 10, header: lenOf("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n"), body: 5, bodyErr: ErrTruncated},
		}},
		{name: "truncated in cl body of second response", in: hCL5 + "hello" + hCL5 + "hel", want: []want{
			with(okCL5, func(w *want) { w.end = len(hCL5 + "hello") }),
			with(okCL5, func(w *want) { w.body, w.bodyErr = 3, ErrTruncated }),
		}},
		{name: "eof between responses", in: hCL5 + "hello", want: []want{okCL5}},

		// Not HTTP at all.
		{name: "garbage", in: "garbage\r\n\r\n", want: []want{{hdrErr: ErrStatusLine}}},
		{name: "garbage without newline", in: "<html>", want: []want{{hdrErr: ErrStatusLine}}},
		{name: "tls handshake", in: "\x16\x03\x01\x00\x2a\x02\x00\x00\x26\x03\x03", want: []want{{hdrErr: ErrStatusLineTLS}}},
		{name: "tls alert", in: "\x15\x03\x03\x00\x02\x02\x46", want: []want{{hdrErr: ErrStatusLineTLS}}},
		{name: "tls type byte alone", in: "\x16", want: []want{{hdrErr: ErrStatusLine}}},
		{name: "tls type then other", in: "\x16\x04", want: []want{{hdrErr: ErrStatusLine}}},
		{name: "ssh banner", in: "SSH-2.0-OpenSSH_9.6\r\n", want: []want{{hdrErr: ErrStatusLineSSH}}},
		{name: "ssh prefix cut short", in: "SSH", want: []want{{hdrErr: ErrStatusLine}}},
		{name: "http/2 preface reply", in: "HTTP/2 200\r\n\r\n", want: []want{{hdrErr: ErrStatusLine}}},
		{name: "http/0.9 style body", in: "hello world", want: []want{{hdrErr: ErrStatusLine}}},
		{name: "leading empty line", in: "\r\n" + hCL5 + "hello", want: []want{{hdrErr: ErrStatusLine}}},
		{name: "status code short", in: "HTTP/1.1 20 OK\r\n\r\n", want: []want{{hdrErr: ErrStatusLine}}},
		{name: "status code long", in: "HTTP/1.1 2000 OK\r\n\r\n", want: []want{{hdrErr: ErrStatusLine}}},
		{name: "status code letters", in: "HTTP/1.1 2x0 OK\r\n\r\n", want: []want{{hdrErr: ErrStatusLine}}},
		{name: "status code below 100", in: "HTTP/1.1 099 OK\r\n\r\n", want: []want{{hdrErr: ErrStatusLine}}},
		{name: "minor version letter", in: "HTTP/1.x 200 OK\r\n\r\n", want: []want{{hdrErr: ErrStatusLine}}},
		{name: "two spaces", in: "HTTP/1.1  200 OK\r\n\r\n", want: []want{{hdrErr: ErrStatusLine}}},

		// Header section limits and oddities.
		{name: "header too large", lim: Limits{MaxHeaderBytes: 64}, in: "HTTP/1.1 200 OK\r\nX-Padding: " + long + "\r\n\r\n", want: []want{{hdrErr: ErrHeaderTooLarge}}},
		{name: "header too large across lines", lim: Limits{MaxHeaderBytes: 64}, in: "HTTP/1.1 200 OK\r\n" + strings.Repeat("X-A: b\r\n", 10) + "Content-Length: 5\r\n\r\nhello", want: []want{{hdrErr: ErrHeaderTooLarge}}},
		{name: "header at the limit", lim: Limits{MaxHeaderBytes: int(lenOf(hCL5))}, in: hCL5 + "hello", want: []want{okCL5}},
		{name: "header one over the limit", lim: Limits{MaxHeaderBytes: int(lenOf(hCL5)) - 1}, in: hCL5 + "hello", want: []want{{hdrErr: ErrHeaderTooLarge}}},
		{name: "header limit counts 1xx", lim: Limits{MaxHeaderBytes: int(lenOf(info100+hCL5)) - 1}, in: info100 + hCL5 + "hello", want: []want{{hdrErr: ErrHeaderTooLarge}}},
		{name: "line longer than the buffer", buf: 4096, in: "HTTP/1.1 200 OK\r\nX-Long: " + long + "\r\nContent-Length: 5\r\n\r\nhello", want: []want{
			with(okCL5, func(w *want) {
				w.header = lenOf("HTTP/1.1 200 OK\r\nX-Long: " + long + "\r\nContent-Length: 5\r\n\r\n")
			}),
		}},
		{name: "line at MaxLine", buf: 4096, in: "HTTP/1.1 200 OK\r\nX-Long: " + atMax + "\r\nContent-Length: 5\r\n\r\nhello", want: []want{
			with(okCL5, func(w *want) {
				w.header = lenOf("HTTP/1.1 200 OK\r\nX-Long: " + atMax + "\r\nContent-Length: 5\r\n\r\n")
			}),
		}},
		{name: "line over MaxLine", buf: 4096, in: "HTTP/1.1 200 OK\r\nX-Long: " + atMax + "a\r\nContent-Length: 5\r\n\r\nhello", want: []want{{hdrErr: ErrLineTooLong}}},
		{name: "line over MaxLine, big buffer", buf: 64 << 10, in: "HTTP/1.1 200 OK\r\nX-Long: " + atMax + "a\r\nContent-Length: 5\r\n\r\nhello", want: []want{{hdrErr: ErrLineTooLong}}},
		{name: "status line over MaxLine", buf: 4096, in: "HTTP/1.1 200 " + atMax + "\r\n\r\n", want: []want{{hdrErr: ErrLineTooLong}}},
		{name: "too many fields", lim: Limits{MaxFields: 3}, in: "HTTP/1.1 200 OK\r\nA: 1\r\nB: 2\r\nC: 3\r\nContent-Length: 5\r\n\r\nhello", want: []want{{hdrErr: ErrTooManyFields}}},
		{name: "fields at the limit", lim: Limits{MaxFields: 3}, in: "HTTP/1.1 200 OK\r\nA: 1\r\nB: 2\r\nContent-Length: 5\r\n\r\nhello", want: []want{
			with(okCL5, func(w *want) { w.header = lenOf("HTTP/1.1 200 OK\r\nA: 1\r\nB: 2\r\nContent-Length: 5\r\n\r\n") }),
		}},
		{name: "default field limit", in: "HTTP/1.1 200 OK\r\n" + strings.Repeat("A: 1\r\n", 100) + "Content-Length: 5\r\n\r\nhello", want: []want{{hdrErr: ErrTooManyFields}}},
		{name: "space before colon", in: "HTTP/1.1 200 OK\r\nContent-Length : 5\r\n\r\nhello", want: []want{{hdrErr: ErrHeaderLine}}},
		{name: "tab before colon", in: "HTTP/1.1 200 OK\r\nX-Foo\t: 5\r\n\r\n", want: []want{{hdrErr: ErrHeaderLine}}},
		{name: "no colon", in: "HTTP/1.1 200 OK\r\nContent-Length 5\r\n\r\n", want: []want{{hdrErr: ErrHeaderLine}}},
		{name: "empty name", in: "HTTP/1.1 200 OK\r\n: 5\r\n\r\n", want: []want{{hdrErr: ErrHeaderLine}}},
		{name: "bare LF line endings", in: "HTTP/1.1 200 OK\nServer: lf\nContent-Length: 5\n\nhello", want: []want{
			with(okCL5, func(w *want) { w.header, w.server = lenOf("HTTP/1.1 200 OK\nServer: lf\nContent-Length: 5\n\n"), "lf" }),
		}},
		{name: "mixed line endings", in: "HTTP/1.1 200 OK\nContent-Length: 5\r\n\nhello", want: []want{
			with(okCL5, func(w *want) { w.header = lenOf("HTTP/1.1 200 OK\nContent-Length: 5\r\n\n") }),
		}},
		{name: "obs-fold ignored", in: "HTTP/1.1 200 OK\r\nX-Folded: a\r\n  b\r\n\tc\r\nContent-Length: 5\r\n\r\nhello", want: []want{
			with(okCL5, func(w *want) {
				w.header = lenOf("HTTP/1.1 200 OK\r\nX-Folded: a\r\n  b\r\n\tc\r\nContent-Length: 5\r\n\r\n")
			}),
		}},
		{name: "obs-fold after status line", in: "HTTP/1.1 200 OK\r\n folded\r\nContent-Length: 5\r\n\r\nhello", want: []want{
			with(okCL5, func(w *want) { w.header = lenOf("HTTP/1.1 200 OK\r\n folded\r\nContent-Length: 5\r\n\r\n") }),
		}},
		{name: "obs-fold of content-length", in: "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n 0\r\n\r\nhello", want: []want{{hdrErr: ErrHeaderLine}}},
		{name: "obs-fold of transfer-encoding", in: "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip,\r\n chunked\r\n\r\n" + chunkBody, want: []want{{hdrErr: ErrHeaderLine}}},
		{name: "obs-fold of connection", in: "HTTP/1.1 200 OK\r\nConnection: keep-alive,\r\n close\r\nContent-Length: 5\r\n\r\nhello", want: []want{{hdrErr: ErrHeaderLine}}},
		{name: "high bytes in values", in: "HTTP/1.1 200 OK\r\nX-Name: caf\xc3\xa9 \xff\r\nContent-Length: 5\r\n\r\nhello", want: []want{
			with(okCL5, func(w *want) {
				w.header = lenOf("HTTP/1.1 200 OK\r\nX-Name: caf\xc3\xa9 \xff\r\nContent-Length: 5\r\n\r\n")
			}),
		}},

		// Several responses on one connection.
		{name: "keep-alive reuse", in: hCL5 + "hello" + hChunked + chunkBody + "HTTP/1.1 204 No Content\r\n\r\n" + "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nbye", want: []want{
			with(okCL5, func(w *want) { w.end = len(hCL5 + "hello") }),
			with(okChunked5, func(w *want) { w.end = len(hCL5 + "hello" + hChunked + chunkBody) }),
			{status: 204, minor: 1, keepAlive: true, framing: NoBody, cl: -1, header: lenOf("HTTP/1.1 204 No Content\r\n\r\n"),
				end: len(hCL5 + "hello" + hChunked + chunkBody + "HTTP/1.1 204 No Content\r\n\r\n")},
			{status: 200, minor: 1, framing: UntilEOF, cl: -1, header: lenOf("HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n"), body: 3},
		}},
		{name: "NUL in the server header kept as a space", in: "HTTP/1.1 200 OK\r\nServer: gb\x00probe\r\nContent-Length: 5\r\n\r\nhello", want: []want{
			with(okCL5, func(w *want) {
				w.header, w.server = lenOf("HTTP/1.1 200 OK\r\nServer: gb\x00probe\r\nContent-Length: 5\r\n\r\n"), "gb probe"
			}),
		}},
		{name: "server header per response", in: "HTTP/1.1 200 OK\r\nServer: one\r\nContent-Length: 5\r\n\r\nhello" + hCL5 + "hello", want: []want{
			with(okCL5, func(w *want) {
				w.header, w.server = lenOf("HTTP/1.1 200 OK\r\nServer: one\r\nContent-Length: 5\r\n\r\n"), "one"
				w.end = len("HTTP/1.1 200 OK\r\nServer: one\r\nContent-Length: 5\r\n\r\nhello")
			}),
			okCL5,
		}},
		{name: "response spanning compaction", buf: 4096, in: hFiller + filler + hCL5 + "hello" + hFiller + filler + hChunked + chunkBody, want: []want{
			{status: 200, minor: 1, keepAlive: true, framing: Length, cl: 4000, header: lenOf(hFiller), body: 4000, end: len(hFiller + filler)},
			with(okCL5, func(w *want) { w.end = len(hFiller + filler + hCL5 + "hello") }),
			{status: 200, minor: 1, keepAlive: true, framing: Length, cl: 4000, header: lenOf(hFiller), body: 4000, end: len(hFiller + filler + hCL5 + "hello" + hFiller + filler)},
			okChunked5,
		}},
		{name: "chunk line spanning compaction", buf: 4096, in: hFiller + filler + hChunked + "0000000000005;" + strings.Repeat("e", 100) + "\r\nhello\r\n0\r\n\r\n", want: []want{
			{status: 200, minor: 1, keepAlive: true, framing: Length, cl: 4000, header: lenOf(hFiller), body: 4000, end: len(hFiller + filler)},
			okChunked5,
		}},
		{name: "cl body much larger than the buffer", buf: 4096, in: "HTTP/1.1 200 OK\r\nContent-Length: 1048576\r\n\r\n" + big + hCL5 + "hello", want: []want{
			{status: 200, minor: 1, keepAlive: true, framing: Length, cl: 1 << 20, header: lenOf("HTTP/1.1 200 OK\r\nContent-Length: 1048576\r\n\r\n"), body: 1 << 20,
				end: len("HTTP/1.1 200 OK\r\nContent-Length: 1048576\r\n\r\n" + big)},
			okCL5,
		}},
		{name: "chunked body much larger than the buffer", buf: 4096, in: hChunked + bigChunked + hCL5 + "hello", want: []want{
			with(okChunked5, func(w *want) { w.body, w.end = 50*10000, len(hChunked+bigChunked) }),
			okCL5,
		}},
		{name: "close-delimited body much larger than the buffer", buf: 4096, in: hClose + big, want: []want{
			{status: 200, minor: 1, framing: UntilEOF, cl: -1, header: lenOf(hClose), body: 1 << 20},
		}},
	}
}

// chunkings are the read sizes every case runs with: byte by byte, small
// odd sizes that put boundaries everywhere, and whole reads.
var chunkings = []int{1, 2, 3, 7, 64, 0}

func TestReader(t *testing.T) {
	for _, c := range readCases() {
		t.Run(c.name, func(t *testing.T) {
			for _, size := range chunkings {
				for _, eofWithData := range []bool{false, true} {
					name := fmt.Sprintf("chunk=%d", size)
					if eofWithData {
						name += "/eof-with-data"
					}
					if size == 1 && len(c.in) > 64<<10 && testing.Short() {
						continue
					}
					t.Run(name, func(t *testing.T) { runCase(t, c, size, eofWithData) })
				}
			}
		})
	}
}

func runCase(t *testing.T, c readCase, size int, eofWithData bool) {
	src := &chunkSource{data: []byte(c.in), size: size, eofWithData: eofWithData, end: c.end}
	r := NewReader(src, c.buf, c.lim)
	bufSize := len(r.buf)
	defer func() {
		if r.Wire != src.n {
			t.Errorf("Wire = %d, want the %d bytes read from the source", r.Wire, src.n)
		}
	}()
	var resp Response
	for i, w := range c.want {
		err := r.ReadHeader(&resp, c.head)
		if w.hdrErr != nil {
			checkErr(t, i, "ReadHeader", err, w.hdrErr)
			if fresh := w.hdrErr == io.EOF || w.hdrErr == c.end && len(c.in) == 0; r.Started() == fresh {
				t.Errorf("response %d: Started() = %v after %v", i, r.Started(), err)
			}
			return
		}
		if err != nil {
			t.Fatalf("response %d: ReadHeader: %v", i, err)
		}
		if !r.Started() {
			t.Errorf("response %d: Started() = false after a response header", i)
		}
		got := want{
			status: resp.Status, minor: resp.Minor, keepAlive: resp.KeepAlive, framing: resp.Framing,
			cl: resp.ContentLength, clAndTE: resp.CLAndTE, info: resp.Info, header: resp.HeaderBytes,
			server: string(r.Server()),
		}
		exp := w
		exp.body, exp.end, exp.bodyErr = 0, 0, nil
		if got != exp {
			t.Fatalf("response %d header:\n got %+v\nwant %+v", i, got, exp)
		}
		err = r.ReadBody(&resp)
		if resp.BodyBytes != w.body {
			t.Errorf("response %d: BodyBytes = %d, want %d", i, resp.BodyBytes, w.body)
		}
		if w.bodyErr != nil {
			checkErr(t, i, "ReadBody", err, w.bodyErr)
			if !r.Started() {
				t.Errorf("response %d: Started() = false after a body error", i)
			}
			return
		}
		if err != nil {
			t.Fatalf("response %d: ReadBody: %v", i, err)
		}
		end := w.end
		if end == 0 {
			end = len(c.in)
		}
		if consumed := r.Wire - int64(r.Buffered()); consumed != int64(end) {
			t.Errorf("response %d: consumed %d bytes (Wire %d, Buffered %d), want %d", i, consumed, r.Wire, r.Buffered(), end)
		}
		// With whole reads everything that fits is buffered, so what
		// follows the response shows up in Buffered.
		if size == 0 && !eofWithData && len(c.in) <= bufSize && r.Buffered() != len(c.in)-end {
			t.Errorf("response %d: Buffered() = %d, want %d", i, r.Buffered(), len(c.in)-end)
		}
	}
	// Every response read: the connection ends cleanly before a new one.
	err := r.ReadHeader(&resp, c.head)
	end := c.end
	if end == nil {
		end = io.EOF
	}
	if err != end || r.Started() {
		t.Errorf("after the last response: ReadHeader = %v with Started() = %v, want %v before any byte", err, r.Started(), end)
	}
	if r.Wire != int64(len(c.in)) {
		t.Errorf("Wire = %d, want the whole input, %d", r.Wire, len(c.in))
	}
}

func checkErr(t *testing.T, i int, op string, err, want error) {
	t.Helper()
	if !errors.Is(err, want) {
		t.Fatalf("response %d: %s error = %v, want %v", i, op, err, want)
	}
	var pe *ProtocolError
	if IsProtocol(want) != errors.As(err, &pe) {
		t.Errorf("response %d: IsProtocol(%v) = %v", i, err, !IsProtocol(want))
	}
	if pe != nil && !strings.HasPrefix(err.Error(), "h1: ") || err == ErrTruncated && err.Error() != "h1: response truncated" {
		t.Errorf("response %d: error text %q", i, err.Error())
	}
	if want == ErrTruncated && !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("response %d: %v does not wrap io.ErrUnexpectedEOF", i, err)
	}
}

// TestReaderEveryCut cuts valid exchanges at every byte: a cut inside a
// response is ErrTruncated (with the bytes seen counted), a cut at a
// response boundary is a clean io.EOF before any byte, and a
// close-delimited body is complete wherever it ends.
func TestReaderEveryCut(t *testing.T) {
	streams := []struct {
		name string
		in   string
		head bool
	}{
		{"cl", hCL5 + "hello" + hCL5 + "hello", false},
		{"chunked with trailers", hChunked + "3;x=y\r\nabc\r\n2\r\nde\r\n0\r\nT: 1\r\n\r\n" + hCL5 + "hello", false},
		{"1xx", info100 + "HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n" + hCL5 + "hello", false},
		{"head", hCL5 + hCL5, true},
		{"close-delimited", hClose + "body bytes", false},
	}
	for _, s := range streams {
		t.Run(s.name, func(t *testing.T) {
			// Response boundaries and, for close-delimited bodies, the
			// offsets where a cut is a complete response.
			full := readAll(t, s.in, s.head)
			for cut := 0; cut < len(s.in); cut++ {
				for _, size := range []int{1, 0} {
					src := &chunkSource{data: []byte(s.in[:cut]), size: size}
					r := NewReader(src, 0, Limits{})
					var resp Response
					var err error
					for err == nil {
						if err = r.ReadHeader(&resp, s.head); err == nil {
							err = r.ReadBody(&resp)
						}
					}
					consumed := r.Wire - int64(r.Buffered())
					switch {
					case err == io.EOF:
						if r.Started() || !full.boundary[cut] {
							t.Fatalf("cut %d, chunk %d: io.EOF (Started %v) inside a response", cut, size, r.Started())
						}
					case errors.Is(err, ErrTruncated):
						if full.boundary[cut] {
							t.Fatalf("cut %d, chunk %d: ErrTruncated at a response boundary", cut, size)
						}
					default:
						t.Fatalf("cut %d, chunk %d: unexpected error %v", cut, size, err)
					}
					if consumed > int64(cut) || r.Wire != src.n {
						t.Fatalf("cut %d: consumed %d, Wire %d, source gave %d", cut, consumed, r.Wire, src.n)
					}
				}
			}
		})
	}
}

// stream is a valid input's response boundaries.
type stream struct{ boundary map[int]bool }

func readAll(t *testing.T, in string, head bool) stream {
	t.Helper()
	r := NewReader(&chunkSource{data: []byte(in)}, 0, Limits{})
	s := stream{boundary: map[int]bool{0: true}}
	var resp Response
	for {
		err := r.ReadHeader(&resp, head)
		if err == io.EOF {
			return s
		}
		if err != nil {
			t.Fatalf("ReadHeader: %v", err)
		}
		if err = r.ReadBody(&resp); err != nil {
			t.Fatalf("ReadBody: %v", err)
		}
		if resp.Framing == UntilEOF {
			// A close-delimited body is complete wherever the server
			// closes, once the header section is whole.
			for i := int(r.Wire) - int(resp.BodyBytes); i <= len(in); i++ {
				s.boundary[i] = true
			}
		}
		s.boundary[int(r.Wire)-r.Buffered()] = true
	}
}

func TestReaderFill(t *testing.T) {
	src := &chunkSource{data: []byte(hCL5 + "hello"), size: 4}
	r := NewReader(src, 0, Limits{})
	if err := r.Fill(); err != nil || r.Buffered() != 4 || r.Wire != 4 {
		t.Fatalf("Fill = %v, Buffered %d, Wire %d; want nil, 4, 4", err, r.Buffered(), r.Wire)
	}
	if err := r.Fill(); err != nil || r.Wire != 4 {
		t.Fatalf("Fill with bytes buffered = %v and read (Wire %d); want nil without reading", err, r.Wire)
	}
	if r.Started() {
		t.Error("Started() before ReadHeader")
	}
	var resp Response
	if err := r.ReadHeader(&resp, false); err != nil {
		t.Fatal(err)
	}
	if err := r.ReadBody(&resp); err != nil || resp.BodyBytes != 5 {
		t.Fatalf("ReadBody = %v, BodyBytes %d", err, resp.BodyBytes)
	}
	if err := r.Fill(); err != io.EOF {
		t.Fatalf("Fill at the end = %v, want io.EOF", err)
	}

	// Reset drops what is buffered and zeroes Wire.
	r.Reset(&chunkSource{data: []byte("HTTP/1.1 204 No Content\r\n\r\n" + hCL5)})
	if err := r.ReadHeader(&resp, false); err != nil || resp.Status != 204 {
		t.Fatalf("ReadHeader = %v, status %d", err, resp.Status)
	}
	if r.Buffered() == 0 {
		t.Fatal("expected the second response to be buffered")
	}
	r.Reset(&chunkSource{data: []byte(hCL5 + "hello")})
	if r.Buffered() != 0 || r.Wire != 0 || r.Started() {
		t.Fatalf("after Reset: Buffered %d, Wire %d, Started %v", r.Buffered(), r.Wire, r.Started())
	}
	if err := r.ReadHeader(&resp, false); err != nil || resp.Status != 200 || resp.ContentLength != 5 {
		t.Fatalf("ReadHeader after Reset = %v, %+v", err, resp)
	}
}

// stallSource returns (0, nil) for ever: a broken io.Reader.
type stallSource struct{}

func (stallSource) Read([]byte) (int, error) { return 0, nil }

func TestReaderNoProgress(t *testing.T) {
	r := NewReader(stallSource{}, 0, Limits{})
	var resp Response
	if err := r.ReadHeader(&resp, false); err != io.ErrNoProgress {
		t.Fatalf("ReadHeader = %v, want io.ErrNoProgress", err)
	}
}

// TestReaderResponseReset checks that ReadHeader clears a reused Response.
func TestReaderResponseReset(t *testing.T) {
	r := NewReader(&chunkSource{data: []byte(hCL5 + "hello")}, 0, Limits{})
	resp := Response{Status: 500, Info: 3, CLAndTE: true, BodyBytes: 99, HeaderBytes: 99}
	if err := r.ReadHeader(&resp, false); err != nil {
		t.Fatal(err)
	}
	if resp.Info != 0 || resp.CLAndTE || resp.BodyBytes != 0 || resp.HeaderBytes != lenOf(hCL5) {
		t.Fatalf("stale fields after ReadHeader: %+v", resp)
	}
}

func TestParseChunkSize(t *testing.T) {
	tests := []struct {
		in   string
		n    int64
		ok   bool
		name string
	}{
		{"0", 0, true, "zero"},
		{"5", 5, true, "digit"},
		{"a", 10, true, "lower"},
		{"A", 10, true, "upper"},
		{"fF", 255, true, "mixed case"},
		{"000a", 10, true, "leading zeros"},
		{"5;ext", 5, true, "extension"},
		{"5 ; ext=\"q\"", 5, true, "whitespace before extension"},
		{"5\t;a;b=c", 5, true, "tab and several extensions"},
		{"fffffffffffffff", 1<<60 - 1, true, "largest"},
		{"0000000000000000fffffffffffffff", 1<<60 - 1, true, "largest with zeros"},
		{"1000000000000000", 0, false, "2^60"},
		{"ffffffffffffffff", 0, false, "2^64-1"},
		{"10000000000000000", 0, false, "2^64"},
		{"", 0, false, "empty"},
		{";ext", 0, false, "extension only"},
		{"g", 0, false, "not hex"},
		{"-1", 0, false, "negative"},
		{"+1", 0, false, "plus"},
		{"0x1", 0, false, "0x"},
		{"1 2", 0, false, "inner space"},
		{"1\r", 0, false, "cr"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, ok := parseChunkSize([]byte(tt.in))
			if n != tt.n || ok != tt.ok {
				t.Errorf("parseChunkSize(%q) = %d, %v; want %d, %v", tt.in, n, ok, tt.n, tt.ok)
			}
		})
	}
}

func TestLastToken(t *testing.T) {
	for in, want := range map[string]string{
		"chunked":          "chunked",
		"gzip, chunked":    "chunked",
		"gzip,chunked ,":   "chunked",
		"chunked, gzip":    "gzip",
		" , ,":             "",
		"":                 "",
		"gzip ,  chunked ": "chunked",
	} {
		if got := lastToken([]byte(in)); !bytes.Equal(got, []byte(want)) {
			t.Errorf("lastToken(%q) = %q, want %q", in, got, want)
		}
	}
}
