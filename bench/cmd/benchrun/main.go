// Command benchrun reproduces bench/RESULTS.md: it builds gb, the floor
// client and the hello server, starts nginx with its own configuration on a
// free loopback port, runs gb, wrk, ab, h2load, hey and floor interleaved
// (A B C A B C ...) against nginx's 10 KiB and 6-byte files and the Go
// hello server at each concurrency, and prints a markdown table of medians
// with each tool's ratio to wrk: requests/s, client CPU seconds per 100 000
// requests, peak RSS and the server's CPU share.
//
//	go run ./bench/cmd/benchrun                   # the full run (about 15 minutes on 2 cores)
//	go run ./bench/cmd/benchrun -reps 1 -n 50000  # a quick look
//	go run ./bench/cmd/benchrun -tables keepalive,close,memory,h2  # issue 20's and 18's tables too
//
// -tables picks the tables: keepalive and pipelined (the default), close
// (a new connection per request: ab, gb and h2load without keep-alive, and
// floor -reconnect, against nginx's 6-byte file), memory (peak RSS and RSS
// per connection while c connections are held for -mem-d, against the
// same file) and h2 (gb --http2 and h2load over TLS against nginx with h2
// and gb serve --tls).
//
// Client CPU and peak RSS come from each tool's rusage (wait4), requests/s
// from each tool's own report, the server's CPU from /proc/PID/task/*/schedstat
// of nginx's worker or the hello server. Load goes to 127.0.0.1 only.
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/gb-bench/gb/internal/testsupport"
)

type options struct {
	reps    int
	n       int // requests per counted run, keep-alive
	pn      int // requests per counted run, pipelined
	conc    []int
	targets map[string]bool
	tools   map[string]bool
	gbCPUs  []int
	engines []string // extra gb rows with --engine=E
	depth   int      // 0: no pipelined table
	wrkDur  time.Duration
	pause   time.Duration
	timeout time.Duration
	out     string
	csv     string
	hey     string
	keep    bool
	base    string // git ref of a second gb, run as its own row (-baseline)

	tables         map[string]bool
	closeC, closeN int           // the close table's connections and requests
	memC           []int         // the memory table's connection counts (c=1 is added)
	memD           time.Duration // how long the memory table holds its connections
	h2C, h2M, h2N  int           // the h2 table's connections, streams and requests
	scriptC        int           // the script table's connections
	scriptMemC     int           // the script-memory table's connections
	gb             string        // a gb binary to run instead of building ./cmd/gb
}

func main() {
	os.Exit(run())
}

