package main

import (
	"fmt"
	"path/filepath"
	"strings"
)

// The script tables (-tables script) measure issue 31's cost of wrk's
// scripting API: gb --script and wrk -s with the same scripts from
// bench/scripts on nginx's 6-byte file, interleaved. "script" runs each
// script keep-alive on -script-c connections and compares CPU per request
// (gb ÷ wrk); "script-memory" holds -script-mem-c connections for -mem-d
// with and without a script and compares each tool's peak RSS with a
// script to its own without.

// costScript is one script of the cost table and its goal: gb's CPU per
// request at most limit × wrk's with the same script.
type costScript struct {
	file  string // in bench/scripts
	what  string
	limit float64
}

var costScripts = []costScript{
	{"prepared.lua", "(a) request() returns a prepared string", 1},
	{"counter.lua", "(b) a wrk.format per request (counter.lua's pattern)", 1.5},
	{"header.lua", "(c) response() reads a header", 1.5},
}

// memScripts are the scripts of the script-memory table.
var memScripts = []string{"counter.lua", "header.lua"}

// scriptRow names a tool's row with script s ("" = none): tool is "wrk",
// "gb" or the -baseline gb's name ("gb@abc1234").
func scriptRow(tool, s string) string {
	switch {
	case s == "":
		return tool
	case tool == "wrk":
		return "wrk -s " + s
	}
	return tool + " --script " + s
}

// scriptTools are the rows of the script table: gb (and the -baseline
// gb) and wrk without a script, then each script with each of them.
func scriptTools(p plan, bins map[string]string, dir string) []tool {
	var ts []tool
	for _, s := range append([]string{""}, names(costScripts)...) {
		path := filepath.Join(dir, s)
		for _, g := range gbBuilds(bins) {
			ts = append(ts, tool{key: "gb", name: scriptRow(g.name, s), bin: g.bin, parse: parseAB,
				args: func(u string, c, n int) []string {
					return withScript([]string{"-k", "-c", itoa(c), "-n", itoa(n), "-q"}, "--script", s, path, u)
				}})
		}
		if b := bins["wrk"]; b != "" {
			ts = append(ts, tool{key: "wrk", name: scriptRow("wrk", s), bin: b, parse: parseWrk, timed: true,
				args: func(u string, c, n int) []string {
					return withScript([]string{"-t1", "-c", itoa(c), "-d", p.wrkSeconds()}, "-s", s, path, u)
				}})
		}
	}
	return ts
}

// gbBuild is a gb binary and its row name.
type gbBuild struct{ name, bin string }

// gbBuilds are the gb binaries of the script table: this tree's, then
// the -baseline's when there is one.
func gbBuilds(bins map[string]string) []gbBuild {
	var gs []gbBuild
	if b := bins["gb"]; b != "" {
		gs = append(gs, gbBuild{"gb", b})
		if base := bins["gb-base"]; base != "" {
			gs = append(gs, gbBuild{baseName, base})
		}
	}
	return gs
}

// scriptMemoryTools are the rows of the script-memory table: gb and wrk
// holding c connections for p.memD, without and with each of memScripts.
func scriptMemoryTools(p plan, bins map[string]string, dir string) []tool {
	var ts []tool
	for _, s := range append([]string{""}, memScripts...) {
		path := filepath.Join(dir, s)
		if b := bins["gb"]; b != "" {
			ts = append(ts, tool{key: "gb", name: scriptRow("gb", s), bin: b, parse: parseAB, timed: true,
				args: func(u string, c, _ int) []string {
					return withScript([]string{"-k", "-c", itoa(c), "-t", p.memSeconds(c), "-q"}, "--script", s, path, u)
				}})
		}
		if b := bins["wrk"]; b != "" {
			ts = append(ts, tool{key: "wrk", name: scriptRow("wrk", s), bin: b, parse: parseWrk, timed: true,
				args: func(u string, c, _ int) []string {
					return withScript([]string{"-t1", "-c", itoa(c), "-d", p.memSeconds(c) + "s"}, "-s", s, path, u)
				}})
		}
	}
	return ts
}

// withScript appends flag and path when s is a script, then the URL.
func withScript(args []string, flag, s, path, url string) []string {
	if s != "" {
		args = append(args, flag, path)
	}
	return append(args, url)
}

func names(cs []costScript) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.file)
	}
	return out
}

