package main

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
)

// parseTables reads -tables and -mem-c into o and checks the new tables'
// numbers.
func parseTables(o *options, tables, memC string) error {
	o.tables = set(tables)
	var err error
	if o.memC, err = ints(memC); err != nil || len(o.memC) == 0 {
		return fmt.Errorf("-mem-c %q: want numbers like 1000,5000", memC)
	}
	if !slices.Contains(o.memC, 1) {
		o.memC = append([]int{1}, o.memC...) // the baseline of RSS per connection
	}
	if o.memD < time.Second || o.memD%time.Second != 0 {
		return fmt.Errorf("-mem-d %v: want whole seconds, at least 1s", o.memD)
	}
	if o.closeC < 1 || o.closeN < o.closeC || o.h2C < 1 || o.h2M < 1 || o.h2N < 0 || o.scriptC < 1 || o.scriptMemC < 1 {
		return fmt.Errorf("want -close-c >= 1, -close-n >= -close-c, -h2-c, -h2-m, -script-c and -script-mem-c >= 1, -h2-n >= 0")
	}
	if o.h2N == 0 {
		o.h2N = o.n
	}
	if o.tables["memory"] && slices.Max(o.memC) >= memBig {
		o.timeout = max(o.timeout, 4*memBigRun) // connecting, then the run
	}
	return nil
}

// maxConns is the most connections any selected table opens at once.
func (o options) maxConns() int {
	m := 0
	if o.tables["keepalive"] || o.tables["pipelined"] {
		m = slices.Max(o.conc)
	}
	if o.tables["close"] {
		m = max(m, o.closeC)
	}
	if o.tables["memory"] {
		m = max(m, slices.Max(o.memC))
	}
	if o.tables["h2"] {
		m = max(m, o.h2C)
	}
	if o.tables["script"] {
		m = max(m, o.scriptC, o.scriptMemC)
	}
	return m
}

// target returns the nginx target of one of its files under base (its
// http or https URL).
func (n nginxRun) target(key, base string) *target {
	t := &target{key: key, name: "nginx 10 KiB", url: base + "/10k.dat", pid: n.worker, body: 10240}
	if key == "nginx-6b" {
		t.name, t.url, t.body = "nginx 6 B", base+"/6b.dat", 6
	}
	if strings.HasPrefix(base, "https:") {
		t.name += " (h2)"
	}
	return t
}

// newModes returns the close, memory and h2 tables that -tables selects.
// small is nginx's 6-byte file (nil without nginx), h2tgs the TLS targets.
func (o options) newModes(p plan, bins map[string]string, gbHTTP2 bool, small, h2tgs []*target) []mode {
	var ms []mode
	if o.tables["close"] {
		ms = append(ms, mode{name: "close", tools: closeTools(bins, o.engines), n: o.closeN, targets: small, conc: []int{o.closeC}, ref: "ab"})
	}
	if o.tables["memory"] {
		ms = append(ms, mode{name: "memory", tools: memoryTools(p, bins), n: o.n, targets: small, conc: o.memC, ref: "wrk"})
	}
	if o.tables["h2"] {
		ms = append(ms, mode{name: "h2", tools: h2Tools(p, bins, gbHTTP2), n: o.h2N, targets: h2tgs, conc: []int{o.h2C}, ref: "h2load -m " + itoa(p.h2M)})
	}
	return ms
}

// closeTools are the rows of the close table: a new connection for every
// request. h2load keeps its connections unless the request says
// Connection: close; with it, it opens one per request (checked against
// gb serve's ledger by TestH2loadClosesPerRequest).
func closeTools(bins map[string]string, engines []string) []tool {
	var ts []tool
	if b := bins["ab"]; b != "" {
		ts = append(ts, tool{key: "ab", name: "ab", bin: b, parse: parseAB,
			args: func(u string, c, n int) []string { return []string{"-c", itoa(c), "-n", itoa(n), u} }})
	}
	if b := bins["gb"]; b != "" {
		ts = append(ts, tool{key: "gb", name: "gb", bin: b, parse: parseAB,
			args: func(u string, c, n int) []string { return []string{"-c", itoa(c), "-n", itoa(n), "-q", u} }})
		if b := bins["gb-base"]; b != "" {
			ts = append(ts, tool{key: "gb", name: baseName, bin: b, parse: parseAB,
				args: func(u string, c, n int) []string { return []string{"-c", itoa(c), "-n", itoa(n), "-q", u} }})
		}
		for _, e := range engines {
			ts = append(ts, tool{key: "gb", name: "gb --engine=" + e, bin: b, parse: parseAB,
				args: func(u string, c, n int) []string {
					return []string{"--engine=" + e, "-c", itoa(c), "-n", itoa(n), "-q", u}
				}})
		}
	}
	if b := bins["h2load"]; b != "" {
		ts = append(ts, tool{key: "h2load", name: "h2load --h1 Connection: close", bin: b, parse: parseH2load,
			args: func(u string, c, n int) []string {
				return []string{"--h1", "-H", "Connection: close", "-c", itoa(c), "-n", itoa(n), u}
			}})
	}
	if b := bins["floor"]; b != "" {
		ts = append(ts, tool{key: "floor", name: "floor -reconnect", bin: b, parse: parseAB,
			args: func(u string, c, n int) []string { return []string{"-reconnect", "-c", itoa(c), "-n", itoa(n), u} }})
	}
	return ts
}