func run() int {
	var o options
	var conc, targets, tools, gbCPUs, engines, tables, memC string
	flag.IntVar(&o.reps, "reps", 5, "repetitions of each (target, concurrency) cell, tools interleaved")
	flag.IntVar(&o.n, "n", 100000, "requests per run (wrk runs for -d instead)")
	flag.IntVar(&o.pn, "pn", 0, "requests per pipelined run (default -n)")
	flag.StringVar(&conc, "c", "50,1000", "concurrencies (connections)")
	flag.StringVar(&targets, "targets", "nginx-10k,nginx-6b,hello", "targets")
	flag.StringVar(&tools, "tools", "gb,wrk,ab,h2load,hey,floor", "tools (floor: bench/cmd/floor, the cheapest possible client, over epoll and io_uring, and over epoll timing, parsing and recording every response with gb's code: -measure)")
	flag.StringVar(&engines, "engines", "goroutine", "extra gb rows with --engine=E (comma-separated; empty: none)")
	flag.StringVar(&gbCPUs, "G", "1,2", "extra gb rows with -G N (a value equal to gb's loopback default, half the cores, is the default row)")
	flag.IntVar(&o.depth, "pipeline", 16, "pipelining depth of the pipelined table (0: no pipelined table)")
	flag.DurationVar(&o.wrkDur, "d", 0, "wrk's duration (default: -n / 100k per second, at least 1s)")
	flag.DurationVar(&o.pause, "pause", 200*time.Millisecond, "pause between runs")
	flag.DurationVar(&o.timeout, "timeout", 2*time.Minute, "longest run before it is killed")
	flag.StringVar(&o.out, "o", "", "also write the markdown report to this file")
	flag.StringVar(&o.csv, "csv", "", "write every run as a CSV row to this file")
	flag.StringVar(&o.hey, "hey", "", "hey binary (default: go install github.com/rakyll/hey@latest into the temporary directory)")
	flag.StringVar(&o.base, "baseline", "", "also build gb from this git ref (a commit, HEAD~3) and run it as its own row,\ninterleaved with the others: a before/after comparison under the same machine load")
	flag.BoolVar(&o.keep, "keep", false, "keep the temporary directory (configs, binaries, every tool's output)")
	flag.StringVar(&tables, "tables", "keepalive,pipelined", "tables to run: keepalive, pipelined, close, memory, h2, script (gb --script and wrk -s with bench/scripts: CPU per request, and peak RSS with and without a script)")
	flag.IntVar(&o.closeC, "close-c", 20, "close table: connections")
	flag.IntVar(&o.closeN, "close-n", 20000, "close table: requests per run")
	flag.StringVar(&memC, "mem-c", "1000,5000", "memory table: connections (a c=1 row is added; 19900 needs an open-files limit of 20000)")
	flag.DurationVar(&o.memD, "mem-d", 5*time.Second, "memory table: how long each run holds its connections (whole seconds)")
	flag.IntVar(&o.h2C, "h2-c", 10, "h2 table: connections")
	flag.IntVar(&o.h2M, "h2-m", 10, "h2 table: concurrent streams per connection")
	flag.IntVar(&o.h2N, "h2-n", 0, "h2 table: requests per run (default -n)")
	flag.IntVar(&o.scriptC, "script-c", 50, "script table: connections")
	flag.IntVar(&o.scriptMemC, "script-mem-c", 1000, "script-memory table: connections")
	flag.StringVar(&o.gb, "gb", "", "run this gb binary instead of building ./cmd/gb (e.g. one built from another branch)")
	flag.Parse()
	if flag.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "benchrun: unexpected argument %q\n", flag.Arg(0))
		return 2
	}
	var err error
	if o.conc, err = ints(conc); err != nil || len(o.conc) == 0 {
		fmt.Fprintf(os.Stderr, "benchrun: -c %q: want numbers like 50,1000\n", conc)
		return 2
	}
	if engines != "" {
		o.engines = strings.Split(engines, ",")
	}
	if o.gbCPUs, err = ints(gbCPUs); err != nil {
		fmt.Fprintf(os.Stderr, "benchrun: -G %q: want numbers like 1,2\n", gbCPUs)
		return 2
	}
	if err := parseTables(&o, tables, memC); err != nil {
		fmt.Fprintln(os.Stderr, "benchrun:", err)
		return 2
	}
	o.targets, o.tools = set(targets), set(tools)
	for name, known := range map[string]map[string]bool{
		"targets": o.targets, "tools": o.tools, "tables": o.tables,
	} {
		for k := range known {
			if !knownNames[name][k] {
				fmt.Fprintf(os.Stderr, "benchrun: -%s: unknown %q\n", name, k)
				return 2
			}
		}
	}
	if o.reps < 1 || o.n < 1 {
		fmt.Fprintln(os.Stderr, "benchrun: -reps and -n must be positive")
		return 2
	}
	if o.pn <= 0 {
		o.pn = o.n
	}
	if o.wrkDur <= 0 {
		o.wrkDur = max(time.Second, time.Duration(o.n)*time.Second/100000)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := bench(ctx, o); err != nil {
		fmt.Fprintln(os.Stderr, "benchrun:", err)
		return 1
	}
	return 0
}

