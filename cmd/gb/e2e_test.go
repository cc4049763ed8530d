package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gb-bench/gb/stats"
)

// TestMain removes the gb binary that gbBin built, if a test asked for
// one. It does no setup of its own: a fuzz worker (which runs TestMain
// too, once per worker process and again after each restart) or a -run
// that picks only in-process tests pays for no build.
func TestMain(m *testing.M) {
	flag.Parse()
	code := m.Run()
	if gbBuild.dir != "" {
		os.RemoveAll(gbBuild.dir)
	}
	os.Exit(code)
}

// gbBuild is the gb binary built at the first gbBin call, for the tests
// that need a process of its own: signals, the process's exit code, file
// and memory limits, and profiles that must hold the server alone.
var gbBuild struct {
	once sync.Once
	dir  string // the temporary directory holding it; "" until built
	path string // "" when the build failed
	err  string // the build's error and output
}

// gbBin returns the path of the gb binary, building it on first use; a
// failed build fails tb (and every later caller).
func gbBin(tb testing.TB) string {
	tb.Helper()
	gbBuild.once.Do(func() {
		dir, err := os.MkdirTemp("", "gb-e2e-")
		if err != nil {
			gbBuild.err = err.Error()
			return
		}
		gbBuild.dir = dir
		path := filepath.Join(dir, "gb")
		if out, err := exec.Command("go", "build", "-o", path, ".").CombinedOutput(); err != nil {
			gbBuild.err = fmt.Sprintf("building gb: %v\n%s", err, out)
			return
		}
		gbBuild.path = path
	})
	if gbBuild.path == "" {
		tb.Fatal(gbBuild.err)
	}
	return gbBuild.path
}

// TestFuzzingBuildsNothing: a fuzz run of FuzzParseArgs (whose TestMain
// runs in the coordinator and again in every worker process) builds no
// gb binary: the test binary fuzzes it with a "go" on PATH that only
// records that it ran.
func TestFuzzingBuildsNothing(t *testing.T) {
	dir := t.TempDir()
	ran := filepath.Join(dir, "go-ran")
	fake := "#!/bin/sh\necho \"$@\" >> " + ran + "\nexit 1\n"
	if err := os.WriteFile(filepath.Join(dir, "go"), []byte(fake), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$", "-test.fuzz=^FuzzParseArgs$", "-test.fuzztime=50x",
		"-test.fuzzcachedir="+filepath.Join(dir, "cache"), "-test.parallel=2")
	cmd.Env = append(os.Environ(), "PATH="+dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	out, err := cmd.CombinedOutput()
	if b, _ := os.ReadFile(ran); len(b) > 0 {
		t.Errorf("fuzzing ran go %s", b)
	}
	if err != nil {
		t.Errorf("fuzzing FuzzParseArgs: %v\n%s", err, out)
	}
}

// result is one run of gb: in this process (gb) or of the binary
// (gbProcess).
type result struct {
	stdout, stderr string
	code           int
}

// runLimit bounds one run of gb; then it is interrupted (in this process)
// or killed (the binary), and the test fails.
const runLimit = 90 * time.Second

// gb calls run(args, ...) in this process, as main does, so that go test
// -race watches the whole run: parsing, the engine, the report. A run
// still going after runLimit gets an interrupt, as from SIGINT, and fails
// the test. run sets GOMAXPROCS for its engine; gb restores it afterwards,
// so the test server in this process keeps its cores.
func runGB(t *testing.T, args ...string) result {
	t.Helper()
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	var out, errb lockedBuffer
	sig := make(chan os.Signal, 1)
	done := make(chan int, 1)
	go func() { done <- run(args, &out, &errb, sig) }()
	select {
	case code := <-done:
		return result{out.String(), errb.String(), code}
	case <-time.After(runLimit):
	}
	sig <- os.Interrupt
	select {
	case <-done:
		t.Fatalf("gb %q did not finish in %v (interrupted)", args, runLimit)
	case <-time.After(30 * time.Second):
		t.Fatalf("gb %q did not finish in %v, nor after an interrupt", args, runLimit)
	}
	return result{}
}

// lockedBuffer is a bytes.Buffer safe for concurrent writes, as a
// process's stdout or stderr is: gb ramp's heldWriter.
type lockedBuffer = heldWriter

// gbProcess runs the gb binary with args and a time limit.
func gbProcess(t *testing.T, args ...string) result {
	t.Helper()
	skipUnderRace(t)
	cmd := exec.Command(gbBin(t), args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	done := make(chan error, 1)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(runLimit):
		_ = cmd.Process.Kill()
		<-done
		t.Fatalf("gb %v did not finish in %v", args, runLimit)
	}
	return result{out.String(), errb.String(), cmd.ProcessState.ExitCode()}
}

// skipUnderRace skips a test of the gb binary under -race: the detector
// watches only this process, and the run without -race covers the test.
func skipUnderRace(t *testing.T) {
	t.Helper()
	if raceEnabled {
		t.Skip("runs the gb binary, which the race detector does not watch")
	}
}

// field returns the value after an ab report label, e.g. "Complete requests".
func field(t *testing.T, report, label string) string {
	t.Helper()
	m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(label) + `:\s+(.*)$`).FindStringSubmatch(report)
	if m == nil {
		t.Fatalf("no %q line in report:\n%s", label, report)
	}
	return strings.TrimSpace(m[1])
}

// number returns the leading integer of a report field ("1234 bytes").
func number(t *testing.T, report, label string) int64 {
	t.Helper()
	v := strings.Fields(field(t, report, label))[0]
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		t.Fatalf("%s: %q is not a number", label, v)
	}
	return n
}

// labels returns the report's label lines (the text before ':' on lines
// that have one), from "Server Software" to the end of ab's percentile
// table, leaving out the confidence WARNING/ERROR lines, which depend on
// each run's timings.
func labels(report string) []string {
	var out []string
	in := false
	for _, line := range strings.Split(report, "\n") {
		if confidenceLine.MatchString(line) {
			continue
		}
		if strings.HasPrefix(line, "Server Software:") {
			in = true
		}
		if !in {
			continue
		}
		if strings.HasPrefix(line, "gb:") {
			break
		}
		if i := strings.Index(line, ":"); i > 0 {
			out = append(out, line[:i])
		} else if strings.TrimSpace(line) != "" {
			out = append(out, strings.Fields(line)[0])
		}
	}
	return out
}

var confidenceLine = regexp.MustCompile(`^(WARNING|ERROR): The median|^\s+deviation apart|^\s+These results are`)

func readResult(t *testing.T, path string) *stats.Result {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var r stats.Result
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return &r
}
