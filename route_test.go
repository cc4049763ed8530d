package gb

import (
	"errors"
	"testing"
)

// TestConnectToRules: curl's --connect-to matching: empty HOST or PORT
// match any, empty ADDR or PORT keep the URL's, the first match wins,
// IPv6 literals are bracketed, and a malformed rule is a ConfigError even
// when an earlier rule matched.
func TestConnectToRules(t *testing.T) {
	for _, tc := range []struct {
		rules      []string
		host, port string // where example.test:443 connects
	}{
		{nil, "example.test", "443"},
		{[]string{"example.test:443:127.0.0.1:8443"}, "127.0.0.1", "8443"},
		{[]string{"EXAMPLE.test:443:127.0.0.1:8443"}, "127.0.0.1", "8443"},
		{[]string{"example.test:80:127.0.0.1:8443"}, "example.test", "443"},
		{[]string{"other:443:127.0.0.1:1", ":443:[::1]:8443", "::10.0.0.1:1"}, "::1", "8443"},
		{[]string{"::127.0.0.2:"}, "127.0.0.2", "443"},
		{[]string{"example.test:::9443"}, "example.test", "9443"},
		{[]string{"[::1]:443:a:1", "example.test::b:"}, "b", "443"},
	} {
		host, port, err := connectTo(tc.rules, "example.test", 443)
		if err != nil || host != tc.host || port != tc.port {
			t.Errorf("%q: %s %s %v, want %s %s", tc.rules, host, port, err, tc.host, tc.port)
		}
	}
	for _, bad := range []string{"", "a", "a:1:b", "a:x:b:1", "a:1:b:70000", "[::1:1:b:1", "[::1]x:1:b:1", "a:1:b:2:3"} {
		_, _, err := connectTo([]string{"::127.0.0.1:1", bad}, "example.test", 443)
		var ce *ConfigError
		if !errors.As(err, &ce) {
			t.Errorf("--connect-to %q: %v, want a ConfigError", bad, err)
		}
	}
}