func bench(ctx context.Context, o options) error {
	started := time.Now()
	root, err := moduleRoot()
	if err != nil {
		return err
	}
	var notes []string
	note := func(format string, a ...any) {
		s := fmt.Sprintf(format, a...)
		notes = append(notes, s)
		fmt.Fprintln(os.Stderr, "note:", s)
	}
	maxC := o.maxConns()
	fdLimit := uint64(1024)
	if soft, hard, err := raiseNoFile(); err != nil {
		note("could not raise the open-files limit: %v", err)
	} else if fdLimit = soft; soft < uint64(maxC)+64 {
		note("open-files limit %d (hard %d) is too low for c=%d: runs may fail", soft, hard, maxC)
	}

	dir, err := os.MkdirTemp("", "gb-bench-")
	if err != nil {
		return err
	}
	if o.keep {
		fmt.Fprintln(os.Stderr, "temporary directory:", dir)
	} else {
		defer os.RemoveAll(dir)
	}

	// Binaries: gb and hello are built from this checkout, hey is installed
	// from the Go module proxy, the others come from PATH.
	bins := map[string]string{}
	gbBin := filepath.Join(dir, "gb") // also gb serve, the h2 table's second server
	if o.gb != "" {
		gbBin = o.gb
	} else if o.tools["gb"] || o.tables["h2"] {
		fmt.Fprintln(os.Stderr, "building gb")
		if err := goCmd(root, nil, "build", "-o", gbBin, "./cmd/gb"); err != nil {
			return fmt.Errorf("building gb: %v", err)
		}
	}
	if o.tools["gb"] {
		bins["gb"] = gbBin
		gbCommit = commitOf(root)
		if o.gb != "" {
			gbCommit = "-gb " + o.gb
		}
		if o.base != "" {
			if bins["gb-base"], baseName, err = buildBaseline(root, dir, o.base); err != nil {
				return fmt.Errorf("building gb at %s: %v", o.base, err)
			}
		}
	}
	if o.tools["floor"] {
		bins["floor"] = filepath.Join(dir, "floor")
		if err := goCmd(root, nil, "build", "-o", bins["floor"], "./bench/cmd/floor"); err != nil {
			return fmt.Errorf("building floor: %v", err)
		}
	}
	for _, name := range []string{"wrk", "ab", "h2load"} {
		if !o.tools[name] {
			continue
		}
		if p, err := exec.LookPath(name); err == nil {
			bins[name] = p
		} else {
			note("%s is not installed (Debian: apt-get install -y %s): its rows are skipped", name, debPackage[name])
		}
	}
	if o.tools["hey"] && (o.tables["keepalive"] || o.tables["pipelined"]) { // hey has rows in these tables only
		if o.hey != "" {
			bins["hey"] = o.hey
		} else {
			fmt.Fprintln(os.Stderr, "installing hey")
			if err := goCmd(dir, []string{"GOBIN=" + dir}, "install", "github.com/rakyll/hey@latest"); err != nil {
				note("hey could not be installed (%v): its rows are skipped", err)
			} else {
				bins["hey"] = filepath.Join(dir, "hey")
			}
		}
	}
	gbPipelines := false
	if bins["gb"] != "" && o.depth > 0 && o.tables["pipelined"] {
		gbPipelines = accepts(bins["gb"], "http", "--pipeline", strconv.Itoa(o.depth), "-k")
		if !gbPipelines {
			note("gb does not accept --pipeline yet: its pipelined row is skipped")
		}
	}
	gbHTTP2 := false
	if bins["gb"] != "" && o.tables["h2"] {
		gbHTTP2 = accepts(bins["gb"], "https", "--http2", "--streams", "2", "--insecure")
		if !gbHTTP2 {
			note("gb rejects --http2 or --streams (exit 22, an unknown option: the h2 client is not merged yet): its h2 rows are skipped")
		}
	}

	// Servers.
	keepAlive := o.tables["keepalive"] || o.tables["pipelined"] && o.depth > 0
	var tgs []*target
	var ngx nginxRun
	needNginx := keepAlive && (o.targets["nginx-10k"] || o.targets["nginx-6b"]) || o.tables["close"] || o.tables["memory"] || o.tables["h2"] || o.tables["script"]
	if needNginx {
		bin := testsupport.NginxBinary()
		if bin == "" {
			note("nginx is not installed (Debian: apt-get install -y nginx): its targets are skipped")
		} else {
			var why string
			if ngx, why, err = startNginx(bin, filepath.Join(dir, "nginx"), maxC, o.tables["h2"]); err != nil {
				return err
			}
			defer ngx.stop()
			if why != "" {
				note("%s", why)
			}
			if keepAlive && o.targets["nginx-10k"] {
				tgs = append(tgs, ngx.target("nginx-10k", ngx.base))
			}
			if keepAlive && o.targets["nginx-6b"] {
				tgs = append(tgs, ngx.target("nginx-6b", ngx.base))
			}
		}
	}
	var h2tgs []*target
	if o.tables["h2"] {
		if ngx.tlsBase != "" {
			h2tgs = append(h2tgs, ngx.target("nginx-10k", ngx.tlsBase), ngx.target("nginx-6b", ngx.tlsBase))
		}
		srv, url, err := startServe(gbBin)
		if err != nil {
			return err
		}
		defer srv.stop()
		h2tgs = append(h2tgs, &target{key: "gb-serve", name: "gb serve 6 B (h2)", url: url + "/bytes/6", pid: srv.cmd.Process.Pid, body: 6})
	}
	if keepAlive && o.targets["hello"] {
		bin := filepath.Join(dir, "hello")
		if err := goCmd(root, nil, "build", "-o", bin, "./bench/hello"); err != nil {
			return fmt.Errorf("building bench/hello: %v", err)
		}
		srv, url, err := startHello(bin)
		if err != nil {
			return err
		}
		defer srv.stop()
		tgs = append(tgs, &target{key: "hello", name: "Go hello", url: url + "/", pid: srv.cmd.Process.Pid, body: 13})
	}
	var small []*target // nginx's 6-byte file: the close and memory tables
	if ngx.worker != 0 {
		small = []*target{ngx.target("nginx-6b", ngx.base)}
	}
	for _, t := range append(append(append([]*target(nil), tgs...), h2tgs...), small...) {
		if err := checkTarget(t); err != nil {
			return err
		}
	}

	p := plan{wrkDuration: o.wrkDur, depth: o.depth, lua: filepath.Join(root, "bench", "pipeline.lua"), memD: o.memD, h2M: o.h2M}
	var modes []mode
	if o.tables["keepalive"] {
		modes = append(modes, mode{name: "keep-alive", tools: keepAliveTools(p, bins, extraCPUs(o.gbCPUs), o.engines), n: o.n, targets: tgs, conc: o.conc})
	}
	if o.tables["pipelined"] && o.depth > 0 {
		modes = append(modes, mode{name: "pipelined", tools: pipelinedTools(p, bins, gbPipelines, o.engines), n: o.pn, targets: tgs, conc: o.conc})
	}
	modes = append(modes, o.newModes(p, bins, gbHTTP2, small, h2tgs)...)
	modes = append(modes, o.scriptModes(p, bins, filepath.Join(root, "bench", "scripts"), small)...)
	total := 0
	for _, m := range modes {
		total += len(m.tools) * len(m.targets) * len(m.conc) * o.reps
	}
	if total == 0 {
		return fmt.Errorf("no runs: no tables, tools or targets left")
	}
	fmt.Fprintf(os.Stderr, "%d runs\n", total)

	var runs []result
	logs := filepath.Join(dir, "logs")
	_ = os.MkdirAll(logs, 0o755)
	i := 0
loop:
	for _, m := range modes {
		for _, t := range m.targets {
			for _, c := range m.conc {
				if uint64(c)+64 > fdLimit {
					note("%s c=%d: skipped, the open-files limit is %d", m.name, c, fdLimit)
					i += len(m.tools) * o.reps
					continue
				}
				for rep := 1; rep <= o.reps; rep++ {
					for _, tl := range m.tools {
						if ctx.Err() != nil {
							break loop
						}
						i++
						r := measure(ctx, o, tl, t, c, m.n)
						r.mode, r.rep = m.name, rep
						saveLog(logs, i, r)
						runs = append(runs, r)
						fmt.Fprintf(os.Stderr, "[%3d/%d] %s\n", i, total, r.line())
						if time.Sleep(o.pause); m.name == "memory" && c >= memBig {
							time.Sleep(memBigPause)
						}
					}
				}
			}
		}
	}

	env := describe(bins, testsupport.NginxBinary(), o)
	rep := render(env, o, modes, runs, notes, time.Since(started))
	fmt.Print(rep)
	if o.out != "" {
		if err := os.WriteFile(o.out, []byte(rep), 0o644); err != nil {
			return err
		}
	}
	if o.csv != "" {
		if err := writeCSV(o.csv, runs); err != nil {
			return err
		}
	}
	if ctx.Err() != nil {
		return fmt.Errorf("interrupted after %d of %d runs", len(runs), total)
	}
	return nil
}

