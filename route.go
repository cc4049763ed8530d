package gb

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"time"

	"github.com/gb-bench/gb/internal/client"
)

// route fills in where cc's connections go: a unix socket, a proxy
// (forwarding http://, tunnelling https:// with CONNECT) or the URL's host,
// after the --connect-to rules, resolved once so that no request waits on
// DNS. cfg and t are the target's (a many-target load routes each); pr
// is the run's profile request (WithProfile).
func route(cfg *Config, t *target, cc *client.Config, pr Profile) error {
	if pr.Kinds != "" && pr.URL == "" && (cfg.UnixSocket != "" || t.socket != "" || len(cfg.ConnectTo) > 0) {
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
