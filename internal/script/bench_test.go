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

// TestPerRequestAllocations bounds the allocations of the cost table's
// scripts per call (counts, not time): before the script path was made
// lean they were 0, 24 and 56.
func TestPerRequestAllocations(t *testing.T) {
	var batch Batch
	for _, tc := range []struct {
		name, src string
		most      float64
	}{{"prepared", preparedSrc, 0}, {"counter", counterSrc, 8}} {
		th := load(t, tc.name+".lua", tc.src, 1).Threads[0]
		if n := testing.AllocsPerRun(200, func() { _ = th.Request(&batch) }); n > tc.most {
			t.Errorf("%s: %.0f allocations per request(), want at most %.0f", tc.name, n, tc.most)
		}
	}
	th := load(t, "header.lua", headerSrc, 1).Threads[0]
	body := []byte("hello\n")
	if n := testing.AllocsPerRun(200, func() { _ = th.Response(200, nginxFields, body) }); n > 30 {
		t.Errorf("header: %.0f allocations per response(), want at most 30 (gopher-lua's table: about 3 per header)", n)
	}
}
