// Package getopt parses command lines the way ab does (POSIX getopt):
// switches cluster (-kq), values attach (-c100) or follow (-c 100), "--"
// ends the options, and long options take "--name value" or
// "--name=value". It also prints ab's usage layout and redacts secret
// values from a command line before it is shown or saved.
package getopt

import (
	"fmt"
	"strings"
)

// Spec is one option of a command whose parsed form is a T: a short
// letter (0 = none), a long name ("" = none), the name of its value
// ("" = a switch; "[name]" = an optional value, given only as
// --long=value), its help (lines after the first are continuation
// lines) and the setter that stores a value into T.
type Spec[T any] struct {
	Short byte
	Long  string
	Arg   string
	Help  string
	Set   func(dst *T, value string) error
}

// Error is a command-line error: the caller prints it, with the command's
// usage text when Usage is set, and exits 22, as ab does.
type Error struct {
	Msg   string
	Usage bool
}

func (e *Error) Error() string { return e.Msg }

// Errorf returns an *Error; usage says whether the usage text follows.
func Errorf(usage bool, format string, a ...any) error {
	return &Error{Msg: fmt.Sprintf(format, a...), Usage: usage}
}

// Parse applies argv to dst. Parsing stops at the first argument that is
// not an option; the rest are returned.
func Parse[T any](argv []string, specs []Spec[T], dst *T) ([]string, error) {
	return parse(argv, specs, dst, false)
}

// ParseAnywhere applies argv to dst with the options anywhere: before,
// between or after the other arguments, which it returns in order. "--"
// ends the options; "-" is an argument.
func ParseAnywhere[T any](argv []string, specs []Spec[T], dst *T) ([]string, error) {
	return parse(argv, specs, dst, true)
}

// parse is Parse, or ParseAnywhere when anywhere is set.
func parse[T any](argv []string, specs []Spec[T], dst *T, anywhere bool) ([]string, error) {
	var args []string
	for i := 0; i < len(argv); i++ {
		a := argv[i]
		var used int
		var err error
		switch {
		case a == "--":
			return append(args, argv[i+1:]...), nil
		case strings.HasPrefix(a, "--"):
			used, err = parseLong(a[2:], argv[i+1:], specs, dst)
		case len(a) > 1 && a[0] == '-':
			used, err = parseShort(a[1:], argv[i+1:], specs, dst)
		case anywhere:
			args = append(args, a)
		default:
			return argv[i:], nil
		}
		if err != nil {
			return nil, err
		}
		i += used
	}
	return args, nil
}

// parseShort applies one cluster of short options; it returns how many of
// the following arguments it consumed as a value (0 or 1).
func parseShort[T any](cluster string, rest []string, specs []Spec[T], dst *T) (int, error) {
	for j := 0; j < len(cluster); j++ {
		s := FindShort(specs, cluster[j])
		if s == nil {
			return 0, Errorf(true, "illegal option -- %c", cluster[j])
		}
		if s.Arg == "" {
			if err := s.Set(dst, ""); err != nil {
				return 0, err
			}
			continue
		}
		if j+1 < len(cluster) {
			return 0, s.apply(cluster[j+1:], dst)
		}
		if len(rest) == 0 {
			return 0, Errorf(true, "option requires an argument -- %c", cluster[j])
		}
		return 1, s.apply(rest[0], dst)
	}
	return 0, nil
}

// parseLong applies "name" or "name=value"; it returns how many of the
// following arguments it consumed as a value.
func parseLong[T any](arg string, rest []string, specs []Spec[T], dst *T) (int, error) {
	name, value, hasValue := strings.Cut(arg, "=")
	s := FindLong(specs, name)
	if s == nil {
		if near := nearestLong(specs, name); near != "" {
			return 0, Errorf(false, "unknown option --%s; did you mean --%s?", name, near)
		}
		return 0, Errorf(true, "unknown option --%s", name)
	}
	switch {
	case strings.HasPrefix(s.Arg, "["): // optional value: only in the --name=value form
		return 0, s.apply(value, dst)
	case s.Arg == "" && hasValue:
		return 0, Errorf(true, "option --%s takes no value", name)
	case s.Arg == "":
		return 0, s.Set(dst, "")
	case hasValue:
		return 0, s.apply(value, dst)
	case len(rest) == 0:
		return 0, Errorf(true, "option requires an argument -- %s", name)
	}
	return 1, s.apply(rest[0], dst)
}

// nearestLong is the long option of specs a mistyped name most likely
// meant (see Nearest).
func nearestLong[T any](specs []Spec[T], name string) string {
	names := make([]string, 0, len(specs))
	for i := range specs {
		if specs[i].Long != "" {
			names = append(names, specs[i].Long)
		}
	}
	return Nearest(name, names)
}

// Nearest is the name a mistyped one most likely meant: the closest
// within two edits (the first in sort order on a tie), or else the only
// one it begins; "" when none is. Names shorter than three bytes are not
// guessed at.
func Nearest(name string, names []string) string {
	if len(name) < 3 {
		return ""
	}
	best, dist, prefixed := "", 3, []string{}
	for _, n := range names {
		if strings.HasPrefix(n, name) {
			prefixed = append(prefixed, n)
		}
		if d := EditDistance(name, n); d < dist || d == dist && n < best {
			best, dist = n, d
		}
	}
	if best == "" && len(prefixed) == 1 {
		best = prefixed[0]
	}
	return best
}

// apply sets a value-taking option, naming the option in any error.
func (s *Spec[T]) apply(v string, dst *T) error {
	err := s.Set(dst, v)
	if err == nil {
		return nil
	}
	if _, ok := err.(*Error); ok {
		return err
	}
	return Errorf(false, "invalid value %q for %s: %v", v, s.Name(), err)
}

// Name is the option as a user types it: "-c", or "--long" when it has no
// letter.
func (s *Spec[T]) Name() string {
	if s.Short != 0 {
		return "-" + string(s.Short)
	}
	return "--" + s.Long
}

// FindShort returns the spec of letter c, or nil.
func FindShort[T any](specs []Spec[T], c byte) *Spec[T] {
	for i := range specs {
		if specs[i].Short == c && c != 0 {
			return &specs[i]
		}
	}
	return nil
}

// FindLong returns the spec named name, or nil.
func FindLong[T any](specs []Spec[T], name string) *Spec[T] {
	for i := range specs {
		if specs[i].Long == name && name != "" {
			return &specs[i]
		}
	}
	return nil
}

// New returns a Spec; command tables read better as calls than as keyed
// literals.
func New[T any](short byte, long, arg, help string, set func(dst *T, value string) error) Spec[T] {
	return Spec[T]{Short: short, Long: long, Arg: arg, Help: help, Set: set}
}

// EditDistance is the Levenshtein distance of a and b, in bytes.
func EditDistance(a, b string) int {
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
