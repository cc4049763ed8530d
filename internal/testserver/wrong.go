package testserver

import (
	"net/http"
	"strconv"
	"sync/atomic"

	"github.com/gb-bench/gb/internal/testserver/shape"
)

// wrongRoute answers a right body most of the time and a wrong one, with
// the same status and length, to every nth request it serves: a
// deterministic target for gb's --check (n = 100: -n 1000 gets exactly 10
// wrong bodies, whatever the concurrency). Each server counts its own.
func wrongRoute() httpRoute {
	var served atomic.Int64
	return httpRoute{"/wrong", `?n=100 {"ok":true} as application/json, but {"no":true} with X-Wrong: 1 to every nth request`,
		func(_ *Server, w http.ResponseWriter, r *http.Request) {
			n := 100
			if v := r.URL.Query().Get("n"); v != "" {
				var err error
				if n, err = shape.ParseInt(v, 1, 1<<30); err != nil {
					badRequest(w, err)
					return
				}
			}
			body := `{"ok":true}`
			if served.Add(1)%int64(n) == 0 {
				body = `{"no":true}`
				w.Header().Set("X-Wrong", "1")
			}
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Content-Length", strconv.Itoa(len(body)))
			w.Write([]byte(body))
		}}
}
