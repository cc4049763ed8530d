package gb

import (
	"fmt"
	"strconv"
	"strings"
)

// connectTo applies the first --connect-to rule that matches host and
// port, returning the host and port to connect to (the URL's when no rule
// matches). A malformed rule is a ConfigError, whether it matches or not.
func connectTo(rules []string, host string, port int) (string, string, error) {
	toHost, toPort := host, strconv.Itoa(port)
	matched := false
	for _, r := range rules {
		f, err := splitConnectTo(r)
		if err != nil {
			return "", "", configErr("ConnectTo", "invalid {ConnectTo} %q: %v", r, err)
		}
		if matched || (f[0] != "" && !strings.EqualFold(f[0], host)) || (f[1] != "" && f[1] != strconv.Itoa(port)) {
			continue
		}
		matched = true
		if f[2] != "" {
			toHost = f[2]
		}
		if f[3] != "" {
			toPort = f[3]
		}
	}
	return toHost, toPort, nil
}

// splitConnectTo splits "HOST:PORT:ADDR:PORT" into its four fields, the
// hosts possibly bracketed IPv6 literals (brackets removed), each field
// possibly empty; ports, when given, are 1 to 65535.
func splitConnectTo(rule string) ([4]string, error) {
	var f [4]string
	rest := rule
	for i := range f {
		if rest == "" && i < 3 {
			return f, fmt.Errorf("want HOST:PORT:ADDR:PORT")
		}
		if i%2 == 0 && strings.HasPrefix(rest, "[") {
			end := strings.Index(rest, "]")
			if end < 0 {
				return f, fmt.Errorf("unclosed [ in an IPv6 address")
			}
			f[i], rest = rest[1:end], rest[end+1:]
			if rest != "" && rest[0] != ':' {
				return f, fmt.Errorf("want ':' after ]")
			}
			rest = strings.TrimPrefix(rest, ":")
			continue
		}
		if i == 3 {
			f[i], rest = rest, ""
		} else {
			var ok bool
			if f[i], rest, ok = strings.Cut(rest, ":"); !ok {
				return f, fmt.Errorf("want HOST:PORT:ADDR:PORT")
			}
		}
		if i%2 == 1 && f[i] != "" {
			if n, err := strconv.Atoi(f[i]); err != nil || n < 1 || n > 65535 {
				return f, fmt.Errorf("invalid port %q", f[i])
			}
		}
	}
	return f, nil
}
