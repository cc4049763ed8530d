package main

import (
	"fmt"
	"io"
	"strings"
)

// printUsage writes ab's usage text, with gb's options and subcommands
// after ab's, to w.
func printUsage(w io.Writer) {
	fmt.Fprintf(w, "Usage: gb [options] [http[s]://]hostname[:port]/path\n")
	fmt.Fprintf(w, "Options are:\n")
	for i := range abSpecs {
		if abSpecs[i].short != 0 {
			printSpec(w, &abSpecs[i])
		}
	}
	fmt.Fprintf(w, "Long options (every option above also has one; see README.md):\n")
	for i := range abSpecs {
		if abSpecs[i].short == 0 {
			printSpec(w, &abSpecs[i])
		}
	}
	fmt.Fprintf(w, "Subcommands:\n")
	fmt.Fprintf(w, "    gb ramp         Step the load up and find the saturation point (gb ramp -h)\n")
	fmt.Fprintf(w, "    gb demo         Benchmark gb's built-in server for a few seconds\n")
	fmt.Fprintf(w, "    gb serve        Run the built-in target server (gb serve -h)\n")
	fmt.Fprintf(w, "    gb version      Print gb's version\n")
}

// printSpec writes one option in ab's layout: the flag and its value name
// in a 16-column field after 4 spaces, continuation lines indented 20.
func printSpec(w io.Writer, s *flagSpec) {
	flag := "--" + s.long
	if s.short != 0 {
		flag = "-" + string(s.short)
	}
	switch {
	case strings.HasPrefix(s.arg, "["):
		flag += "[=" + strings.Trim(s.arg, "[]") + "]"
	case s.arg != "":
		flag += " " + s.arg
	}
	lines := strings.Split(s.help, "\n")
	if len(flag) > 15 { // a long option: its help starts on the next line
		fmt.Fprintf(w, "    %s\n", flag)
	} else {
		fmt.Fprintf(w, "    %-15s %s\n", flag, lines[0])
		lines = lines[1:]
	}
	for _, l := range lines {
		fmt.Fprintf(w, "%20s%s\n", "", l)
	}
}
