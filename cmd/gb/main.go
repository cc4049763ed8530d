// Command gb is an HTTP benchmark tool with Apache Bench's command line and
// report, a shell over package gb (github.com/gb-bench/gb).
//
//	gb [options] [http[s]://]hostname[:port]/path   benchmark, as ab
//	gb ramp [step options] [options] URL             step the load up, find the saturation point
//	gb capacity --slo EXPR [options] URL             the highest rate within an SLO
//	gb report [options] FILE.json                    render a saved result again
//	gb compare OLD.json NEW.json ...                 did the change help? (significance, profile diff)
//	gb merge SHARD.json ...                          merge the shards of one load
//	gb k8s job --parallelism N [options] URL         an Indexed Job running the shards
//	gb demo                                          benchmark gb's built-in server
//	gb serve [--addr 127.0.0.1:8080] [--tls]         run the built-in server
//	gb help [command], gb version
//
// Exit codes: 0 the run completed and got responses (failed requests
// included, as ab); 1 a runtime failure, no response at all, or an
// interrupted run, or a standard output closed before all of the report
// was written (the files are written all the same); 22 a usage error (as
// ab); 99 a threshold, SLO or regression gate failed (as k6). README.md and
// docs/ are the manual (docs/options.md: every option).
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/signal"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"

	"github.com/gb-bench/gb"
	"github.com/gb-bench/gb/internal/getopt"
	"github.com/gb-bench/gb/internal/outfile"
	"golang.org/x/term"
)

// Exit codes.
const (
	exitOK         = 0
	exitFailure    = 1
	exitUsage      = 22 // EINVAL, as ab
	exitThresholds = 99 // a --threshold failed, as k6
)

func main() {
	profileOwnHeap(os.Args[1:])
	stdout := &stdoutWriter{f: os.Stdout}
	code := run(os.Args[1:], stdout, os.Stderr, stopSignals())
	os.Exit(stdout.exitCode(code, os.Stderr))
}

// profileOwnHeap keeps the runtime's heap profiling on only for the
// commands that run gb's test server in this process (serve, demo), whose
// /debug/pprof/heap and allocs profiles a run reads. Every other command
// turns it off as it starts: gb never reads its own heap profile, and each
// sampled allocation would walk its stack and keep it in the profiler's
// buckets, resident memory for nothing (a 1.4 MB hash table among them).
func profileOwnHeap(args []string) {
	if len(args) > 0 && (args[0] == "serve" || args[0] == "demo") {
		return
	}
	runtime.MemProfileRate = 0
}

// stopSignals returns the channel of the signals that stop gb: SIGINT,
// SIGTERM and SIGHUP (a closed terminal: the live panel is taken down and
// the report printed and written, as for SIGTERM); under nohup (SIGHUP
// ignored at start) it stays ignored. SIGINT is caught even when a shell
// started gb in the background with it ignored, as before: kill -INT
// stops such a run. SIGPIPE is ignored: a reader that goes away (gb ... |
// head -1) makes writes to stdout fail with EPIPE instead of killing gb
// before it writes its files.
func stopSignals() <-chan os.Signal {
	signal.Ignore(syscall.SIGPIPE)
	sig := make(chan os.Signal, 2)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	if !signal.Ignored(syscall.SIGHUP) {
		signal.Notify(sig, syscall.SIGHUP)
	}
	return sig
}

// stdoutWriter is gb's standard output. Once a write fails because its
// reader has gone (EPIPE), it is closed: later writes fail at once, and
// exitCode turns a successful run's 0 into 1. Fd keeps terminal
// detection working through it.
type stdoutWriter struct {
	f      *os.File
	closed atomic.Bool
}

func (w *stdoutWriter) Write(p []byte) (int, error) {
	if w.closed.Load() {
		return 0, syscall.EPIPE
	}
	n, err := w.f.Write(p)
	if errors.Is(err, syscall.EPIPE) {
		w.closed.Store(true)
	}
	return n, err
}

// Fd is the descriptor of the file under w.
func (w *stdoutWriter) Fd() uintptr { return w.f.Fd() }

// isTerminal reports whether w is a terminal (an *os.File or gb's
// stdoutWriter over one).
func isTerminal(w io.Writer) bool {
	f, ok := w.(interface{ Fd() uintptr })
	return ok && term.IsTerminal(int(f.Fd()))
}

// exitCode is gb's exit code given the command's: 1 instead of 0 when
// stdout closed before all was written (the run's files were written; a
// shell's pipefail sees that the report was cut). Other codes stand.
func (w *stdoutWriter) exitCode(code int, stderr io.Writer) int {
	if !w.closed.Load() {
		return code
	}
	fmt.Fprintln(stderr, "gb: stdout was closed before all of the output was written (any output files were written)")
	if code == exitOK {
		return exitFailure
	}
	return code
}

// command is a subcommand: how it runs and how it prints its usage.
// quick is set for commands that only read and write files (report,
// compare, merge, k8s): they have nothing to report when interrupted, so
// the first signal ends them at once, exit 1, even while they wait on a
// named pipe or read a huge file. The others take sig and stop their load
// on it (runSignalled).
type command struct {
	run   func(args []string, stdout, stderr io.Writer, sig <-chan os.Signal) int
	usage func(w io.Writer)
	quick bool
}

