package gb

import (
	"encoding/base64"
	"net/url"
	"strings"

	"github.com/gb-bench/gb/internal/h1"
)

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
