package gb

import (
	"context"
	"errors"
	"net"
	"strconv"
	"time"

	"github.com/gb-bench/gb/internal/profile"
)

// Profile asks for the server's pprof profiles during the load (the
// target must serve net/http/pprof). The zero value captures nothing.
type Profile struct {
	// Kinds is a comma-separated list of cpu, heap, allocs, goroutine,
	// block, mutex and trace; "" = no capture.
	Kinds string
	// URL is the pprof base URL; "" = the target's
	// scheme://host:port/debug/pprof/.
	URL string
	// Dir is where the profiles are saved; "" = a new
	// ./gb-profiles/<time> directory.
	Dir string
}

// checkProfile validates the profile request before the run: its errors
// are ConfigErrors like every other setting's.
func (o *options) checkProfile(t *target, tc TLS) error {
	if o.profile.Kinds == "" {
		if o.profile.URL != "" || o.profile.Dir != "" {
			return configErr("Profile.URL", "{Profile.URL} and {Profile.Dir} need {Profile.Kinds}")
		}
		return nil
	}
	_, err := o.profile.config(t, tc)
	return err
}

// config builds the capture's configuration: the kinds, the pprof URL
// and, for https, the TLS settings of the load applied to the pprof host.
func (pr Profile) config(t *target, tc TLS) (profile.Config, error) {
	kinds, err := profile.ParseKinds(pr.Kinds)
	if err != nil {
		return profile.Config{}, configErr("Profile.Kinds", "{Profile.Kinds} %s: %v", pr.Kinds, err)
	}
	cfg := profile.Config{Kinds: kinds, Dir: pr.Dir, URL: pr.URL}
	if cfg.URL == "" {
		cfg.URL = t.url.Scheme + "://" + net.JoinHostPort(t.host, strconv.Itoa(t.port)) + "/debug/pprof/"
	}
	pt, err := parseTarget(cfg.URL)
	if err != nil {
		return profile.Config{}, configErr("Profile.URL", "invalid {Profile.URL} %q: want http[s]://host[:port]/debug/pprof/", hideCredentials(cfg.URL))
	}
	if pt.tls {
		if cfg.TLS, err = tc.config(pt.host); err != nil {
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

// prepareProfile prepares the capture of the target's profiles
// (profile.Prepare): it begins with the measured load (measure.begin).
// Without a profile request, or when the target has no pprof, it returns
// nil; then it warns once, before the load, and the run goes on.
func (o *options) prepareProfile(ctx context.Context, t *target, tc TLS) *profile.Capture {
	if o.profile.Kinds == "" {
		return nil
	}
	cfg, err := o.profile.config(t, tc)
	if o.progress != nil {
		cfg.LiveEvery = time.Second // for Progress.Server
	}
	if err == nil {
		var c *profile.Capture
		if c, err = profile.Prepare(ctx, cfg); err == nil {
			return c
		}
	}
	msg := "server profile: " + err.Error() + "; the run goes on without a profile"
	if _, ok := errors.AsType[*profile.NoPprofError](err); ok {
		msg += ` or a diagnosis (a Go server serves pprof with import _ "net/http/pprof")`
	}
	o.warn(msg)
	return nil
}

// serverLive is the capture's live readings as Progress shows them.
func serverLive(l profile.Live) ServerLive {
	return ServerLive{Known: l.Known, CPU: l.CPU, GC: l.GC, GCRecent: l.GCRecent}
}

// WritePGO writes the CPU profile of the runs' measured loads (each
// run's saved cpu.pb.gz, merged) to path, in the form `go build
// -pgo=path` takes. It fails when no run saved a CPU profile (the target
// must serve net/http/pprof and Profile.Kinds must hold cpu).
func WritePGO(path string, runs ...*Result) error {
	var files []string
	for _, r := range runs {
		if r == nil || r.Profile == nil {
			continue
		}
		for _, f := range r.Profile.Files {
			if f.Kind == string(profile.CPU) {
				files = append(files, f.Path)
			}
		}
	}
	if len(files) == 0 {
		return errors.New("no CPU profile was saved: the target must serve net/http/pprof, and Profile.Kinds must hold cpu")
	}
	return profile.WritePGO(path, files)
}
