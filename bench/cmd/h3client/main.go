// Command h3client is the yardstick for gb --http3's cost: quic-go's own
// HTTP/3 client (http3.Transport, net/http's RoundTripper) making the same
// requests gb makes with -c connections and --streams requests in flight
// on each, each response body read to its end. It prints the requests
// done, the failures, and its CPU time per request.
//
//	go run ./bench/cmd/h3client -c 4 -streams 8 -n 100000 -cacert ca.pem https://127.0.0.1:8443/bytes/6
package main

import (
	"crypto/tls"
	"crypto/x509"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/quic-go/quic-go/http3"
)

func main() {
	conns := flag.Int("c", 1, "QUIC connections (one http3.Transport each)")
	streams := flag.Int("streams", 1, "requests in flight per connection")
	n := flag.Int64("n", 10000, "requests in all")
	cacert := flag.String("cacert", "", "PEM file of the CA to trust; empty = skip verification")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: h3client [-c N] [-streams N] [-n N] [-cacert FILE] https://HOST:PORT/PATH")
		os.Exit(22)
	}
	tc := &tls.Config{InsecureSkipVerify: *cacert == ""}
	if *cacert != "" {
		pem, err := os.ReadFile(*cacert)
		if err != nil {
			fmt.Fprintln(os.Stderr, "h3client:", err)
			os.Exit(1)
		}
		tc.RootCAs = x509.NewCertPool()
		tc.RootCAs.AppendCertsFromPEM(pem)
	}
	url := flag.Arg(0)
	var left atomic.Int64
	left.Store(*n)
	var ok, failed atomic.Int64
	start := time.Now()
	var wg sync.WaitGroup
	for range *conns {
		tr := &http3.Transport{TLSClientConfig: tc, DisableCompression: true}
		cl := &http.Client{Transport: tr}
		for range *streams {
			wg.Go(func() { loop(cl, url, &left, &ok, &failed) })
		}
		defer tr.Close()
	}
	wg.Wait()
	took := time.Since(start)
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	cpu := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	done := ok.Load() + failed.Load()
	fmt.Printf("requests %d ok %d failed %d in %.3fs: %.0f req/s, cpu %.3fs, %.2f cpu-s per 100k requests\n",
		done, ok.Load(), failed.Load(), took.Seconds(), float64(done)/took.Seconds(), cpu.Seconds(),
		cpu.Seconds()/float64(max(done, 1))*1e5)
}

// loop makes requests until the budget is spent.
func loop(cl *http.Client, url string, left, ok, failed *atomic.Int64) {
	for left.Add(-1) >= 0 {
		res, err := cl.Get(url)
		if err != nil {
			failed.Add(1)
			continue
		}
		_, err = io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if err != nil || res.StatusCode/100 != 2 {
			failed.Add(1)
			continue
		}
		ok.Add(1)
	}
}
