package main

import (
	"bytes"
	"fmt"
	"io"
	"sync"

	"github.com/gb-bench/gb"
	"github.com/gb-bench/gb/stats"
)

// dumpRequest prints the request's header section as ab does at -v 2,
// with credentials redacted.
func dumpRequest(w io.Writer, req []byte) {
	head, _, _ := bytes.Cut(req, []byte("\r\n\r\n"))
	lines := bytes.Split(head, []byte("\r\n"))
	method, _, _ := bytes.Cut(lines[0], []byte(" "))
	fmt.Fprintf(w, "INFO: %s header == \n---\n", method)
	for _, l := range lines {
		fmt.Fprintf(w, "%s\r\n", redactHeaderLine(string(l)))
	}
	fmt.Fprintf(w, "\r\n\n---\n")
}

// newObserver returns load's per-request hook for ab's -v levels: 2 warns
// about non-2xx responses, 3 logs every response code, 4 also logs every
// failure with its error.
func newObserver(w io.Writer, verbosity int) func(gb.Exchange) {
	var mu sync.Mutex
	return func(x gb.Exchange) {
		o := x.Outcome
		mu.Lock()
		defer mu.Unlock()
		switch {
		case o == stats.Non2xx:
			fmt.Fprintf(w, "WARNING: Response code not 2xx (%d)\n", x.Status)
		case o == stats.OK && verbosity >= 3:
			fmt.Fprintf(w, "LOG: Response code = %d\n", x.Status)
		case !o.Responded() && verbosity >= 4:
			fmt.Fprintf(w, "LOG: request %s: %s\n", o, stats.Printable(fmt.Sprint(x.Err)))
		}
	}
}
