package main

import (
	"context"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// initTrace is one package's line of GODEBUG=inittrace=1: the bytes its
// package initialisation allocated on the heap.
type initTrace struct {
	pkg   string
	bytes int64
}

// startupInits runs the built gb with args under GODEBUG=inittrace=1 and
// returns the packages initialised, in order, with the bytes each one's
// init allocated. Bytes, not times: they do not depend on the machine's
// load.
func startupInits(t *testing.T, args ...string) []initTrace {
	t.Helper()
	bin := gbBin(t) // built before the minute starts
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("gb %q: %v\n%s", args, err, stderr.String())
	}
	var out []initTrace
	for line := range strings.Lines(stderr.String()) {
		// init PKG @T ms, C ms clock, B bytes, A allocs
		f := strings.Fields(line)
		if len(f) < 11 || f[0] != "init" || f[8] != "bytes," {
			continue
		}
		b, err := strconv.ParseInt(f[7], 10, 64)
		if err != nil {
			t.Fatalf("inittrace line %q: %v", line, err)
		}
		out = append(out, initTrace{f[1], b})
	}
	if len(out) == 0 {
		t.Fatalf("gb %q printed no inittrace lines:\n%s", args, stderr.String())
	}
	return out
}

// TestStartupIsLean guards what gb version (the start of every gb)
// initialises. Measured with go1.26 (bench/RESULTS.md, "Wave 3, second
// session: lean binary"): 0.93 MB allocated by all package inits, 13 KB of
// them by gb's own packages (91 KB before their tables were made lazy),
// and no Kubernetes client package linked. The bounds are generous: a
// dependency's update does not fail this, a new table built at start in
// gb, or a dependency that brings hundreds of kilobytes of init, does.
func TestStartupIsLean(t *testing.T) {
	skipUnderRace(t)
	inits := startupInits(t, "version")
	var total, own int64
	for _, it := range inits {
		total += it.bytes
		if it.pkg == "main" || strings.HasPrefix(it.pkg, "github.com/gb-bench/gb") {
			own += it.bytes
			if it.bytes > 8<<10 {
				t.Errorf("package %s allocates %d bytes at start; build its tables at first use (sync.OnceValue)", it.pkg, it.bytes)
			}
		}
		for _, banned := range []string{"k8s.io/", "sigs.k8s.io/", "testing"} {
			if it.pkg == strings.TrimSuffix(banned, "/") || strings.HasPrefix(it.pkg, banned) {
				t.Errorf("gb initialises %s: gb k8s job writes its YAML without the Kubernetes client packages, and the binary links no test code", it.pkg)
			}
		}
	}
	t.Logf("%d packages initialised, %d bytes allocated by their inits (%d by gb's own)", len(inits), total, own)
	if own > 32<<10 {
		t.Errorf("gb's own packages allocate %d bytes at start (bound 32 KiB)", own)
	}
	if total > 1536<<10 {
		t.Errorf("package inits allocate %d bytes at start (bound 1.5 MiB; 0.93 MB measured)", total)
	}
}
