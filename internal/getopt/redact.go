package getopt

import (
	"net/url"
	"strings"
)

// Redact returns a copy of argv in which hide has replaced the value of
// every option (hide gets the option's spec and its value and returns
// what to show) and URL arguments have their password hidden. argv
// itself is not changed.
func Redact[T any](argv []string, specs []Spec[T], hide func(s *Spec[T], value string) string) []string {
	out := make([]string, len(argv))
	copy(out, argv)
	for i := 0; i < len(out); i++ {
		a := out[i]
		switch {
		case a == "--":
			i = len(out)
		case strings.HasPrefix(a, "--"):
			name, value, has := strings.Cut(a[2:], "=")
			if s := FindLong(specs, name); s != nil && s.Arg != "" {
				if has {
					out[i] = "--" + name + "=" + hide(s, value)
				} else if i+1 < len(out) {
					i++
					out[i] = hide(s, out[i])
				}
			}
		case len(a) > 1 && a[0] == '-':
			i += redactCluster(out, i, specs, hide)
		default:
			out[i] = RedactURL(a)
		}
	}
	return out
}

// redactCluster redacts the value in the short-option cluster out[i] (or
// in the next argument); it returns how many extra arguments it covered.
func redactCluster[T any](out []string, i int, specs []Spec[T], hide func(*Spec[T], string) string) int {
	a := out[i]
	for j := 1; j < len(a); j++ {
		s := FindShort(specs, a[j])
		if s == nil || s.Arg == "" {
			continue
		}
		if j+1 < len(a) {
			out[i] = a[:j+1] + hide(s, a[j+1:])
			return 0
		}
		if i+1 < len(out) {
			out[i+1] = hide(s, out[i+1])
			return 1
		}
		return 0
	}
	return 0
}

// RedactURL hides a password in a URL ("http://user:xxxxx@host/"); other
// arguments come back unchanged.
func RedactURL(a string) string {
	if !strings.Contains(a, "@") {
		return a
	}
	s := a
	if !strings.Contains(s, "://") {
		s = "http://" + s
	}
	u, err := url.Parse(s)
	if err != nil || u.User == nil {
		return a
	}
	return u.Redacted()
}
