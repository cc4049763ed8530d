package gb

import (
	"encoding/base64"
	"net/url"
	"os"
	"strconv"
	"strings"

	"github.com/gb-bench/gb/internal/h1"
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

// buildRequest turns the Config into the request every worker sends.
func buildRequest(c *Config, t *target) (*h1.Request, error) {
	req := &h1.Request{
		Method:      c.method(),
		Target:      t.path,
		Host:        t.hostHdr,
		UserAgent:   c.UserAgent,
		Body:        c.Body,
		ContentType: c.ContentType,
		BareBody:    t.ownBody && c.ContentType == "",
		Close:       !c.keepAlive(),
	}
	if req.UserAgent == "" {
		req.UserAgent = "gb/" + Version
	}
	if c.Proxy != "" && !t.tls { // https:// tunnels: the proxy sees only CONNECT
		req.Target = t.url.Scheme + "://" + t.url.Host + t.path
	}
	if len(c.Cookies) > 0 {
		req.Headers = append(req.Headers, h1.Header{Name: "Cookie", Value: strings.Join(c.Cookies, "; ")})
	}
	auth := c.BasicAuth
	if auth == "" && t.userinfo != nil {
		auth = t.userinfo.String()
		if u, err := url.PathUnescape(auth); err == nil {
			auth = u
		}
	}
	if auth != "" {
		req.Headers = append(req.Headers, basicAuth("Authorization", auth))
	}
	if c.ProxyAuth != "" && !t.tls {
		req.Headers = append(req.Headers, basicAuth("Proxy-Authorization", c.ProxyAuth))
	}
	for _, raw := range c.Headers {
		h, err := parseHeader(raw, c.Body != nil)
		if err != nil {
			return nil, err
		}
		req.Headers = append(req.Headers, h)
	}
	c.addAcceptEncoding(req)
	if err := req.Validate(); err != nil {
		return nil, configErr("", "%v", err)
	}
	return req, nil
}

func basicAuth(name, userPass string) h1.Header {
	return h1.Header{Name: name, Value: "Basic " + base64.StdEncoding.EncodeToString([]byte(userPass))}
}

// parseHeader splits "Name: value" at the first colon, refusing framing
// headers that gb sets itself.
func parseHeader(raw string, hasBody bool) (h1.Header, error) {
	name, value, ok := strings.Cut(raw, ":")
	if !ok || name == "" || strings.TrimSpace(name) != name {
		return h1.Header{}, configErr("Headers", "invalid header %q: expected \"Name: value\"", raw)
	}
	if strings.EqualFold(name, "Transfer-Encoding") ||
		(strings.EqualFold(name, "Content-Length") && hasBody) {
		return h1.Header{}, configErr("Headers", "{Headers} %s conflicts with the request framing gb sets", name)
	}
	return h1.Header{Name: name, Value: strings.TrimLeft(value, " \t")}, nil
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