// A mode is one table: keep-alive without pipelining, pipelined, close,
// memory or h2.
type mode struct {
	name    string
	tools   []tool
	n       int
	targets []*target
	conc    []int
	ref     string // the row ratios divide by; "": wrk's
}

// result is one run of one tool.
type result struct {
	mode, tool, target string
	c, rep             int
	report
	cpu       time.Duration // client user+sys
	maxRSS    int64         // KiB
	serverCPU float64       // server CPU time / wall time
	wall      time.Duration
	out       []byte
	err       error
}

func (r result) cpuPer100k() float64 {
	if r.requests == 0 {
		return 0
	}
	return r.cpu.Seconds() / float64(r.requests) * 1e5
}

func (r result) line() string {
	s := fmt.Sprintf("%s %s c=%d rep %d %s: ", r.mode, r.target, r.c, r.rep, r.tool)
	if r.err != nil {
		return s + "ERROR " + r.err.Error()
	}
	s += fmt.Sprintf("%.0f req/s, %.2f CPU-s/100k, %.1f MiB, server %.2f", r.rps, r.cpuPer100k(), float64(r.maxRSS)/1024, r.serverCPU)
	if r.failed > 0 {
		s += fmt.Sprintf(", %d failed", r.failed)
	}
	return s
}

// measure runs one tool once and reads its report, its rusage and the
// server's CPU time around it.
func measure(ctx context.Context, o options, tl tool, t *target, c, n int) result {
	r := result{tool: tl.name, target: t.name, c: c}
	rctx, cancel := context.WithTimeout(ctx, o.timeout)
	defer cancel()
	cmd := exec.CommandContext(rctx, tl.bin, tl.args(t.url, c, n)...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	s0, err0 := processCPU(t.pid)
	start := time.Now()
	err := cmd.Run()
	r.wall = time.Since(start)
	s1, err1 := processCPU(t.pid)
	r.out = out.Bytes()
	if cmd.ProcessState != nil {
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			r.cpu = time.Duration(syscall.TimevalToNsec(ru.Utime) + syscall.TimevalToNsec(ru.Stime))
			r.maxRSS = ru.Maxrss
		}
	}
	if err0 == nil && err1 == nil && r.wall > 0 {
		r.serverCPU = (s1 - s0).Seconds() / r.wall.Seconds()
	}
	if err != nil {
		r.err = fmt.Errorf("%v: %s", err, lastLine(out.String()))
		return r
	}
	rep, err := tl.parse(out.String())
	if err != nil {
		r.err = fmt.Errorf("reading the report: %v: %s", err, lastLine(out.String()))
		return r
	}
	r.report = rep
	return r
}

