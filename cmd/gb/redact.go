package main

import (
	"strings"

	"github.com/gb-bench/gb/internal/getopt"
)

// secretHeaders are request headers whose values never appear in gb's
// output; so are those of any header whose name contains a secretWords
// word (X-Api-Key, X-Auth-Token, X-Client-Secret).
var secretHeaders = []string{"Authorization", "Proxy-Authorization", "Cookie"}

var secretWords = []string{"token", "secret", "key", "password", "auth", "session"}

// redactArgs returns argv with credentials replaced by "***": the values
// of -A, -P and -C, of -H for secret headers (an auth scheme is kept:
// "Authorization: Bearer ***"), and a URL's password.
func redactArgs(argv []string) []string {
	return getopt.Redact(argv, abSpecs, func(s *flagSpec, v string) string { return redactValue(s.Short, v) })
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
	for _, w := range secretWords {
		if strings.Contains(strings.ToLower(name), w) {
			return name + ": ***"
		}
	}
	return line
}
