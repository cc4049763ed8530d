package script

import (
	"testing"
)

// The per-request cost of the cost table's three scripts (bench/scripts):
// request() returning a prepared string, a wrk.format per request, and a
// response() that reads a header.

const (
	preparedSrc = `
local req
function init(args) req = wrk.format(nil, nil, nil, nil) end
function request() return req end
`
	counterSrc = `
local n = 0
function request()
  n = n + 1
  wrk.headers["X-Counter"] = n
  return wrk.format(nil, wrk.path .. "?n=" .. n)
end
`
	headerSrc = `
local length = 0
function response(status, headers, body)
  length = length + (tonumber(headers["Content-Length"]) or 0)
end
`
)

var nginxFields = []byte("Server: nginx/1.22.1\r\nDate: Fri, 27 Nov 2026 08:00:00 GMT\r\nContent-Type: application/octet-stream\r\nContent-Length: 6\r\nLast-Modified: Fri, 27 Nov 2026 07:00:00 GMT\r\nConnection: keep-alive\r\nETag: \"6566f0a0-6\"\r\nAccept-Ranges: bytes\r\n")

func benchRequest(b *testing.B, src string) {
	g := load(b, "bench.lua", src, 1)
	th := g.Threads[0]
	var batch Batch
	b.ReportAllocs()
	for b.Loop() {
		if err := th.Request(&batch); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkRequestPrepared(b *testing.B) { benchRequest(b, preparedSrc) }
func BenchmarkRequestCounter(b *testing.B)  { benchRequest(b, counterSrc) }

func BenchmarkResponseHeader(b *testing.B) {
	g := load(b, "bench.lua", headerSrc, 1)
	th := g.Threads[0]
	body := []byte("hello\n")
	b.ReportAllocs()
	for b.Loop() {
		if err := th.Response(200, nginxFields, body); err != nil {
			b.Fatal(err)
		}
	}
}
