package main

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gb-bench/gb/internal/testserver"
	"github.com/gb-bench/gb/internal/testsupport"
)

func TestParseTables(t *testing.T) {
	o := options{n: 5000, conc: []int{50, 1000}, memD: 3 * time.Second, closeC: 20, closeN: 20000, h2C: 10, h2M: 10, scriptC: 50, scriptMemC: 1000}
	if err := parseTables(&o, "close,memory,h2", "1000,19900"); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(o.memC, []int{1, 1000, 19900}) || o.h2N != 5000 || o.tables["keepalive"] || !o.tables["h2"] {
		t.Errorf("memC %v, h2N %d, tables %v", o.memC, o.h2N, o.tables)
	}
	if o.timeout != 4*memBigRun {
		t.Errorf("timeout %v with 19900 connections", o.timeout)
	}
	if m := o.maxConns(); m != 19900 {
		t.Errorf("maxConns %d, want 19900 (the keep-alive table is not selected)", m)
	}
	o.tables["keepalive"] = true
	o.memC = []int{1, 10}
	if m := o.maxConns(); m != 1000 {
		t.Errorf("maxConns %d, want 1000", m)
	}
	for _, tc := range []struct {
		memC string
		edit func(*options)
	}{
		{"x", nil},
		{"", nil},
		{"100", func(o *options) { o.memD = 1500 * time.Millisecond }},
		{"100", func(o *options) { o.closeN = 5 }},
		{"100", func(o *options) { o.h2M = 0 }},
	} {
		o := options{n: 10, memD: time.Second, closeC: 20, closeN: 20000, h2C: 10, h2M: 10}
		if tc.edit != nil {
			tc.edit(&o)
		}
		if err := parseTables(&o, "memory", tc.memC); err == nil || strings.Contains(err.Error(), "\n") {
			t.Errorf("-mem-c %q %+v: %v", tc.memC, o, err)
		}
	}
}

// TestNewTablesArgs: the rows' command lines: the floor's two keep-alive
// modes, no -k without keep-alive, Connection: close for h2load,
// time-bounded memory runs, h2 streams.
func TestNewTablesArgs(t *testing.T) {
	bins := map[string]string{"gb": "gb", "ab": "ab", "h2load": "h2load", "wrk": "wrk", "floor": "floor"}
	p := plan{memD: 7 * time.Second, h2M: 10}
	args := map[string]string{}
	for table, ts := range map[string][]tool{"keepalive": keepAliveTools(p, bins, nil, nil), "close": closeTools(bins, []string{"goroutine"}), "memory": memoryTools(p, bins), "h2": h2Tools(p, bins, true)} {
		for _, tl := range ts {
			args[table+": "+tl.name] = strings.Join(tl.args("U", 20, 2000), " ")
		}
	}
	for name, want := range map[string]string{
		"keepalive: floor epoll":               "-engine epoll -c 20 -n 2000 U",
		"keepalive: floor epoll -measure":      "-engine epoll -measure -c 20 -n 2000 U",
		"close: ab":                            "-c 20 -n 2000 U",
		"close: gb":                            "-c 20 -n 2000 -q U",
		"close: gb --engine=goroutine":         "--engine=goroutine -c 20 -n 2000 -q U",
		"close: h2load --h1 Connection: close": "--h1 -H Connection: close -c 20 -n 2000 U",
		"close: floor -reconnect":              "-reconnect -c 20 -n 2000 U",
		"memory: gb --engine=loop":             "--engine=loop -k -c 20 -t 7 -q U",
		"memory: gb --engine=goroutine":        "--engine=goroutine -k -c 20 -t 7 -q U",
		"memory: wrk":                          "-t1 -c 20 -d 7s U",
		"memory: floor epoll":                  "-engine epoll -c 20 -d 7s U",
		"h2: gb --http2 --streams 10":          "--http2 --streams 10 --insecure -c 20 -n 2000 -q U",
		"h2: h2load -m 10":                     "-c 20 -m 10 -n 2000 U",
	} {
		if args[name] != want {
			t.Errorf("%s: %q, want %q", name, args[name], want)
		}
	}
	if got := strings.Join(memoryTools(p, bins)[0].args("U", 19900, 1), " "); got != "--engine=loop -k -c 19900 -t 60 -q U" {
		t.Errorf("memory at c=19900: %q, want a 60 s run", got)
	}
	if h2 := h2Tools(p, bins, false); len(h2) != 1 || h2[0].key != "h2load" {
		t.Errorf("without gb --http2 the h2 rows are %v", h2)
	}
}