// memoryTools are the rows of the memory table: keep-alive load on c
// connections for memSeconds, gb on both engines, wrk and the epoll floor.
func memoryTools(p plan, bins map[string]string) []tool {
	var ts []tool
	if b := bins["gb"]; b != "" {
		for _, e := range []string{"loop", "goroutine"} {
			ts = append(ts, tool{key: "gb", name: "gb --engine=" + e, bin: b, parse: parseAB, timed: true,
				args: func(u string, c, _ int) []string {
					return []string{"--engine=" + e, "-k", "-c", itoa(c), "-t", p.memSeconds(c), "-q", u}
				}})
		}
	}
	if b := bins["wrk"]; b != "" {
		ts = append(ts, tool{key: "wrk", name: "wrk", bin: b, parse: parseWrk, timed: true,
			args: func(u string, c, _ int) []string {
				return []string{"-t1", "-c", itoa(c), "-d", p.memSeconds(c) + "s", u}
			}})
	}
	if b := bins["floor"]; b != "" {
		ts = append(ts, tool{key: "floor", name: "floor epoll", bin: b, parse: parseAB, timed: true,
			args: func(u string, c, _ int) []string {
				return []string{"-engine", "epoll", "-c", itoa(c), "-d", p.memSeconds(c) + "s", u}
			}})
	}
	return ts
}

// memBig is the connection count from which a memory run lasts at least
// memBigRun and is followed by memBigPause. From one source address,
// Linux picks connect()'s ephemeral ports from one half of the range
// first: once those 14 000 are taken, each connect scans them, and the
// rest connect at about 250 per second (19 900 take some 30 s on this
// machine with nothing else running). The pause lets the run's 19 900
// client-side TIME_WAIT ports expire (60 s) before the next run connects.
const (
	memBig      = 10000
	memBigRun   = 60 * time.Second
	memBigPause = 60 * time.Second
)

// memSeconds is how long a memory run on c connections lasts, in whole
// seconds: p.memD, at least memBigRun from memBig connections.
func (p plan) memSeconds(c int) string {
	d := p.memD
	if c >= memBig {
		d = max(d, memBigRun)
	}
	return itoa(int(d / time.Second))
}

// h2Tools are the rows of the h2 table: gb --http2 (when gb has it) and
// h2load, c connections with p.h2M streams each, over TLS without
// certificate verification.
func h2Tools(p plan, bins map[string]string, gbHTTP2 bool) []tool {
	m := itoa(p.h2M)
	var ts []tool
	if b := bins["gb"]; b != "" && gbHTTP2 {
		args := func(u string, c, n int) []string {
			return []string{"--http2", "--streams", m, "--insecure", "-c", itoa(c), "-n", itoa(n), "-q", u}
		}
		ts = append(ts, tool{key: "gb", name: "gb --http2 --streams " + m, bin: b, parse: parseAB, args: args})
		if b := bins["gb-base"]; b != "" {
			ts = append(ts, tool{key: "gb", name: baseName + " --http2 --streams " + m, bin: b, parse: parseAB, args: args})
		}
	}
	if b := bins["h2load"]; b != "" {
		ts = append(ts, tool{key: "h2load", name: "h2load -m " + m, bin: b, parse: parseH2load,
			args: func(u string, c, n int) []string { return []string{"-c", itoa(c), "-m", m, "-n", itoa(n), u} }})
	}
	return ts
}

