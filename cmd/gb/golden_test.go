package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// update rewrites the golden files instead of comparing with them:
// go test ./cmd/gb/ -run NAME -update, then review the diff of testdata/.
var updateGolden = flag.Bool("update", false, "rewrite the golden files in testdata/ with this run's output")

// golden compares got with testdata/NAME.golden (or writes it, with
// -update). Only deterministic output may go there: mask the rest first.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *updateGolden {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./cmd/gb/ -run '%s' -update to create it)", err, t.Name())
	}
	if got != string(want) {
		t.Errorf("output differs from %s (-update rewrites it):\n%s", path, lineDiff(string(want), got))
	}
}

// lineDiff lists the lines that differ between want and got, by number.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	line := func(ls []string, i int) string {
		if i < len(ls) {
			return strconv.Quote(ls[i])
		}
		return "(none)"
	}
	var b strings.Builder
	for i := range max(len(w), len(g)) {
		if wl, gl := line(w, i), line(g, i); wl != gl {
			fmt.Fprintf(&b, "line %d:\n  want %s\n  got  %s\n", i+1, wl, gl)
		}
	}
	return b.String()
}

// timingLine matches the report lines whose numbers are timings or rates,
// different in every run: ab's times, rates, Connection Times table and
// percentiles, and gb's latency and client lines.
var timingLine = regexp.MustCompile(`^(Time taken for tests|Requests per second|Time per request|Transfer rate|Connect|Processing|Waiting|Total|  latency ms|  client|  rate|  lag ms):|^ +\d+%|^ +[\d.]+ kb/s`)

var (
	// digits is a number not glued to a word before it (p99.9 stays).
	digits    = regexp.MustCompile(`(^|[^A-Za-z\d.])\d+(\.\d+)?`)
	spaces    = regexp.MustCompile(` {2,}`)
	labelPart = regexp.MustCompile(`^( *[^:%]*[:%]|  +)(.*)$`)
)

// maskReport makes a report deterministic for a golden file: the port of
// base (a server's base URL) becomes PORT in "Server Port:" and after a
// colon; on timing lines every number after the label (or the indent)
// becomes N and runs of spaces one space; the confidence
// warnings, which depend on each run's timings, are left out.
func maskReport(report, base string) string {
	port := base[strings.LastIndex(base, ":")+1:]
	var out []string
	for _, line := range strings.Split(report, "\n") {
		if confidenceLine.MatchString(line) {
			continue
		}
		line = strings.ReplaceAll(line, ":"+port, ":PORT")
		if strings.HasPrefix(line, "Server Port:") {
			line = strings.Replace(line, port, "PORT", 1)
		}
		if timingLine.MatchString(line) {
			if m := labelPart.FindStringSubmatch(line); m != nil {
				line = m[1] + spaces.ReplaceAllString(digits.ReplaceAllString(m[2], "${1}N"), " ")
			}
		}
		out = append(out, line)
	}
	return strings.Join(out, "\n")
}

// rampRow splits a step line of gb ramp's table into its counts (step,
// level, complete, failed) and its timings.
var rampRow = regexp.MustCompile(`^( +\d+ +[\d.]+ +\d+ +\d+)( .*)$`)

// maskRamp makes gb ramp's output deterministic for a golden file: the
// port of base becomes PORT, each step line keeps its counts and has its
// timings written N, and the saturation line, which timings decide, keeps
// only its label.
func maskRamp(out, base string) string {
	port := base[strings.LastIndex(base, ":")+1:]
	lines := strings.Split(out, "\n")
	for i, line := range lines {
		line = strings.ReplaceAll(line, ":"+port, ":PORT")
		if m := rampRow.FindStringSubmatch(line); m != nil {
			line = m[1] + spaces.ReplaceAllString(digits.ReplaceAllString(m[2], "${1}N"), " ")
		}
		if strings.HasPrefix(line, "saturation:") {
			line = "saturation: (decided by timings)"
		}
		lines[i] = line
	}
	return strings.Join(lines, "\n")
}
