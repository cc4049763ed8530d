package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/gb-bench/gb/stats"
)

// maxErrorLine caps a one-line error about an input file, whose text may
// quote the file.
const maxErrorLine = 300

// inputError writes gb CMD's one-line error about an input file to
// stderr: the file name and the error, made printable (a file or a pod
// log controls what its error quotes) and cut to maxErrorLine runes.
func inputError(stderr io.Writer, cmd, file string, err error) {
	fmt.Fprintf(stderr, "gb %s: %s\n", cmd, oneLine(file+": "+err.Error()))
}

// oneLine makes s one printable line of at most maxErrorLine runes.
func oneLine(s string) string {
	s = stats.Printable(s)
	if r := []rune(s); len(r) > maxErrorLine {
		s = string(r[:maxErrorLine-1]) + "…"
	}
	return strings.TrimSpace(s)
}