// commands are gb's subcommands by name; any other first argument is a
// URL for the ab-compatible benchmark.
var commands = map[string]command{
	"serve": {serve, func(w io.Writer) { fmt.Fprint(w, serveUsage) }, false},
	"ramp":  {rampCmd, func(w io.Writer) { printRampUsage(w, rampSpecs(&rampOptions{})) }, false},
	"demo":  {demo, func(w io.Writer) { fmt.Fprint(w, demoUsage) }, false},
	"compare": {func(args []string, stdout, stderr io.Writer, _ <-chan os.Signal) int {
		return compareCmd(args, stdout, stderr)
	},
		func(w io.Writer) { fmt.Fprint(w, compareUsage) }, true},
	"report":   {reportCmd, func(w io.Writer) { fmt.Fprint(w, reportUsage) }, true},
	"merge":    {mergeCmd, func(w io.Writer) { fmt.Fprint(w, mergeUsage) }, true},
	"capacity": {capacityCmd, func(w io.Writer) { fmt.Fprint(w, capacityUsage) }, false},
	"k8s":      {k8sCmd, func(w io.Writer) { fmt.Fprint(w, k8sUsage) }, true},
	"version": {func(_ []string, stdout, _ io.Writer, _ <-chan os.Signal) int {
		fmt.Fprintf(stdout, "gb %s\n", gb.Version)
		return exitOK
	}, func(w io.Writer) { fmt.Fprint(w, versionUsage) }, true},
}

const versionUsage = `Usage: gb version
  Prints gb's version on stdout ("gb X.Y.Z"). gb -V prints ab's version
  banner instead.
`

// run dispatches argv to a subcommand or to the ab-compatible benchmark
// and returns the exit code. sig delivers SIGINT/SIGTERM/SIGHUP: the
// first stops the run (the report is still printed), the second exits at
// once; a quick command exits at the first. --help (anywhere before
// "--") and gb help print usage on stdout and exit 0 (-h stays ab's:
// stderr, exit 22).
func run(args []string, stdout, stderr io.Writer, sig <-chan os.Signal) int {
	if len(args) == 0 {
		return bench(args, stdout, stderr, sig)
	}
	name, rest := args[0], args[1:]
	switch c, ok := commands[name]; {
	case name == "--help":
		printUsage(stdout)
		return exitOK
	case name == "help":
		return help(rest, stdout, stderr)
	case ok && wantsHelp(rest) && c.usage != nil:
		c.usage(stdout)
		return exitOK
	case ok && c.quick:
		defer exitOnSignal("gb "+name, sig, stderr, 1)()
		return c.run(rest, stdout, stderr, sig)
	case ok:
		return c.run(rest, stdout, stderr, sig)
	}
	if guess, ok := commandLike(name); ok {
		msg := fmt.Sprintf("unknown command %q", name)
		if guess != "" {
			msg += fmt.Sprintf("; did you mean %s?", guess)
		}
		return fail(stderr, getopt.Errorf(false, "%s (gb help lists the commands)", msg))
	}
	return bench(args, stdout, stderr, sig)
}

// wantsHelp reports whether a command's arguments ask for its usage:
// --help anywhere before "--" (gb k8s job --help, gb merge a.json --help).
func wantsHelp(args []string) bool {
	for _, a := range args {
		switch a {
		case "--":
			return false
		case "--help":
			return true
		}
	}
	return false
}

// exitOnSignal exits gb at the nth signal from sig (1: a quick command,
// which has nothing to report; 2: while a run's report and files are
// written, which the first signal must not cut short): one line on
// stderr, the temporary files of unfinished writes removed, exit 1. The
// function it returns stops the watch (call it when the command returns).
func exitOnSignal(name string, sig <-chan os.Signal, stderr io.Writer, nth int) (stop func()) {
	done := make(chan struct{})
	go func() {
		for range nth {
			select {
			case <-sig:
			case <-done:
				return
			}
		}
		fmt.Fprintf(stderr, "%s: interrupted\n", name)
		exitNow()
	}()
	return func() { close(done) }
}

// atExit holds what must happen even when a second signal makes gb exit
// at once (gb demo stops its server child).
var atExit []func()

// runSignalled runs f with a context that the first signal cancels (the
// load stops and its result is still reported); a second signal exits at
// once.
func runSignalled(sig <-chan os.Signal, f func(context.Context) (*gb.Result, error)) (*gb.Result, error) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan struct{})
	defer close(done)
	go func() {
		select {
		case <-sig:
			cancel()
			select {
			case <-sig:
				exitNow()
			case <-done:
			}
		case <-done:
		}
	}()
	return f(ctx)
}

// exitNow exits 1 at once, after atExit and with no temporary output file
// left behind.
func exitNow() {
	for _, f := range atExit {
		f()
	}
	outfile.RemoveUnfinished()
	os.Exit(exitFailure)
}

// help is gb help [command]: the usage of gb or of one command, on stdout.
func help(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		printUsage(stdout)
		return exitOK
	}
	if c, ok := commands[args[0]]; ok && c.usage != nil {
		c.usage(stdout)
		return exitOK
	}
	fmt.Fprintf(stderr, "gb help: no command %q (commands: %s)\n", args[0], strings.Join(slices.Sorted(maps.Keys(commands)), ", "))
	return exitUsage
}

// commandLike reports whether a first argument is meant as a command, not
// a host: a bare lowercase word close to a command's name (a typo), or a
// command gb does not have; it returns the command it is closest to.
func commandLike(a string) (string, bool) {
	for _, r := range a {
		if r < 'a' || r > 'z' {
			return "", false
		}
	}
	switch a {
	case "bench", "run", "live", "h2":
		return "", true
	}
	best, dist := "", 3
	for name := range commands {
		if d := getopt.EditDistance(a, name); d < dist || (d == dist && name < best) {
			best, dist = name, d
		}
	}
	if dist <= 2 && len(a) > 2 {
		return best, true
	}
	return "", false
}
