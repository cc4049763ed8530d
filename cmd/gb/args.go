package main

import (
	"fmt"
	"strings"
)

// flagSpec is one command-line option: a short letter (0 = none), a long
// name ("" = none), the name of its value ("" = a switch; "[name]" = an
// optional value, given only as --long=value) and its help.
type flagSpec struct {
	short byte
	long  string
	arg   string
	help  string
	set   func(o *options, v string) error
}

// usageError is a command-line error: gb prints it (with ab's usage text
// when withUsage is set) and exits 22, as ab does.
type usageError struct {
	msg       string
	withUsage bool
}

func (e *usageError) Error() string { return e.msg }

func usagef(withUsage bool, format string, a ...any) error {
	return &usageError{msg: fmt.Sprintf(format, a...), withUsage: withUsage}
}

// parseArgs applies argv to o following POSIX getopt as ab does: switches
// cluster (-kq), values attach (-c100) or follow (-c 100), and "--" ends the
// options. Long options take "--name value" or "--name=value". Parsing
// stops at the first argument that is not an option; the rest are returned.
func parseArgs(argv []string, specs []flagSpec, o *options) ([]string, error) {
	for i := 0; i < len(argv); i++ {
		a := argv[i]
		switch {
		case a == "--":
			return argv[i+1:], nil
		case strings.HasPrefix(a, "--"):
			used, err := parseLong(a[2:], argv[i+1:], specs, o)
			if err != nil {
				return nil, err
			}
			i += used
		case len(a) > 1 && a[0] == '-':
			used, err := parseShort(a[1:], argv[i+1:], specs, o)
			if err != nil {
				return nil, err
			}
			i += used
		default:
			return argv[i:], nil
		}
	}
	return nil, nil
}

// parseShort applies one cluster of short options; it returns how many of
// the following arguments it consumed as a value (0 or 1).
func parseShort(cluster string, rest []string, specs []flagSpec, o *options) (int, error) {
	for j := 0; j < len(cluster); j++ {
		s := findShort(specs, cluster[j])
		if s == nil {
			return 0, usagef(true, "illegal option -- %c", cluster[j])
		}
		if s.arg == "" {
			if err := s.set(o, ""); err != nil {
				return 0, err
			}
			continue
		}
		if j+1 < len(cluster) {
			return 0, apply(s, cluster[j+1:], o)
		}
		if len(rest) == 0 {
			return 0, usagef(true, "option requires an argument -- %c", cluster[j])
		}
		return 1, apply(s, rest[0], o)
	}
	return 0, nil
}

// parseLong applies "name" or "name=value"; it returns how many of the
// following arguments it consumed as a value.
func parseLong(arg string, rest []string, specs []flagSpec, o *options) (int, error) {
	name, value, hasValue := strings.Cut(arg, "=")
	s := findLong(specs, name)
	if s == nil {
		return 0, usagef(true, "unknown option --%s", name)
	}
	switch {
	case strings.HasPrefix(s.arg, "["): // optional value: only in the --name=value form
		return 0, apply(s, value, o)
	case s.arg == "" && hasValue:
		return 0, usagef(true, "option --%s takes no value", name)
	case s.arg == "":
		return 0, s.set(o, "")
	case hasValue:
		return 0, apply(s, value, o)
	case len(rest) == 0:
		return 0, usagef(true, "option requires an argument -- %s", name)
	}
	return 1, apply(s, rest[0], o)
}

// apply sets a value-taking option, naming the option in any error.
func apply(s *flagSpec, v string, o *options) error {
	err := s.set(o, v)
	if err == nil {
		return nil
	}
	if _, ok := err.(*usageError); ok {
		return err
	}
	return usagef(false, "invalid value %q for %s: %v", v, s.name(), err)
}

func (s *flagSpec) name() string {
	if s.short != 0 {
		return "-" + string(s.short)
	}
	return "--" + s.long
}

func findShort(specs []flagSpec, c byte) *flagSpec {
	for i := range specs {
		if specs[i].short == c && c != 0 {
			return &specs[i]
		}
	}
	return nil
}

func findLong(specs []flagSpec, name string) *flagSpec {
	for i := range specs {
		if specs[i].long == name && name != "" {
			return &specs[i]
		}
	}
	return nil
}
