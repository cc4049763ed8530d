package getopt

import (
	"fmt"
	"io"
	"strings"
)

// Print writes one option in ab's layout: the flag and its value name in
// a 16-column field after 4 spaces, continuation lines indented 20; a
// flag too long for the field puts its help on the next line.
func (s *Spec[T]) Print(w io.Writer) {
	flag := "--" + s.Long
	if s.Short != 0 {
		flag = "-" + string(s.Short)
	}
	switch {
	case strings.HasPrefix(s.Arg, "["):
		flag += "[=" + strings.Trim(s.Arg, "[]") + "]"
	case s.Arg != "":
		flag += " " + s.Arg
	}
	lines := strings.Split(s.Help, "\n")
	if len(flag) > 15 {
		fmt.Fprintf(w, "    %s\n", flag)
	} else {
		fmt.Fprintf(w, "    %-15s %s\n", flag, lines[0])
		lines = lines[1:]
	}
	for _, l := range lines {
		fmt.Fprintf(w, "%20s%s\n", "", l)
	}
}
