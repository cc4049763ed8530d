package main

import (
	"net/url"
	"strings"
)

// secretHeaders are request headers whose values never appear in gb's
// output.
var secretHeaders = []string{"Authorization", "Proxy-Authorization", "Cookie"}

// redactArgs returns argv with credentials replaced by "***": the values
// of -A, -P and -C, of -H for secret headers (an auth scheme is kept:
// "Authorization: Bearer ***"), and a URL's password.
func redactArgs(argv []string) []string {
	out := make([]string, len(argv))
	copy(out, argv)
	for i := 0; i < len(out); i++ {
		a := out[i]
		switch {
		case a == "--":
			i = len(out)
		case strings.HasPrefix(a, "--"):
			name, value, has := strings.Cut(a[2:], "=")
			if s := findLong(abSpecs, name); s != nil && s.arg != "" {
				if has {
					out[i] = "--" + name + "=" + redactValue(s.short, value)
				} else if i+1 < len(out) {
					i++
					out[i] = redactValue(s.short, out[i])
				}
			}
		case len(a) > 1 && a[0] == '-':
			i += redactCluster(out, i)
		default:
			out[i] = redactURL(a)
		}
	}
	return out
}

// redactCluster redacts the value in the short-option cluster out[i] (or
// in the next argument); it returns how many extra arguments it covered.
func redactCluster(out []string, i int) int {
	a := out[i]
	for j := 1; j < len(a); j++ {
		s := findShort(abSpecs, a[j])
		if s == nil || s.arg == "" {
			continue
		}
		if j+1 < len(a) {
			out[i] = a[:j+1] + redactValue(a[j], a[j+1:])
			return 0
		}
		if i+1 < len(out) {
			out[i+1] = redactValue(a[j], out[i+1])
			return 1
		}
		return 0
	}
	return 0
}

// redactValue hides the value of option letter c when it is a secret.
func redactValue(c byte, v string) string {
	switch c {
	case 'A', 'P', 'C':
		return "***"
	case 'H':
		return redactHeaderLine(v)
	}
	return v
}

// redactHeaderLine hides a secret header's value, keeping an auth scheme.
func redactHeaderLine(line string) string {
	name, value, ok := strings.Cut(line, ":")
	if !ok {
		return line
	}
	for _, s := range secretHeaders {
		if strings.EqualFold(strings.TrimSpace(name), s) {
			if scheme, _, found := strings.Cut(strings.TrimSpace(value), " "); found && s != "Cookie" {
				return name + ": " + scheme + " ***"
			}
			return name + ": ***"
		}
	}
	return line
}

// redactURL hides a password in a URL argument ("http://user:xxxxx@host/").
func redactURL(a string) string {
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
