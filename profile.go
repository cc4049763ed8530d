package gb

import (
	"errors"
	"net"
	"strconv"

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

// ServerLive is what WithProfile's capture reads from the server while
// the load runs: CPU from its cpu profile windows, GC from its
// /debug/vars polled once a second. The zero value means nothing read
// (no capture, no expvar, or no window closed yet).
type ServerLive struct {
	Known    bool    // CPU or GC was read at least once
	CPU      float64 // cores the server was busy in the last CPU window; 0 without the cpu kind
	GC       int64   // GC cycles since the load started
	GCRecent int64   // GC cycles in the last second
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