// renderMemory prints the memory table: per tool and c, the peak RSS, the
// RSS per connection, (peak − peak at c=1) / c, and the slope, the RSS
// each connection added since the previous c (issue 20 measures "per
// connection" so: wrk's RSS barely moves from 1 to 1 000 connections, then
// grows by 4-5 KiB each), each with its ratio to wrk's; and the load's
// req/s and CPU.
func renderMemory(b *strings.Builder, m mode, cells map[cellKey][]row) {
	b.WriteString("\n### Memory: c keep-alive connections held for each run; RSS/conn = (peak RSS − peak RSS at c=1) / c; slope = (peak RSS − peak RSS at the previous c) / (c − previous c)\n\n")
	b.WriteString("| target | c | tool | req/s | CPU-s/100k | peak RSS MiB | RSS/conn KiB | ×wrk | slope KiB/conn | ×wrk | runs |\n|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---|\n")
	for _, t := range m.targets {
		base := map[string]float64{}
		for _, r := range cells[cellKey{m.name, t.name, 1}] {
			if r.ok > 0 {
				base[r.tool] = r.rss
			}
		}
		prev, prevC := maps.Clone(base), 1
		for _, c := range m.conc {
			rows := cells[cellKey{m.name, t.name, c}]
			per := func(r row, from map[string]float64, fromC int) (float64, bool) {
				b, ok := from[r.tool]
				rss := max(r.rss, r.errRSS)
				return (rss - b) * 1024 / float64(c-fromC), ok && c > 1 && c > fromC && rss > 0
			}
			var ref *row
			for i := range rows {
				if rows[i].tool == m.ref {
					ref = &rows[i]
				}
			}
			cell := func(r row, from map[string]float64, fromC int) (string, string) {
				v, ok := per(r, from, fromC)
				if !ok {
					return "–", "–"
				}
				if ref != nil {
					if w, ok := per(*ref, from, fromC); ok && w > 0 {
						return fmt.Sprintf("%.1f", v), fmt.Sprintf("%.2f", v/w)
					}
				}
				return fmt.Sprintf("%.1f", v), "–"
			}
			for _, r := range rows {
				pc, ratio := cell(r, base, 0)
				sl, sratio := cell(r, prev, prevC)
				if r.ok == 0 {
					// A failed run still allocated for its connections.
					rss := ""
					if r.errRSS > 0 {
						rss = fmt.Sprintf("%.1f", r.errRSS)
					}
					fmt.Fprintf(b, "| %s | %d | %s | | | %s | %s | %s | %s | %s | 0/%d, failed (see the notes) |\n", t.name, c, r.tool, rss, pc, ratio, sl, sratio, r.runs)
					continue
				}
				runs := runsCell(r)
				if r.rps == 0 {
					runs += ", no responses" // the connections were still being opened
				}
				fmt.Fprintf(b, "| %s | %d | %s | %.0f | %.2f | %.1f | %s | %s | %s | %s | %s |\n", t.name, c, r.tool, r.rps, r.cpu, r.rss, pc, ratio, sl, sratio, runs)
			}
			if c > 1 {
				for _, r := range rows {
					if rss := max(r.rss, r.errRSS); rss > 0 {
						prev[r.tool] = rss
					}
				}
				prevC = c
			}
		}
	}
}

// newVerdict is a new-goal row's "met": yes when gb's median CPU is within
// limit × ref's and (withRPS) its median req/s at least ref's; otherwise,
// as verdict does for the keep-alive goal, whether a Mann-Whitney U test
// of the runs shows gb worse (CPU above limit × ref's, or req/s below).
func newVerdict(g, ref row, limit float64, withRPS bool) string {
	cpuOK, rpsOK := g.cpu <= limit*ref.cpu, !withRPS || g.rps >= ref.rps
	if cpuOK && rpsOK {
		return "yes"
	}
	p := 1.0
	if !cpuOK {
		p = min(p, uTest(g.cpus, ref.cpus, limit))
	}
	if !rpsOK {
		p = min(p, uTest(g.rpss, ref.rpss, 1))
	}
	return shown(p)
}

// newGoals compares gb with issue 20's goals 2 and 3 and issue 18's h2
// goal: without keep-alive, req/s ≥ ab's and CPU ≤ ab's; RSS per
// connection ≤ wrk's; h2 CPU ≤ 1.2 × h2load's.
func newGoals(modes []mode, cells map[cellKey][]row) string {
	var b strings.Builder
	for _, m := range modes {
		if m.name != "close" && m.name != "h2" || !slices.ContainsFunc(m.tools, func(t tool) bool { return t.key == "gb" }) {
			continue
		}
		limit := map[string]float64{"close": 1, "h2": 1.2}[m.name]
		fmt.Fprintf(&b, "\n### gb against the goal, %s: CPU ≤ %.1f × %s's", m.name, limit, m.ref)
		if m.name == "close" {
			b.WriteString(", req/s ≥ ab's")
		}
		fmt.Fprintf(&b, "\n\n| target | c | gb row | gb CPU-s/100k | %s CPU-s/100k | gb ÷ %s | req/s ÷ %s | met |\n|---|---:|---|---:|---:|---:|---:|---|\n", m.ref, m.ref, m.ref)
		for _, t := range m.targets {
			for _, c := range m.conc {
				byName := map[string]row{}
				for _, r := range cells[cellKey{m.name, t.name, c}] {
					if r.ok > 0 {
						byName[r.tool] = r
					}
				}
				ref, ok := byName[m.ref]
				if !ok {
					continue
				}
				for _, tl := range m.tools {
					g, ok := byName[tl.name]
					if tl.key != "gb" || !ok {
						continue
					}
					q, rq := g.cpu/ref.cpu, g.rps/ref.rps
					fmt.Fprintf(&b, "| %s | %d | %s | %.2f | %.2f | %.2f | %.2f | %s |\n", t.name, c, tl.name, g.cpu, ref.cpu, q, rq,
						newVerdict(g, ref, limit, m.name == "close"))
				}
			}
		}
	}
	return b.String()
}
