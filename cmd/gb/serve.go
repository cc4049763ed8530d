package main

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"

	"github.com/gb-bench/gb/internal/getopt"
	"github.com/gb-bench/gb/internal/testserver"
)

// serveOptions is gb serve's command line.
type serveOptions struct {
	addr    string
	unix    string
	tls     bool
	noPprof bool
	public  bool
	help    bool
}

// serve runs the built-in target server until interrupted.
func serve(args []string, stdout, stderr io.Writer, sig <-chan os.Signal) int {
	so, err := parseServe(args)
	if err != nil {
		return failAs(stderr, "gb serve", err, nil)
	}
	if so.help {
		fmt.Fprint(stderr, serveUsage)
		return exitUsage
	}
	if err := checkLoopback(so.addr, so.public); err != nil {
		return failAs(stderr, "gb serve", err, nil)
	}
	srv, err := testserver.Start(testserver.Options{Addr: so.addr, TLS: so.tls, NoPprof: so.noPprof, Unix: so.unix})
	if err != nil {
		return failAs(stderr, "gb serve", err, nil)
	}
	printServer(stdout, srv)
	<-sig
	fmt.Fprintln(stdout, "gb serve: interrupted, shutting down")
	_ = srv.Close()
	return exitOK
}

const serveUsage = `Usage: gb serve [--addr 127.0.0.1:8080] [--tls] [--unix PATH] [--no-pprof] [--public]
    --addr host:port  Listen address (default 127.0.0.1:8080; port 0 = any free port);
                      HTTP/1.1, and HTTP/2 with prior knowledge (h2c)
    --tls             Also serve HTTPS (h2 and http/1.1 by ALPN) with a certificate generated at start,
                      and HTTP/3 (QUIC) on the same port number over UDP (announced by Alt-Svc)
    --unix PATH       Also serve HTTP/1.1 and h2c on a unix socket (a stale socket there is replaced)
    --no-pprof        Do not mount /debug/pprof/ and /debug/vars
    --public          Allow a non-loopback listen address
`

// serveSpecs are gb serve's options.
var serveSpecs = []getopt.Spec[serveOptions]{
	getopt.New(0, "addr", "host:port", "", func(o *serveOptions, v string) error { o.addr = v; return nil }),
	getopt.New(0, "tls", "", "", func(o *serveOptions, _ string) error { o.tls = true; return nil }),
	getopt.New(0, "unix", "PATH", "", func(o *serveOptions, v string) error {
		if v == "" {
			return errors.New("want a socket path")
		}
		o.unix = v
		return nil
	}),
	getopt.New(0, "no-pprof", "", "", func(o *serveOptions, _ string) error { o.noPprof = true; return nil }),
	getopt.New(0, "public", "", "", func(o *serveOptions, _ string) error { o.public = true; return nil }),
	getopt.New('h', "help", "", "", func(o *serveOptions, _ string) error { o.help = true; return nil }),
}

// parseServe parses gb serve's options; it takes no other argument.
func parseServe(args []string) (*serveOptions, error) {
	so := &serveOptions{addr: "127.0.0.1:8080"}
	rest, err := getopt.ParseAnywhere(args, serveSpecs, so)
	if err == nil && len(rest) > 0 {
		err = getopt.Errorf(false, "unexpected argument %q (see gb serve -h)", rest[0])
	}
	return so, err
}

// checkLoopback refuses to listen beyond this machine unless asked to.
func checkLoopback(addr string, public bool) error {
	host, port, err := net.SplitHostPort(addr)
	if n, perr := strconv.Atoi(port); err == nil && (perr != nil || n < 0 || n > 65535) {
		return getopt.Errorf(false, "invalid port %q in --addr (0..65535)", port)
	}
	if err != nil {
		return getopt.Errorf(false, "invalid --addr %q: want host:port", addr)
	}
	if public {
		return nil
	}
	ip := net.ParseIP(host)
	if host == "localhost" || (ip != nil && ip.IsLoopback()) {
		return nil
	}
	return getopt.Errorf(false, "%s is not a loopback address (add --public to listen on it)", host)
}

func printServer(w io.Writer, srv *testserver.Server) {
	fmt.Fprintf(w, "gb serve: listening\n")
	fmt.Fprintf(w, "  http:   %s\n", srv.URL())
	if u := srv.TLSURL(); u != "" {
		fmt.Fprintf(w, "  https:  %s (h2 and HTTP/1.1; CA certificate: gb serve prints it below)\n", u)
		fmt.Fprintf(w, "  h3:     %s (HTTP/3 over QUIC on the same port over UDP: gb --http3)\n", u)
	}
	if p := srv.UnixPath(); p != "" {
		fmt.Fprintf(w, "  unix:   %s (HTTP/1.1 and h2c; curl --unix-socket %s http://localhost/hello)\n", p, p)
	}
	fmt.Fprintf(w, "  faults: %s (raw TCP: exact bytes, FIN, RST)\n", srv.FaultURL())
	for _, fault := range []bool{false, true} {
		if fault {
			fmt.Fprintf(w, "Fault endpoints on %s:\n", srv.FaultURL())
		} else {
			fmt.Fprintf(w, "Endpoints on %s:\n", srv.URL())
		}
		for _, e := range srv.Endpoints() {
			if e.Fault == fault {
				fmt.Fprintf(w, "  %-20s %s\n", e.Path, e.Description)
			}
		}
	}
	if pem := srv.CACertPEM(); pem != nil {
		fmt.Fprintf(w, "CA certificate (save it and pass --cacert FILE to gb):\n%s", pem)
	}
	fmt.Fprintf(w, "Try: gb -k -c 50 -n 100000 %s/10k.dat\n", srv.URL())
}
