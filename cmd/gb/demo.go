package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/gb-bench/gb/internal/testserver"
)

// demoArgs is the benchmark gb demo runs: keep-alive, 50 connections,
// bounded by 100000 requests and 5 seconds, whichever comes first.
var demoArgs = []string{"-k", "-c", "50", "-n", "100000", "-t", "5"}

// demo starts the built-in server on a free loopback port and benchmarks
// it. Extra arguments are ab options added to the demo's.
func demo(args []string, stdout, stderr io.Writer, sig <-chan os.Signal) int {
	srv, err := testserver.Start(testserver.Options{})
	if err != nil {
		return fail(stderr, fmt.Errorf("demo: %v", err))
	}
	defer srv.Close()
	url := srv.URL() + "/10k.dat"
	argv := append(append(append([]string{}, demoArgs...), args...), url)
	fmt.Fprintf(stdout, "gb demo: gb's built-in server is at %s\n", srv.URL())
	fmt.Fprintf(stdout, "gb demo: running gb %s\n\n", strings.Join(argv, " "))
	return bench(argv, stdout, stderr, sig)
}
