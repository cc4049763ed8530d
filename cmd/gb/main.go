// Command gb is an HTTP benchmark tool with Apache Bench's command line and
// report on a multi-core HTTP/1.1 engine that measures with HdrHistogram.
//
//	gb [options] [http[s]://]hostname[:port]/path   benchmark, as ab
//	gb ramp [step options] [options] URL             step the load up, find the saturation point
//	gb demo                                          benchmark gb's built-in server
//	gb serve [--addr 127.0.0.1:8080] [--tls]         run the built-in server
//	gb version                                       print the version
//
// Exit codes: 0 the run completed (failed requests included, as ab);
// 1 a runtime failure or an interrupted run; 22 a usage error (as ab).
// README.md is the manual.
package main

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// version is gb's version, printed by -V and gb version and sent in
// User-Agent.
const version = "0.1.0"

// Exit codes.
const (
	exitOK      = 0
	exitFailure = 1
	exitUsage   = 22 // EINVAL, as ab
)

func main() {
	sig := make(chan os.Signal, 2)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr, sig))
}

// run dispatches argv to a subcommand or to the ab-compatible benchmark
// and returns the exit code. sig delivers SIGINT/SIGTERM: the first stops
// the run (the report is still printed), the second exits at once.
func run(args []string, stdout, stderr io.Writer, sig <-chan os.Signal) int {
	if len(args) > 0 {
		switch args[0] {
		case "serve":
			return serve(args[1:], stdout, stderr, sig)
		case "ramp":
			return rampCmd(args[1:], stdout, stderr, sig)
		case "demo":
			return demo(args[1:], stdout, stderr, sig)
		case "version":
			fmt.Fprintf(stdout, "gb %s\n", version)
			return exitOK
		}
	}
	return bench(args, stdout, stderr, sig)
}
