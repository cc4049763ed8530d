package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/gb-bench/gb/internal/getopt"
	"github.com/gb-bench/gb/internal/testserver"
)

// demoArgs is the benchmark gb demo runs: keep-alive, 50 connections,
// bounded by 100000 requests and 3 seconds, whichever comes first, with
// the server's CPU and allocation profile (gb serve mounts pprof).
var demoArgs = [][]string{{"-k"}, {"-c", "50"}, {"-n", "100000"}, {"-t", "3"}, {"--profile"}}

const demoUsage = `Usage: gb demo [ab options]
  Starts gb serve on a free loopback port and runs
    gb -k -c 50 -n 100000 -t 3 --profile URL/10k.dat
  against it; options given here replace the demo's (gb demo -c 8).
  The server's profiles go to a new folder in the system's temporary
  directory (not the working directory), named on the demo's second
  line; --profile-dir chooses another.
`

// demo starts the built-in server on a free loopback port and benchmarks
// it. Extra arguments are ab options added to the demo's.
func demo(args []string, stdout, stderr io.Writer, sig <-chan os.Signal) int {
	base, stop, err := startDemoServer()
	if err != nil {
		return fail(stderr, fmt.Errorf("demo: %v", err))
	}
	defer stop()
	atExit = append(atExit, stop)
	argv := demoCommand(args)
	fmt.Fprintf(stdout, "gb demo: gb's built-in server is at %s\n", base)
	if !givenOptions(args)["--profile-dir"] {
		dir, err := os.MkdirTemp("", "gb-demo-profiles-")
		if err != nil {
			return fail(stderr, fmt.Errorf("demo: %v", err))
		}
		defer os.Remove(dir) // only when empty: no profile was saved
		argv = append(argv, "--profile-dir", dir)
		fmt.Fprintf(stdout, "gb demo: the server's profiles go to %s (a temporary folder)\n", dir)
	}
	argv = append(argv, base+"/10k.dat")
	fmt.Fprintf(stdout, "gb demo: running gb %s\n\n", strings.Join(argv, " "))
	return bench(argv, stdout, stderr, sig)
}

// demoCommand is the demo's options, less those the user gives, then the
// user's: the command line that really runs (gb demo -c 8 runs -c 8 alone).
func demoCommand(args []string) []string {
	given := givenOptions(args)
	var argv []string
	for _, a := range demoArgs {
		s := getopt.FindLong(abSpecs, strings.TrimPrefix(a[0], "--"))
		if len(a[0]) == 2 {
			s = getopt.FindShort(abSpecs, a[0][1])
		}
		if !given[s.Name()] {
			argv = append(argv, a...)
		}
	}
	return append(argv, args...)
}

// givenOptions is the set of the options in args, by their getopt names
// ("-c", "--profile-dir"). Errors in args are left to bench.
func givenOptions(args []string) map[string]bool {
	given := map[string]bool{}
	specs := make([]flagSpec, len(abSpecs))
	for i := range abSpecs {
		specs[i] = abSpecs[i]
		name := abSpecs[i].Name()
		specs[i].Set = func(*options, string) error { given[name] = true; return nil }
	}
	var o options
	_, _ = getopt.Parse(args, specs, &o)
	return given
}

// startDemoServer runs `gb serve --addr 127.0.0.1:0` in a child process,
// so that the server's profile holds the server alone and gb's -G does
// not limit it, and returns its URL and how to stop it. When the child
// cannot start (no executable to run), the server runs in this process.
func startDemoServer() (string, func(), error) {
	if exe, err := os.Executable(); err == nil {
		cmd := exec.Command(exe, "serve", "--addr", "127.0.0.1:0")
		dieWithParent(cmd)
		out, err := cmd.StdoutPipe()
		if err == nil && cmd.Start() == nil {
			stop := func() {
				_ = cmd.Process.Signal(os.Interrupt)
				t := time.AfterFunc(5*time.Second, func() { _ = cmd.Process.Kill() })
				_ = cmd.Wait()
				t.Stop()
			}
			if base := servedURL(out, 10*time.Second); base != "" {
				return base, stop, nil
			}
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	}
	srv, err := testserver.Start(testserver.Options{})
	if err != nil {
		return "", nil, err
	}
	return srv.URL(), func() { _ = srv.Close() }, nil
}

// servedURL reads gb serve's "  http:   URL" line, waiting at most d.
func servedURL(out io.Reader, d time.Duration) string {
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if rest, ok := strings.CutPrefix(sc.Text(), "  http:"); ok {
				found <- strings.TrimSpace(rest)
				break
			}
		}
		close(found)
		_, _ = io.Copy(io.Discard, out) // never let the child block on a full pipe
	}()
	select {
	case u := <-found:
		return u
	case <-time.After(d):
		return ""
	}
}
