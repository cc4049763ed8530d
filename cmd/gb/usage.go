package main

import (
	"fmt"
	"io"
)

// printUsage writes ab's usage text, with gb's options and subcommands
// after ab's, to w.
func printUsage(w io.Writer) {
	fmt.Fprintf(w, "Usage: gb [options] [http[s]://]hostname[:port]/path\n")
	fmt.Fprintf(w, "Options are:\n")
	for i := range abSpecs {
		if abSpecs[i].Short != 0 {
			abSpecs[i].Print(w)
		}
	}
	fmt.Fprintf(w, "Long options (every option above also has one; see docs/options.md):\n")
	for i := range abSpecs {
		if abSpecs[i].Short == 0 {
			abSpecs[i].Print(w)
		}
	}
	fmt.Fprintf(w, "Subcommands:\n")
	fmt.Fprintf(w, "    gb ramp         Step the load up and find the saturation point (gb ramp -h)\n")
	fmt.Fprintf(w, "    gb demo         Benchmark gb's built-in server for a few seconds\n")
	fmt.Fprintf(w, "    gb serve        Run the built-in target server (gb serve -h)\n")
	fmt.Fprintf(w, "    gb capacity     Find the highest request rate the server sustains within an SLO\n")
	fmt.Fprintf(w, "    gb report       Render a saved --json result again (text, HTML, .hgrm, -e, JSON)\n")
	fmt.Fprintf(w, "    gb compare      Compare saved runs: deltas, significance, profile diff\n")
	fmt.Fprintf(w, "    gb merge        Merge the results of shards (--shard I/N) into one, losslessly\n")
	fmt.Fprintf(w, "    gb k8s job      Print a Kubernetes Indexed Job that runs the shards, and how to merge them\n")
	fmt.Fprintf(w, "    gb completion   Print the bash, zsh or fish completion script (gb completion --help)\n")
	fmt.Fprintf(w, "    gb help         Usage of gb or of a command, on stdout\n")
	fmt.Fprintf(w, "    gb version      Print gb's version\n")
}
