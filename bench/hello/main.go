// Command hello is the Go net/http target of bench/: every path answers
// "Hello, World!" (13 bytes, text/plain). It runs with GOMAXPROCS=1 by
// default so that, like the 1-worker nginx beside it, it uses one core and
// leaves the other to the client under test. It prints its URL on the first
// line of stdout and serves until it is killed.
package main

import (
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"runtime"
)

var body = []byte("Hello, World!")

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "listen address (port 0: a free port)")
	procs := flag.Int("procs", 1, "GOMAXPROCS")
	flag.Parse()
	runtime.GOMAXPROCS(*procs)
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Fprintf(os.Stdout, "http://%s\n", ln.Addr())
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hdr := w.Header()
		hdr["Content-Type"] = []string{"text/plain; charset=utf-8"} // no sniffing per response
		hdr["Content-Length"] = []string{"13"}
		_, _ = w.Write(body)
	})
	log.Fatal(http.Serve(ln, h))
}
