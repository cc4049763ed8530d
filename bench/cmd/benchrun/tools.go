package main

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// A tool is one row of the table: a client binary with its flags for a
// keep-alive or pipelined run, and the parser of its report.
type tool struct {
	key   string // for -tools: gb, wrk, ab, h2load, hey, floor
	name  string // the row: "gb", "gb -G 1", "wrk", ...
	bin   string
	args  func(url string, c, n int) []string
	parse func(out string) (report, error)
	timed bool // runs for a duration (wrk), not a request count
}

// report is what the harness reads from a tool's own output.
type report struct {
	rps      float64 // requests per second as the tool reports it
	requests int64   // responses received (the divisor of CPU per 100k)
	failed   int64   // failed requests, errors and non-2xx responses
}

// plan holds the knobs that shape the tools' command lines.
type plan struct {
	wrkDuration time.Duration
	depth       int    // pipelining depth
	lua         string // bench/pipeline.lua

	memD time.Duration // the memory table's run length
	h2M  int           // the h2 table's streams per connection
}

func (p plan) wrkSeconds() string {
	return strconv.Itoa(int((p.wrkDuration+time.Second/2)/time.Second)) + "s"
}

// keepAliveTools are the rows of the keep-alive (no pipelining) table, in
// run order. gbCPUs adds a `gb -G N` row for each N, engines a
// `gb --engine=E` row for each E.
func keepAliveTools(p plan, bins map[string]string, gbCPUs []int, engines []string) []tool {
	var ts []tool
	if b := bins["gb"]; b != "" {
		ts = append(ts, tool{key: "gb", name: "gb", bin: b, parse: parseAB,
			args: func(u string, c, n int) []string { return []string{"-k", "-c", itoa(c), "-n", itoa(n), "-q", u} }})
		if b := bins["gb-base"]; b != "" {
			ts = append(ts, tool{key: "gb", name: baseName, bin: b, parse: parseAB,
				args: func(u string, c, n int) []string { return []string{"-k", "-c", itoa(c), "-n", itoa(n), "-q", u} }})
		}
		for _, e := range engines {
			ts = append(ts, tool{key: "gb", name: "gb --engine=" + e, bin: b, parse: parseAB,
				args: func(u string, c, n int) []string {
					return []string{"--engine=" + e, "-k", "-c", itoa(c), "-n", itoa(n), "-q", u}
				}})
		}
		for _, g := range gbCPUs {
			g := g
			ts = append(ts, tool{key: "gb", name: "gb -G " + itoa(g), bin: b, parse: parseAB,
				args: func(u string, c, n int) []string {
					return []string{"-G", itoa(g), "-k", "-c", itoa(c), "-n", itoa(n), "-q", u}
				}})
		}
	}
	if b := bins["wrk"]; b != "" {
		ts = append(ts, tool{key: "wrk", name: "wrk", bin: b, parse: parseWrk, timed: true,
			args: func(u string, c, n int) []string { return []string{"-t1", "-c", itoa(c), "-d", p.wrkSeconds(), u} }})
	}
	if b := bins["ab"]; b != "" {
		ts = append(ts, tool{key: "ab", name: "ab", bin: b, parse: parseAB,
			args: func(u string, c, n int) []string { return []string{"-k", "-c", itoa(c), "-n", itoa(n), u} }})
	}
	if b := bins["h2load"]; b != "" {
		ts = append(ts, tool{key: "h2load", name: "h2load", bin: b, parse: parseH2load,
			args: func(u string, c, n int) []string { return []string{"--h1", "-c", itoa(c), "-n", itoa(n), u} }})
	}
	if b := bins["hey"]; b != "" {
		ts = append(ts, tool{key: "hey", name: "hey", bin: b, parse: parseHey,
			args: func(u string, c, n int) []string { return []string{"-c", itoa(c), "-n", itoa(n), u} }})
	}
	if b := bins["floor"]; b != "" {
		for _, e := range []string{"epoll", "uring"} {
			ts = append(ts, tool{key: "floor", name: "floor " + e, bin: b, parse: parseAB,
				args: func(u string, c, n int) []string { return []string{"-engine", e, "-c", itoa(c), "-n", itoa(n), u} }})
		}
		// The floor that also times, parses and records every response with
		// gb's parser and recorder, from its loop: the cheapest measuring client.
		ts = append(ts, tool{key: "floor", name: "floor epoll -measure", bin: b, parse: parseAB,
			args: func(u string, c, n int) []string {
				return []string{"-engine", "epoll", "-measure", "-c", itoa(c), "-n", itoa(n), u}
			}})
	}
	return ts
}