// saveLog keeps the tool's output in the temporary directory (see -keep).
func saveLog(dir string, i int, r result) {
	head := fmt.Sprintf("%s %s c=%d rep %d %s\n\n", r.mode, r.target, r.c, r.rep, r.tool)
	_ = os.WriteFile(filepath.Join(dir, fmt.Sprintf("%03d.txt", i)), append([]byte(head), r.out...), 0o644)
}

// accepts runs gb once with flags against nothing listening (a scheme://
// URL): gb exits 22 (usage) when it does not know a flag.
func accepts(gb, scheme string, flags ...string) bool {
	port, err := freePort()
	if err != nil {
		return false
	}
	args := append(flags, "-n", "1", "-q", scheme+"://127.0.0.1:"+strconv.Itoa(port)+"/")
	cmd := exec.Command(gb, args...)
	err = cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok && ee.ExitCode() == 22 {
		return false
	}
	return cmd.ProcessState != nil
}

// extraCPUs drops the -G values that equal gb's default for a loopback
// target (half the cores, at least one).
func extraCPUs(cpus []int) []int {
	var out []int
	for _, g := range cpus {
		if g != max(1, runtime.NumCPU()/2) {
			out = append(out, g)
		}
	}
	return out
}

// raiseNoFile raises the soft open-files limit to the hard limit, for the
// harness and the tools it starts (c=1000 needs more than 1024).
func raiseNoFile() (soft, hard uint64, err error) {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return 0, 0, err
	}
	if lim.Cur < lim.Max {
		lim.Cur = lim.Max
		if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
			return 0, 0, err
		}
	}
	return uint64(lim.Cur), uint64(lim.Max), nil // int64 on the BSDs
}