// renderScript prints the script table: gb's and wrk's CPU per 100 000
// requests for each script, their ratio and the goal; then each tool's
// cost of the script over its own run without one.
func renderScript(b *strings.Builder, m mode, cells map[cellKey][]row) {
	b.WriteString("\n### Scripts: CPU per request, gb --script ÷ wrk -s with the same script (bench/scripts), keep-alive\n\n")
	b.WriteString("| target | c | script | gb req/s | wrk req/s | gb CPU-s/100k | wrk CPU-s/100k | gb ÷ wrk | goal | met | gb script − none | wrk script − none | runs gb, wrk |\n")
	b.WriteString("|---|---:|---|---:|---:|---:|---:|---:|---:|---|---:|---:|---|\n")
	for _, t := range m.targets {
		for _, c := range m.conc {
			by := rowsByName(cells[cellKey{m.name, t.name, c}])
			for _, gb := range []string{"gb", baseName} {
				if _, ok := by[scriptRow(gb, "")]; gb != "gb" && !ok {
					continue // no -baseline
				}
				renderScriptRows(b, t.name, c, gb, by)
			}
		}
	}
}

// renderScriptRows prints the script table's rows of one gb build (gb,
// or the -baseline's name), each beside wrk's row.
func renderScriptRows(b *strings.Builder, target string, c int, gb string, by map[string]row) {
	suffix := ""
	if gb != "gb" {
		suffix = " (" + gb + ")"
	}
	g0, w0 := by[scriptRow(gb, "")], by[scriptRow("wrk", "")]
	fmt.Fprintf(b, "| %s | %d | none%s | %.0f | %.0f | %.2f | %.2f | %s | | | | | %s, %s |\n", target, c, suffix, g0.rps, w0.rps, g0.cpu, w0.cpu, div(g0.cpu, w0.cpu), runsCell(g0), runsCell(w0))
	for _, s := range costScripts {
		g, w := by[scriptRow(gb, s.file)], by[scriptRow("wrk", s.file)]
		met := "–"
		if g.ok > 0 && w.ok > 0 {
			met = newVerdict(g, w, s.limit, false)
		}
		fmt.Fprintf(b, "| %s | %d | %s %s%s | %.0f | %.0f | %.2f | %.2f | %s | ≤ %.1f | %s | %s | %s | %s, %s |\n",
			target, c, s.file, s.what, suffix, g.rps, w.rps, g.cpu, w.cpu, div(g.cpu, w.cpu), s.limit, met,
			minus(g.cpu, g0.cpu, g0.ok > 0), minus(w.cpu, w0.cpu, w0.ok > 0), runsCell(g), runsCell(w))
	}
}

// renderScriptMemory prints the script-memory table: each tool's peak RSS
// with a script ÷ its own without one (goal for gb: ≤ 2).
func renderScriptMemory(b *strings.Builder, m mode, cells map[cellKey][]row) {
	b.WriteString("\n### Scripts: peak RSS of c keep-alive connections with a script ÷ without (the same tool)\n\n")
	b.WriteString("| target | c | tool | req/s | CPU-s/100k | peak RSS MiB | ÷ without a script | goal | runs |\n|---|---:|---|---:|---:|---:|---:|---:|---|\n")
	for _, t := range m.targets {
		for _, c := range m.conc {
			by := rowsByName(cells[cellKey{m.name, t.name, c}])
			for _, tl := range []string{"gb", "wrk"} {
				base := by[scriptRow(tl, "")]
				for _, s := range append([]string{""}, memScripts...) {
					r := by[scriptRow(tl, s)]
					ratio, goal := "", ""
					if s != "" {
						ratio = div(r.rss, base.rss)
						if tl == "gb" {
							goal = "≤ 2"
						}
					}
					fmt.Fprintf(b, "| %s | %d | %s | %.0f | %.2f | %.1f | %s | %s | %s |\n", t.name, c, scriptRow(tl, s), r.rps, r.cpu, r.rss, ratio, goal, runsCell(r))
				}
			}
		}
	}
}

// rowsByName indexes a cell's rows that ran at least once.
func rowsByName(rows []row) map[string]row {
	m := map[string]row{}
	for _, r := range rows {
		if r.ok > 0 {
			m[r.tool] = r
		}
	}
	return m
}

func div(a, b float64) string {
	if a == 0 || b == 0 {
		return "–"
	}
	return fmt.Sprintf("%.2f", a/b)
}

func minus(a, b float64, ok bool) string {
	if !ok || a == 0 {
		return "–"
	}
	return fmt.Sprintf("%+.2f", a-b)
}

// scriptModes returns the script and script-memory tables when -tables
// has script; small is nginx's 6-byte file (nil without nginx).
func (o options) scriptModes(p plan, bins map[string]string, dir string, small []*target) []mode {
	if !o.tables["script"] {
		return nil
	}
	return []mode{
		{name: "script", tools: scriptTools(p, bins, dir), n: o.n, targets: small, conc: []int{o.scriptC}, ref: "wrk"},
		{name: "script-memory", tools: scriptMemoryTools(p, bins, dir), n: o.n, targets: small, conc: []int{o.scriptMemC}, ref: "wrk"},
	}
}
