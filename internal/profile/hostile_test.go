package profile

import (
	"bytes"
	"compress/gzip"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// hostile serves a pprof index and answers every profile, trace and
// expvar request with reply.
func hostile(t *testing.T, reply http.HandlerFunc) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/{$}", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("profiles")) })
	mux.HandleFunc("/debug/pprof/{name}", reply)
	mux.HandleFunc("/debug/vars", reply)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// gzipped compresses n zero bytes (a gzip bomb: n/1000 bytes on the wire).
func gzipped(n int) []byte {
	var b bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
	zero := make([]byte, 1<<20)
	for n > 0 {
		k := min(n, len(zero))
		zw.Write(zero[:k])
		n -= k
	}
	zw.Close()
	return b.Bytes()
}

func TestHostileTarget(t *testing.T) {
	bomb := gzipped(256 << 20)
	var nestedBody bytes.Buffer
	zw := gzip.NewWriter(&nestedBody)
	zw.Write(gzipped(1 << 10))
	zw.Close()
	for _, tc := range []struct {
		name  string
		reply http.HandlerFunc
		want  string // in every kind's note
	}{
		{"huge body", func(w http.ResponseWriter, r *http.Request) {
			chunk := make([]byte, 64<<10)
			for range 1 << 12 { // 256 MiB, unless the client hangs up
				if _, err := w.Write(chunk); err != nil {
					return
				}
			}
		}, "larger than the cap"},
		{"announced huge body", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Length", "1099511627776")
			w.Write([]byte("x"))
		}, "larger than the cap"},
		{"gzip bomb", func(w http.ResponseWriter, r *http.Request) { w.Write(bomb) }, "larger than the cap"},
		{"nested gzip", func(w http.ResponseWriter, r *http.Request) { w.Write(nestedBody.Bytes()) }, "nested gzip"},
		{"html", func(w http.ResponseWriter, r *http.Request) {
			w.Write([]byte("<html><body>Total: 100% \x1b[31mprofile</body></html>\n"))
		}, "not a"},
		{"server error", func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, "Could not enable CPU profiling: cpu profiling already in use\x1b[0m", http.StatusInternalServerError)
		}, "HTTP 500: Could not enable CPU profiling: cpu profiling already in use?[0m"},
		{"redirect to another host", func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "http://198.51.100.1/steal", http.StatusFound)
		}, "refusing a redirect to another host"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := hostile(t, tc.reply)
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			dir := filepath.Join(t.TempDir(), "p")
			c, err := Start(context.Background(), Config{URL: srv.URL + "/debug/pprof/", Dir: dir,
				Kinds:   []Kind{CPU, Allocs, Goroutine, Trace},
				MaxBody: 1 << 20, MaxData: 4 << 20, MaxTrace: 1 << 20})
			if err != nil {
				t.Fatal(err)
			}
			sp := c.Stop(100)
			runtime.ReadMemStats(&after)
			if sp.CPU != nil || sp.Allocs != nil || sp.Runtime != nil || len(sp.Files) != 0 {
				t.Errorf("hostile data was kept: %+v", sp)
			}
			for _, k := range []string{"cpu", "allocs", "goroutine", "trace", "runtime"} {
				found := false
				for _, n := range sp.Notes {
					if strings.HasPrefix(n, k+":") {
						found = true
						if k != "runtime" && k != "trace" && !strings.Contains(n, tc.want) {
							t.Errorf("note %q does not say %q", n, tc.want)
						}
					}
				}
				if !found {
					t.Errorf("no note for %s: %q", k, sp.Notes)
				}
			}
			// Caps of 1 and 4 MiB: each fetch allocates a few times its cap
			// (read buffers), about ten fetches in all; reading or
			// decompressing the 256 MiB offered would allocate far more.
			if grew := after.TotalAlloc - before.TotalAlloc; grew > 128<<20 {
				t.Errorf("capture allocated %d MiB", grew>>20)
			}
			if d := sp.Diagnosis; d == nil || d.Scheduling != nil ||
				!slices.ContainsFunc(d.Missing, func(m string) bool { return strings.HasPrefix(m, "scheduling: ") }) {
				t.Errorf("diagnosis of a hostile trace: %+v", d)
			}
			if _, err := os.Stat(dir); !os.IsNotExist(err) {
				t.Errorf("empty profile folder left behind: %v", err)
			}
		})
	}
}

// TestGarbageTrace: a trace that starts like one and then is garbage is
// saved as served (the user may open it), and the diagnosis says in one
// missing line that it could not be analysed, instead of guessing.
func TestGarbageTrace(t *testing.T) {
	srv := hostile(t, func(w http.ResponseWriter, r *http.Request) {
		if r.PathValue("name") != "trace" {
			http.NotFound(w, r)
			return
		}
		w.Write([]byte("go 1.26 trace\x00\x00\x00"))
		w.Write(bytes.Repeat([]byte("\x07garbage\x1b[2J"), 1000))
	})
	c, err := Start(context.Background(), Config{URL: srv.URL + "/debug/pprof/", Dir: t.TempDir(), Kinds: []Kind{Trace}})
	if err != nil {
		t.Fatal(err)
	}
	sp := c.Stop(100)
	d := sp.Diagnosis
	if len(sp.Files) != 1 || d == nil || d.Scheduling != nil ||
		!slices.ContainsFunc(d.Missing, func(m string) bool { return strings.HasPrefix(m, "scheduling: the trace could not be analysed: ") }) {
		t.Errorf("files %+v, diagnosis %+v", sp.Files, d)
	}
}
