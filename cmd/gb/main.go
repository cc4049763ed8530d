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
// interrupted run; 22 a usage error (as ab); 99 a threshold, SLO or
// regression gate failed (as k6). README.md is the manual.
package main

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/gb-bench/gb"
	"github.com/gb-bench/gb/internal/getopt"
)

// Exit codes.
const (
	exitOK         = 0
	exitFailure    = 1
	exitUsage      = 22 // EINVAL, as ab
	exitThresholds = 99 // a --threshold failed, as k6
)

func main() {
	sig := make(chan os.Signal, 2)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr, sig))
}

// command is a subcommand: how it runs and how it prints its usage.
type command struct {
	run   func(args []string, stdout, stderr io.Writer, sig <-chan os.Signal) int
	usage func(w io.Writer)
}

// commands are gb's subcommands by name; any other first argument is a
// URL for the ab-compatible benchmark.
var commands = map[string]command{
	"serve": {serve, func(w io.Writer) { fmt.Fprint(w, serveUsage) }},
	"ramp":  {rampCmd, func(w io.Writer) { printRampUsage(w, rampSpecs(&rampOptions{})) }},
	"demo":  {demo, func(w io.Writer) { fmt.Fprint(w, demoUsage) }},
	"compare": {func(args []string, stdout, stderr io.Writer, _ <-chan os.Signal) int {
		return compareCmd(args, stdout, stderr)
	},
		func(w io.Writer) { fmt.Fprint(w, compareUsage) }},
	"report":   {reportCmd, func(w io.Writer) { fmt.Fprint(w, reportUsage) }},
	"merge":    {mergeCmd, func(w io.Writer) { fmt.Fprint(w, mergeUsage) }},
	"capacity": {capacityCmd, func(w io.Writer) { fmt.Fprint(w, capacityUsage) }},
	"k8s":      {k8sCmd, func(w io.Writer) { fmt.Fprint(w, k8sUsage) }},
	"version": {func(_ []string, stdout, _ io.Writer, _ <-chan os.Signal) int {
		fmt.Fprintf(stdout, "gb %s\n", gb.Version)
		return exitOK
	}, nil},
}

// run dispatches argv to a subcommand or to the ab-compatible benchmark
// and returns the exit code. sig delivers SIGINT/SIGTERM: the first stops
// the run (the report is still printed), the second exits at once.
// --help and gb help print usage on stdout and exit 0 (-h stays ab's:
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
	case ok && len(rest) > 0 && rest[0] == "--help" && c.usage != nil:
		c.usage(stdout)
		return exitOK
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
	return fail(stderr, getopt.Errorf(false, "gb help: no command %q (commands: capacity, compare, demo, k8s, merge, ramp, report, serve, version)", args[0]))
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
		if d := editDistance(a, name); d < dist || (d == dist && name < best) {
			best, dist = name, d
		}
	}
	if dist <= 2 && len(a) > 2 {
		return best, true
	}
	return "", false
}

// editDistance is the Levenshtein distance of a and b (bytes).
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}
