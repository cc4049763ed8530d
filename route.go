package gb

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/gb-bench/gb/internal/client"
)

// route fills in where cc's connections go: a unix socket, a proxy
// (forwarding http://, tunnelling https:// with CONNECT) or the URL's host,
// after the --connect-to rules, resolved once so that no request waits on
// DNS. cfg and t are the target's (a many-target load routes each).
func (p *Plan) route(cfg *Config, t *target, cc *client.Config) error {
	if pr := p.opts.profile; pr.Kinds != "" && pr.URL == "" && (cfg.UnixSocket != "" || t.socket != "" || len(cfg.ConnectTo) > 0) {
		return configErr("Profile.URL", "{Profile.Kinds} with a unix socket or {ConnectTo} needs {Profile.URL} (the profiles are fetched over TCP from the URL's host)")
	}
	if cfg.UnixSocket != "" || t.socket != "" {
		return routeUnix(cfg, t.socket, cc)
	}
	host, port, err := connectTo(cfg.ConnectTo, t.host, t.port)
	if err != nil {
		return err
	}
	if len(cfg.ConnectTo) > 0 {
		t.connectTo = net.JoinHostPort(host, port)
	}
	if cfg.Proxy != "" {
		if t.tls {
			cc.Tunnel = &client.Tunnel{Target: net.JoinHostPort(host, port), Auth: cfg.ProxyAuth}
		}
		if host, port, err = net.SplitHostPort(cfg.Proxy); err != nil {
			return configErr("Proxy", "invalid {Proxy} %q: want proxy:port", hideCredentials(cfg.Proxy))
		}
	}
	ip, err := resolve(host)
	if err != nil {
		return err
	}
	cc.Addr = net.JoinHostPort(ip, port)
	return nil
}

// UnixSocket returns the path of the unix socket the Plan's connections
// go to (Config.UnixSocket, or the http+unix:// URL's), or "" over TCP.
func (p *Plan) UnixSocket() string {
	if p.client.Network == "unix" {
		return p.client.Addr
	}
	return ""
}

// routeUnix points cc at the unix socket (Config.UnixSocket, or
// urlSocket, the http+unix:// URL's), which must exist now: a missing one
// ends the run before it starts, as a host that does not resolve does.
// What cannot combine with a socket Validate has refused.
func routeUnix(cfg *Config, urlSocket string, cc *client.Config) error {
	socket := cmp.Or(cfg.UnixSocket, urlSocket)
	fi, err := os.Stat(socket)
	if err != nil {
		return fmt.Errorf("cannot connect to unix socket %s: %v", socket, unwrapPath(err))
	}
	if fi.Mode()&os.ModeSocket == 0 {
		return fmt.Errorf("cannot connect to unix socket %s: not a socket", socket)
	}
	cc.Network, cc.Addr = "unix", socket
	return nil
}

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

// resolve returns host's first address (IPv4 preferred), or the literal
// itself.
func resolve(host string) (string, error) {
	if ip := net.ParseIP(host); ip != nil {
		return ip.String(), nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	addrs, err := net.DefaultResolver.LookupIPAddr(ctx, host)
	if err != nil || len(addrs) == 0 {
		var dns *net.DNSError
		if errors.As(err, &dns) {
			err = errors.New(dns.Err)
		}
		return "", fmt.Errorf("cannot resolve host %q: %v", host, err)
	}
	for _, a := range addrs {
		if a.IP.To4() != nil {
			return a.IP.String(), nil
		}
	}
	return addrs[0].IP.String(), nil
}
