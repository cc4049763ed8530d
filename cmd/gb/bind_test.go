package main

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// TestBindAddressOnBothEngines checks -B: every connection comes from the
// given local address, on either engine.
func TestBindAddressOnBothEngines(t *testing.T) {
	var mu sync.Mutex
	from := map[string]int{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host, _, _ := net.SplitHostPort(r.RemoteAddr)
		mu.Lock()
		from[host]++
		mu.Unlock()
		_, _ = io.WriteString(w, "ok")
	}))
	defer srv.Close()
	for _, engine := range []string{"loop", "goroutine"} {
		r := runGB(t, "--engine="+engine, "-B", "127.0.0.2", "-c", "2", "-n", "10", "-q", srv.URL+"/")
		if r.code != 0 || number(t, r.stdout, "Complete requests") != 10 {
			t.Fatalf("%s: exit %d\n%s%s", engine, r.code, r.stdout, r.stderr)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if from["127.0.0.2"] != 20 || len(from) != 1 {
		t.Errorf("requests by client address: %v, want 20 from 127.0.0.2", from)
	}
}