// pipelinedTools are the rows of the pipelined table: gb --pipeline (when
// gb accepts the flag; once more with each of engines), wrk with
// bench/pipeline.lua, h2load -m, and floor -pipeline.
func pipelinedTools(p plan, bins map[string]string, gbPipelines bool, engines []string) []tool {
	d := itoa(p.depth)
	var ts []tool
	if b := bins["gb"]; b != "" && gbPipelines {
		ts = append(ts, tool{key: "gb", name: "gb --pipeline " + d, bin: b, parse: parseAB,
			args: func(u string, c, n int) []string {
				return []string{"--pipeline", d, "-k", "-c", itoa(c), "-n", itoa(n), "-q", u}
			}})
		if b := bins["gb-base"]; b != "" {
			ts = append(ts, tool{key: "gb", name: baseName + " --pipeline " + d, bin: b, parse: parseAB,
				args: func(u string, c, n int) []string {
					return []string{"--pipeline", d, "-k", "-c", itoa(c), "-n", itoa(n), "-q", u}
				}})
		}
		for _, e := range engines {
			ts = append(ts, tool{key: "gb", name: "gb --pipeline " + d + " --engine=" + e, bin: b, parse: parseAB,
				args: func(u string, c, n int) []string {
					return []string{"--engine=" + e, "--pipeline", d, "-k", "-c", itoa(c), "-n", itoa(n), "-q", u}
				}})
		}
	}
	if b := bins["wrk"]; b != "" {
		ts = append(ts, tool{key: "wrk", name: "wrk pipeline.lua " + d, bin: b, parse: parseWrk, timed: true,
			args: func(u string, c, n int) []string {
				return []string{"-t1", "-c", itoa(c), "-d", p.wrkSeconds(), "-s", p.lua, u, "--", d}
			}})
	}
	if b := bins["h2load"]; b != "" {
		ts = append(ts, tool{key: "h2load", name: "h2load -m " + d, bin: b, parse: parseH2load,
			args: func(u string, c, n int) []string {
				return []string{"--h1", "-m", d, "-c", itoa(c), "-n", itoa(n), u}
			}})
	}
	if b := bins["floor"]; b != "" {
		for _, e := range []string{"epoll", "uring"} {
			ts = append(ts, tool{key: "floor", name: "floor " + e + " -pipeline " + d, bin: b, parse: parseAB,
				args: func(u string, c, n int) []string {
					return []string{"-engine", e, "-pipeline", d, "-c", itoa(c), "-n", itoa(n), u}
				}})
		}
	}
	return ts
}

func itoa(i int) string { return strconv.Itoa(i) }

