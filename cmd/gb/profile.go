package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"

	"github.com/gb-bench/gb/internal/profile"
	"github.com/gb-bench/gb/stats"
)

// checkProfile validates --profile, --profile-url and --profile-dir before
// the run: usage errors exit 22 like every other option's.
func checkProfile(o *options, t *target) error {
	if o.profile == "" {
		if o.profileURL != "" || o.profileDir != "" {
			return usagef(false, "--profile-url and --profile-dir need --profile")
		}
		return nil
	}
	_, err := profileConfig(o, t)
	return err
}

// profileConfig builds the capture's configuration from the options: the
// kinds, the pprof URL (default: the target's scheme://host:port +
// /debug/pprof/) and, for https, the TLS settings of -E, -f, -Z, -I,
// --cacert and --insecure applied to the pprof host.
func profileConfig(o *options, t *target) (profile.Config, error) {
	kinds, err := profile.ParseKinds(o.profile)
	if err != nil {
		return profile.Config{}, usagef(false, "--profile=%s: %v", o.profile, err)
	}
	cfg := profile.Config{Kinds: kinds, Dir: o.profileDir, URL: o.profileURL}
	if cfg.URL == "" {
		cfg.URL = t.url.Scheme + "://" + net.JoinHostPort(t.host, strconv.Itoa(t.port)) + "/debug/pprof/"
	}
	pt, err := parseTarget(cfg.URL)
	if err != nil {
		return profile.Config{}, usagef(false, "invalid --profile-url %q: want http[s]://host[:port]/debug/pprof/", cfg.URL)
	}
	if pt.tls {
		if cfg.TLS, err = tlsConfig(o, pt); err != nil {
			return profile.Config{}, err
		}
	}
	cfg.URL = pt.url.String() // normalised, credentials kept for the requests
	if pt.userinfo != nil {
		u := *pt.url
		u.User = pt.userinfo
		cfg.URL = u.String()
	}
	return cfg, nil
}

// startProfile starts capturing the target's profiles beside the load
// (--profile). Without --profile, or when the target has no pprof, it
// returns nil; then it prints one warning line and the run goes on.
func (p *plan) startProfile(ctx context.Context) *profile.Capture {
	if p.o.profile == "" {
		return nil
	}
	var stderr io.Writer = os.Stderr
	if p.stderr != nil {
		stderr = p.stderr
	}
	cfg, err := profileConfig(p.o, p.target)
	if err == nil {
		var c *profile.Capture
		if c, err = profile.Start(ctx, cfg); err == nil {
			return c
		}
	}
	fmt.Fprintf(stderr, "gb: warning: --profile: %v; the run goes on without a server profile\n", err)
	return nil
}

// stopProfile ends the capture after the load and puts its summary in res.
func stopProfile(c *profile.Capture, res *stats.Result) {
	if c != nil {
		res.Profile = c.Stop(res.Complete())
	}
}
