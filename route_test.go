package gb

import (
	"errors"
	"net/url"
	"strings"
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

// TestUnixURL: an http+unix:// URL's percent-encoded host is the socket;
// its path, query and credentials are the request's, its Host localhost;
// the URL shown keeps the socket and hides the password.
func TestUnixURL(t *testing.T) {
	for raw, want := range map[string]target{
		"http+unix://%2Frun%2Fapp.sock/a%20b?x=1": {socket: "/run/app.sock", path: "/a%20b?x=1", hostHdr: "localhost", port: 80},
		"https+unix://%2Frun%2Fapp.sock":          {socket: "/run/app.sock", path: "/", hostHdr: "localhost", port: 443, tls: true},
		"http+unix://me:pw@%2Fx.sock/":            {socket: "/x.sock", path: "/", hostHdr: "localhost", port: 80},
	} {
		got, err := parseTarget(raw)
		if err != nil || got.socket != want.socket || got.path != want.path || got.hostHdr != want.hostHdr ||
			got.port != want.port || got.tls != want.tls || got.host != "localhost" {
			t.Errorf("%s: %+v %v, want %+v", raw, got, err, want)
			continue
		}
		if shown := got.url.Redacted(); strings.Contains(shown, "pw") || !strings.Contains(shown, "+unix://"+url.PathEscape(want.socket)) {
			t.Errorf("%s shown as %s", raw, shown)
		}
	}
	if got, _ := parseTarget("http+unix://me:pw@%2Fx.sock/"); got.userinfo.String() != "me:pw" {
		t.Errorf("credentials %v, want me:pw", got.userinfo)
	}
}