var (
	abRPS      = regexp.MustCompile(`(?m)^Requests per second:\s+([0-9.]+)`)
	abComplete = regexp.MustCompile(`(?m)^Complete requests:\s+(\d+)`)
	abFailed   = regexp.MustCompile(`(?m)^Failed requests:\s+(\d+)`)
	abNon2xx   = regexp.MustCompile(`(?m)^Non-2xx responses:\s+(\d+)`)

	wrkCount  = regexp.MustCompile(`(?m)^\s*(\d+) requests in [0-9.]+\w+,`)
	wrkRPS    = regexp.MustCompile(`(?m)^Requests/sec:\s+([0-9.]+)`)
	wrkNon2xx = regexp.MustCompile(`(?m)^\s*Non-2xx or 3xx responses:\s+(\d+)`)
	wrkSocket = regexp.MustCompile(`(?m)^\s*Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)`)

	h2RPS   = regexp.MustCompile(`(?m)^finished in [0-9.]+\w+, ([0-9.]+) req/s`)
	h2Count = regexp.MustCompile(`(?m)^requests: \d+ total, \d+ started, (\d+) done, \d+ succeeded, (\d+) failed,`)

	heyRPS    = regexp.MustCompile(`(?m)^\s*Requests/sec:\s+([0-9.]+)`)
	heyStatus = regexp.MustCompile(`(?m)^\s*\[(\d+)\]\s+(\d+) responses`)
	heyErrors = regexp.MustCompile(`(?m)^\s*\[(\d+)\]\t`)
)

// parseAB reads ab's report, and gb's, which has ab's layout.
func parseAB(out string) (report, error) {
	var r report
	var err error
	if r.rps, err = float(abRPS, out); err != nil {
		return r, err
	}
	if r.requests, err = count(abComplete, out); err != nil {
		return r, err
	}
	failed, err := count(abFailed, out)
	if err != nil {
		return r, err
	}
	non2xx, _ := count(abNon2xx, out) // printed only when there are some
	r.failed = failed + non2xx
	return r, nil
}

func parseWrk(out string) (report, error) {
	var r report
	var err error
	if r.rps, err = float(wrkRPS, out); err != nil {
		return r, err
	}
	if r.requests, err = count(wrkCount, out); err != nil {
		return r, err
	}
	non2xx, _ := count(wrkNon2xx, out)
	r.failed = non2xx
	if m := wrkSocket.FindStringSubmatch(out); m != nil {
		for _, s := range m[1:] {
			v, _ := strconv.ParseInt(s, 10, 64)
			r.failed += v
		}
	}
	return r, nil
}

func parseH2load(out string) (report, error) {
	var r report
	var err error
	if r.rps, err = float(h2RPS, out); err != nil {
		return r, err
	}
	m := h2Count.FindStringSubmatch(out)
	if m == nil {
		return r, fmt.Errorf("no %q line", "requests:")
	}
	r.requests, _ = strconv.ParseInt(m[1], 10, 64)
	r.failed, _ = strconv.ParseInt(m[2], 10, 64) // errored and timeout are part of failed
	return r, nil
}

func parseHey(out string) (report, error) {
	var r report
	var err error
	if r.rps, err = float(heyRPS, out); err != nil {
		return r, err
	}
	for _, m := range heyStatus.FindAllStringSubmatch(out, -1) {
		v, _ := strconv.ParseInt(m[2], 10, 64)
		r.requests += v
		if !strings.HasPrefix(m[1], "2") {
			r.failed += v
		}
	}
	if i := strings.Index(out, "Error distribution:"); i >= 0 {
		for _, m := range heyErrors.FindAllStringSubmatch(out[i:], -1) {
			v, _ := strconv.ParseInt(m[1], 10, 64)
			r.failed += v
		}
	}
	if r.requests == 0 {
		return r, fmt.Errorf("no responses in hey's status code distribution")
	}
	return r, nil
}

func float(re *regexp.Regexp, out string) (float64, error) {
	m := re.FindStringSubmatch(out)
	if m == nil {
		return 0, fmt.Errorf("no match for %s", re)
	}
	return strconv.ParseFloat(m[1], 64)
}

func count(re *regexp.Regexp, out string) (int64, error) {
	m := re.FindStringSubmatch(out)
	if m == nil {
		return 0, fmt.Errorf("no match for %s", re)
	}
	return strconv.ParseInt(m[1], 10, 64)
}