// TestCloseRowsReconnect runs the close table's ab and h2load rows against
// gb's test server: every request must come on a connection of its own.
func TestCloseRowsReconnect(t *testing.T) {
	srv := testsupport.Server(t, testserver.Options{})
	bins := map[string]string{}
	for _, name := range []string{"ab", "h2load"} {
		if p, err := exec.LookPath(name); err == nil {
			bins[name] = p
		}
	}
	if len(bins) == 0 {
		t.Skip("neither ab nor h2load is installed")
	}
	for _, tl := range closeTools(bins, nil) {
		srv.ResetLedger()
		out, err := exec.Command(tl.bin, tl.args(srv.URL()+"/bytes/6", 2, 30)...).CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", tl.name, err, out)
		}
		if r, err := tl.parse(string(out)); err != nil || r.requests != 30 || r.failed != 0 {
			t.Errorf("%s: %+v, %v", tl.name, r, err)
		}
		testsupport.WaitFor(t, "the connections to close", func() bool { return srv.Ledger().HTTP.Open == 0 })
		if l := srv.Ledger().HTTP; l.Requests != 30 || l.RequestsPerConn[1] != 30 {
			t.Errorf("%s: %d requests, per connection %v; want 30 connections of one request", tl.name, l.Requests, l.RequestsPerConn)
		}
	}
}

func TestRenderMemory(t *testing.T) {
	m := mode{name: "memory", targets: []*target{{name: "nginx 6 B"}}, conc: []int{1, 1000, 5000}, ref: "wrk"}
	cells := map[cellKey][]row{
		{"memory", "nginx 6 B", 1}:    {{tool: "gb", ok: 1, runs: 1, rss: 10, rps: 5}, {tool: "wrk", ok: 1, runs: 1, rss: 4, rps: 5}, {tool: "floor", ok: 1, runs: 1, rss: 2, rps: 5}},
		{"memory", "nginx 6 B", 1000}: {{tool: "gb", ok: 1, runs: 1, rss: 20, rps: 5}, {tool: "wrk", ok: 1, runs: 1, rss: 9}, {tool: "floor", runs: 1, errRSS: 7}},
		{"memory", "nginx 6 B", 5000}: {{tool: "gb", ok: 1, runs: 1, rss: 40, rps: 5}, {tool: "wrk", ok: 1, runs: 1, rss: 25, rps: 5}},
	}
	var b strings.Builder
	renderMemory(&b, m, cells)
	// gb at 1000: (20−10) MiB over 1000 connections = 10.24 KiB each, a
	// slope of 10.25 from c=1; wrk 5.12 and 5.13. At 5000 the slope is
	// from c=1000: gb (40−20) MiB over 4000 = 5.12 KiB, wrk (25−9) = 4.10.
	// A run without responses, or a failed one, still shows its RSS, marked.
	for _, want := range []string{"| nginx 6 B | 1000 | gb | 5 | 0.00 | 20.0 | 10.2 | 2.00 | 10.3 | 2.00 | 1/1 |",
		"| nginx 6 B | 1000 | wrk | 0 | 0.00 | 9.0 | 5.1 | 1.00 | 5.1 | 1.00 | 1/1, no responses |", "| nginx 6 B | 1 | gb | 5 | 0.00 | 10.0 | – | – | – | – | 1/1 |",
		"| nginx 6 B | 1000 | floor | | | 7.0 | 5.1 | 1.00 | 5.1 | 1.00 | 0/1, failed (see the notes) |",
		"| nginx 6 B | 5000 | gb | 5 | 0.00 | 40.0 | 6.1 | 1.43 | 5.1 | 1.25 | 1/1 |"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("missing %q in\n%s", want, b.String())
		}
	}
}
