package profile

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/pprof"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestMaxPause: the longest pause is taken over the cycles of the load
// only, through the ring's wrap, and over its last 256 when there were
// more.
func TestMaxPause(t *testing.T) {
	ring := func(numGC uint32, pauses map[uint32]uint64) *memStats {
		m := &memStats{NumGC: numGC}
		for cycle, p := range pauses {
			m.PauseNs[(cycle+255)%256] = p
		}
		return m
	}
	for _, tc := range []struct {
		name  string
		since uint32
		after *memStats
		want  time.Duration
	}{
		{"no cycle", 5, ring(5, map[uint32]uint64{5: 900}), 0},
		{"load's cycles only", 5, ring(7, map[uint32]uint64{5: 900, 6: 100, 7: 300}), 300},
		{"through the wrap", 255, ring(258, map[uint32]uint64{256: 50, 257: 70, 258: 60}), 70},
		{"last 256", 0, ring(300, map[uint32]uint64{45: 9, 300: 8}), 9}, // cycles 45..300 are in the ring
	} {
		if got := maxPause(tc.since, tc.after); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestRuntimeNoteSaysWhy: without runtime counters, the note tells a
// target without expvar (the page is missing: serve expvar) from a
// reading that failed (the connection broke: say when, and how), so
// that a broken fetch is not mistaken for a server to change.
func TestRuntimeNoteSaysWhy(t *testing.T) {
	for _, tc := range []struct {
		name string
		vars http.HandlerFunc
		want string
	}{
		{"no expvar", http.NotFound, "runtime: no memstats at http://%s/debug/vars (HTTP 404: 404 page not found): allocation and GC counts need expvar"},
		{"broken connection", func(w http.ResponseWriter, r *http.Request) {
			c, _, err := http.NewResponseController(w).Hijack()
			if err == nil {
				c.Write([]byte("\x01\x00\x00\x00\x00\x00\x00\x00HTTP/1.1 200 OK\r\n\r\n"))
				c.Close()
			}
		}, "runtime: cannot read the memstats at http://%s/debug/vars before the load: "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mux := http.NewServeMux()
			mux.HandleFunc("/debug/pprof/", pprof.Index)
			mux.HandleFunc("/debug/vars", tc.vars)
			srv := httptest.NewServer(mux)
			defer srv.Close()
			c, err := Start(context.Background(), Config{URL: srv.URL + "/debug/pprof/", Dir: t.TempDir(), Kinds: []Kind{Heap}})
			if err != nil {
				t.Fatal(err)
			}
			sp := c.Stop(1)
			want := fmt.Sprintf(tc.want, srv.Listener.Addr())
			if sp.Runtime != nil || !slices.ContainsFunc(sp.Notes, func(n string) bool { return strings.HasPrefix(n, want) }) {
				t.Errorf("runtime %+v, notes %q; want a note starting %q", sp.Runtime, sp.Notes, want)
			}
		})
	}
}
