package profile

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/gb-bench/gb/internal/testserver"
	"github.com/gb-bench/gb/internal/testsupport"
)

// TestCaptureLive reads the server's CPU and GC during a load that
// allocates: a merged CPU window gives busy cores, the vars poll GC cycles.
func TestCaptureLive(t *testing.T) {
	srv := testsupport.Server(t, testserver.Options{})
	c, err := Start(context.Background(), Config{URL: srv.URL() + "/debug/pprof/", Kinds: []Kind{CPU},
		Dir: filepath.Join(t.TempDir(), "p"), LiveEvery: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if l := c.Live(); l.Known {
		t.Errorf("Live before any reading = %+v, want unknown", l)
	}
	n := drive(t, srv.URL()+"/leftpad?str=x&len=20000&chr=0", 2500*time.Millisecond)
	l := c.Live()
	c.Stop(n)
	if !l.Known || l.CPU <= 0 || l.GC <= 0 || l.GCRecent < 0 || l.GCRecent > l.GC {
		t.Errorf("Live after %d allocating requests = %+v, want busy cores and GC cycles", n, l)
	}
	if l.CPU > 64 {
		t.Errorf("Live CPU = %.1f cores, not a plausible share", l.CPU)
	}
}

// TestCaptureLiveOff polls nothing without LiveEvery, and a nil capture
// knows nothing.
func TestCaptureLiveOff(t *testing.T) {
	srv := testsupport.Server(t, testserver.Options{})
	c, err := Start(context.Background(), Config{URL: srv.URL() + "/debug/pprof/", Kinds: []Kind{Heap},
		Dir: filepath.Join(t.TempDir(), "p")})
	if err != nil {
		t.Fatal(err)
	}
	n := drive(t, srv.URL()+"/leftpad?str=x&len=20000&chr=0", 1200*time.Millisecond)
	l := c.Live()
	c.Stop(n)
	if l.Known || l.GC != 0 {
		t.Errorf("Live without LiveEvery or cpu = %+v, want nothing known", l)
	}
	if l := (*Capture)(nil).Live(); l != (Live{}) {
		t.Errorf("nil Capture's Live = %+v", l)
	}
}