var knownNames = map[string]map[string]bool{
	"targets": set("nginx-10k,nginx-6b,hello"),
	"tools":   set("gb,wrk,ab,h2load,hey,floor"),
	"tables":  set("keepalive,pipelined,close,memory,h2,script"),
}

var debPackage = map[string]string{"wrk": "wrk", "ab": "apache2-utils", "h2load": "nghttp2-client"}

func moduleRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %v", err)
	}
	mod := strings.TrimSpace(string(out))
	if mod == "" || mod == os.DevNull {
		return "", fmt.Errorf("run benchrun inside gb's checkout")
	}
	return filepath.Dir(mod), nil
}

// gbCommit is the checkout gb was built from, for the report.
var gbCommit string

// baseName is the row name of the -baseline gb ("gb@abc1234"); "" without.
var baseName string

// buildBaseline builds ./cmd/gb as it was at ref (git archive into dir)
// and returns the binary and its row name.
func buildBaseline(root, dir, ref string) (bin, name string, err error) {
	out, err := exec.Command("git", "-C", root, "rev-parse", "--short", ref).Output()
	if err != nil {
		return "", "", fmt.Errorf("git rev-parse %s: %v", ref, err)
	}
	short := strings.TrimSpace(string(out))
	src, tarball := filepath.Join(dir, "baseline"), filepath.Join(dir, "baseline.tar")
	if err := os.MkdirAll(src, 0o755); err != nil {
		return "", "", err
	}
	if out, err := exec.Command("git", "-C", root, "archive", "--format=tar", "-o", tarball, short).CombinedOutput(); err != nil {
		return "", "", fmt.Errorf("git archive: %v: %s", err, out)
	}
	if out, err := exec.Command("tar", "-xf", tarball, "-C", src).CombinedOutput(); err != nil {
		return "", "", fmt.Errorf("tar: %v: %s", err, out)
	}
	bin = filepath.Join(dir, "gb-"+short)
	if err := goCmd(src, nil, "build", "-o", bin, "./cmd/gb"); err != nil {
		return "", "", err
	}
	return bin, "gb@" + short, nil
}

// commitOf describes the checkout: its commit, and "+changes" when tracked
// files differ from it (the tree may be shared with other work in progress).
func commitOf(root string) string {
	out, err := exec.Command("git", "-C", root, "rev-parse", "--short", "HEAD").Output()
	if err != nil {
		return "unknown commit"
	}
	c := strings.TrimSpace(string(out))
	if err := exec.Command("git", "-C", root, "diff", "--quiet", "HEAD", "--", "cmd", "internal").Run(); err != nil {
		c += " +uncommitted changes in cmd/ or internal/"
	}
	return c
}

func goCmd(dir string, env []string, args ...string) error {
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return nil
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	return strings.TrimSpace(s)
}

func ints(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		v, err := strconv.Atoi(f)
		if err != nil || v < 1 {
			return nil, fmt.Errorf("bad number %q", f)
		}
		out = append(out, v)
	}
	return out, nil
}

func set(s string) map[string]bool {
	m := map[string]bool{}
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			m[f] = true
		}
	}
	return m
}
