package gb

import (
	"net/url"
	"os"
	"strconv"
	"strings"
)

// target is the parsed URL: where to connect and what to ask for.
type target struct {
	url      *url.URL // normalised, with userinfo removed
	tls      bool
	host     string // host name or IP literal, no brackets, no port
	port     int
	hostHdr  string // Host header value: port only when not the scheme's default
	path     string // request path with query, as ab's Document Path
	userinfo *url.Userinfo
	socket   string // unix socket of an http+unix:// URL; "" = none
	// connectTo is the "host:port" the --connect-to rules (Config.ConnectTo)
	// send the connections to (through a proxy: the tunnel's target), set
	// by route; "" without rules.
	connectTo string
	// ownBody: the request is a Target's (Config.Targets, a targets
	// file), whose body gets no Content-Type of gb's own: only its
	// headers' or Config.ContentType, as vegeta sends. false = ab's
	// text/plain default for a body.
	ownBody bool
}

// parseTarget parses a URL as ab does, with a scheme that may be omitted
// ("localhost:8080/x" is http) and, unlike ab, an optional path.
func parseTarget(raw string) (*target, error) {
	if scheme, rest, ok := strings.Cut(raw, "+unix://"); ok && (scheme == "http" || scheme == "https") {
		return parseUnixTarget(scheme, rest)
	}
	s := raw
	if !strings.Contains(s, "://") {
		s = "http://" + s
	}
	u, err := url.Parse(s)
	if err != nil || u.Host == "" || u.Opaque != "" {
		return nil, configErr("URL", "%v", ErrInvalidURL)
	}
	t := &target{url: u, userinfo: u.User}
	switch u.Scheme {
	case "http":
	case "https":
		t.tls = true
	default:
		return nil, configErr("URL", "unsupported URL scheme %q (supported: http, https, http+unix, https+unix)", u.Scheme)
	}
	t.host = u.Hostname()
	if t.host == "" || strings.Contains(t.host, "%") {
		return nil, configErr("URL", "%v", ErrInvalidURL)
	}
	t.port = 80
	if t.tls {
		t.port = 443
	}
	if p := u.Port(); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 65535 {
			return nil, configErr("URL", "invalid port %q in URL", p)
		}
		t.port = n
	}
	t.hostHdr = u.Host
	if u.Port() != "" && ((t.tls && t.port == 443) || (!t.tls && t.port == 80)) {
		t.hostHdr = strings.TrimSuffix(u.Host, ":"+u.Port())
	}
	u.User = nil
	t.path = u.EscapedPath()
	if t.path == "" {
		t.path = "/"
	}
	if u.RawQuery != "" {
		t.path += "?" + u.RawQuery
	}
	return t, nil
}

// unwrapPath drops the *PathError wrapping that would repeat the path.
func unwrapPath(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}

// hideCredentials hides the password in a URL or host:port that may not
// parse ("http://u:p@%zz/", "u:p@host:3128"), for error messages.
func hideCredentials(s string) string {
	scheme, rest, ok := strings.Cut(s, "://")
	if !ok {
		scheme, rest = "", s
	}
	auth, path, _ := strings.Cut(rest, "/")
	at := strings.LastIndex(auth, "@")
	if at < 0 {
		return s
	}
	user, _, hasPass := strings.Cut(auth[:at], ":")
	if hasPass {
		user += ":xxxxx"
	}
	out := user + auth[at:]
	if ok {
		out = scheme + "://" + out
	}
	if strings.Contains(rest, "/") {
		out += "/" + path
	}
	return out
}

// unixHost is the Host header (and the report's host) of an http+unix://
// URL, whose authority is a socket path rather than a name.
const unixHost = "localhost"

// parseUnixTarget parses an http+unix:// or https+unix:// URL, rest being
// what follows "://": the socket's path percent-encoded as the authority
// (http+unix://%2Frun%2Fapp.sock/path, as requests-unixsocket writes it),
// then the path and query; user:password@ before the path is sent as
// Basic credentials, as in any URL. The request goes to Host: localhost.
func parseUnixTarget(scheme, rest string) (*target, error) {
	i := strings.IndexAny(rest, "/?#")
	if i < 0 {
		i = len(rest)
	}
	auth, user := rest[:i], ""
	if at := strings.LastIndex(auth, "@"); at >= 0 {
		user, auth = auth[:at+1], auth[at+1:] // credentials, sent as the URL's are
	}
	socket, err := url.PathUnescape(auth)
	if err != nil || socket == "" {
		return nil, configErr("URL", "invalid %s+unix:// URL: want the socket's path percent-encoded as the host, e.g. %s+unix://%%2Frun%%2Fapp.sock/path", scheme, scheme)
	}
	t, err := parseTarget(scheme + "://" + user + unixHost + rest[i:])
	if err != nil {
		return nil, err
	}
	t.socket = socket
	t.url.Scheme, t.url.Host = scheme+"+unix", socket // url.URL writes the host percent-encoded
	return t, nil
}
