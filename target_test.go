package gb

import (
	"strings"
	"testing"
)

// FuzzParseTarget: any URL and header either parses into a request whose
// bytes cannot be split (no CR/LF outside line ends) or is refused with a
// ConfigError; nothing panics.
func FuzzParseTarget(f *testing.F) {
	for _, s := range []string{"http://127.0.0.1:8080/x?y=1\x00X-A: b", "localhost/\x00Host: h:1", "https://[::1]:443/\x00A:", "http://u:p@h/\x00:x", "h\r\n/\x00X: a\rb"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		rawURL, header, _ := strings.Cut(s, "\x00")
		tg, err := parseTarget(rawURL)
		if err != nil {
			if _, ok := err.(*ConfigError); !ok {
				t.Fatalf("%q: %v is not a ConfigError", rawURL, err)
			}
			return
		}
		req, err := buildRequest(&Config{Headers: []string{header}}, tg)
		if err != nil {
			if _, ok := err.(*ConfigError); !ok {
				t.Fatalf("%q: %v is not a ConfigError", header, err)
			}
			return
		}
		wire := string(req.Append(nil))
		head, _, _ := strings.Cut(wire, "\r\n\r\n")
		for _, line := range strings.Split(head, "\r\n") {
			if strings.ContainsAny(line, "\r\n") {
				t.Fatalf("request line split: %q", wire)
			}
		}
	})
}
