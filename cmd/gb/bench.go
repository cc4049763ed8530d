package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"runtime"
	"strconv"
	"time"

	"github.com/gb-bench/gb/internal/client"
	"github.com/gb-bench/gb/internal/load"
	"github.com/gb-bench/gb/internal/outfile"
	"github.com/gb-bench/gb/internal/report"
	"github.com/gb-bench/gb/stats"
)

// plan is a validated benchmark, ready to run.
type plan struct {
	o       *options
	method  string
	bodyLen int64
	args    []string
	target  *target
	client  *client.Config
	load    load.Config
	stderr  io.Writer // warnings during the run (--profile); nil = os.Stderr
}

// bench is the ab-compatible benchmark mode.
func bench(args []string, stdout, stderr io.Writer, sig <-chan os.Signal) int {
	o := defaultOptions()
	rest, err := parseArgs(args, abSpecs, &o)
	switch {
	case err != nil:
		return fail(stderr, err)
	case o.help:
		printUsage(stderr)
		return exitUsage
	case o.version:
		_ = report.Banner(stdout, version, false)
		return exitOK
	case len(rest) != 1:
		return fail(stderr, usagef(true, "wrong number of arguments"))
	}
	p, err := prepare(&o, rest[0], args)
	if err == nil {
		err = p.chooseEngine()
	}
	if err != nil {
		return fail(stderr, err)
	}
	return p.execute(stdout, stderr, sig)
}

// fail prints err as one line (plus ab's usage for ab's usage errors) and
// returns the exit code: 22 for usage errors, 1 otherwise.
func fail(stderr io.Writer, err error) int {
	fmt.Fprintf(stderr, "gb: %v\n", err)
	var ue *usageError
	if !errors.As(err, &ue) {
		return exitFailure
	}
	if ue.withUsage {
		printUsage(stderr)
	}
	return exitUsage
}

// validate applies ab's checks, in ab's order, after parsing.
func validate(o *options) error {
	if o.concurrency < 1 || o.concurrency > 20000 {
		return usagef(true, "Invalid Concurrency [Range 1..20000]")
	}
	if o.pipeline > 1 && o.rate.Freq > 0 {
		return usagef(false, "--pipeline and -R cannot be combined (pipelining is closed-loop)")
	}
	if o.rate.Freq > 0 && o.timeLimit == 0 && !o.requestsSet {
		return usagef(false, "-R needs -n or -t: gb never runs unbounded")
	}
	if o.timeLimit > 0 && !o.requestsSet {
		return nil
	}
	if o.requests <= 0 {
		return usagef(false, "Invalid number of requests")
	}
	if int64(o.concurrency) > o.requests {
		return usagef(true, "Cannot use concurrency level greater than total number of requests")
	}
	return nil
}

// prepare validates everything that can be checked before the first
// connection: options, URL, request, TLS settings, output files, the body
// file and the host's address.
func prepare(o *options, rawURL string, args []string) (*plan, error) {
	t, err := parseTarget(rawURL)
	if err != nil {
		return nil, err
	}
	if err := validate(o); err != nil {
		return nil, err
	}
	if err := checkProfile(o, t); err != nil {
		return nil, err
	}
	if err := checkFileLimit(o.concurrency); err != nil {
		return nil, err
	}
	for _, f := range []struct{ flag, path string }{{"-g", o.gnuplotFile}, {"-e", o.csvFile}, {"--json", o.jsonFile}} {
		if f.path != "" {
			if err := outfile.Check(f.path); err != nil {
				return nil, fmt.Errorf("cannot write %s %s: %v", f.flag, f.path, err)
			}
		}
	}
	body, err := readBody(o)
	if err != nil {
		return nil, err
	}
	req, err := buildRequest(o, t, body)
	if err != nil {
		return nil, err
	}
	cc, err := clientConfig(o, t, req.Append(nil), req.Method)
	if err != nil {
		return nil, err
	}
	p := &plan{o: o, method: req.Method, bodyLen: int64(len(body)), args: args, target: t, client: cc}
	p.load = load.Config{
		Concurrency: o.concurrency,
		Requests:    o.requests,
		Duration:    o.timeLimit,
		KeepSamples: o.gnuplotFile != "" || o.csvFile != "",
		NewConn:     func(ctx context.Context) load.Conn { return client.NewFast(ctx, cc) },
	}
	if o.timeLimit > 0 && !o.requestsSet {
		p.load.Requests = 0
	}
	if o.rate.Freq > 0 {
		p.load.Pacer = o.rate
	}
	p.load.Pipeline, cc.Pipeline = o.pipeline, o.pipeline
	return p, nil
}

// clientConfig builds the shared client configuration, resolving the
// host (or the proxy) once so no request waits on DNS.
func clientConfig(o *options, t *target, reqBytes []byte, method string) (*client.Config, error) {
	cc := &client.Config{
		Request:    reqBytes,
		Head:       method == "HEAD",
		KeepAlive:  o.keepAlive,
		Idempotent: method == "GET" || method == "HEAD" || method == "PUT" || method == "DELETE" || method == "OPTIONS",
		Timeout:    o.timeout,
		SockBuf:    o.sockBuf,
		BufferSize: bufferSize(o.concurrency),

		ConnectTimeout:   o.connectTimeout,
		FirstByteTimeout: o.firstByteTimeout,
		HeaderTimeout:    o.headerTimeout,
		IdleTimeout:      o.idleTimeout,
	}
	host, port := t.host, strconv.Itoa(t.port)
	if o.proxy != "" {
		if t.tls {
			return nil, usagef(false, "-X with an https:// URL is not supported (gb does not tunnel through CONNECT)")
		}
		var err error
		if host, port, err = net.SplitHostPort(o.proxy); err != nil {
			return nil, usagef(false, "invalid -X %q: want proxy:port", o.proxy)
		}
	}
	ip, err := resolve(host)
	if err != nil {
		return nil, err
	}
	cc.Addr = net.JoinHostPort(ip, port)
	if o.bind != "" {
		bip := net.ParseIP(o.bind)
		if bip == nil {
			return nil, usagef(false, "invalid -B address %q: want an IP address", o.bind)
		}
		cc.LocalAddr = &net.TCPAddr{IP: bip}
	}
	if t.tls {
		if cc.TLS, err = tlsConfig(o, t); err != nil {
			return nil, err
		}
	}
	return cc, nil
}

// bufferSize is each connection's read buffer: 16 KiB (a 10 KiB response
// in one read) up to 4096 connections, then smaller so that all buffers
// together stay near 64 MiB, never below 4 KiB.
func bufferSize(concurrency int) int {
	return min(max((64<<20)/max(concurrency, 1), 4<<10), 16<<10)
}

// resolve returns host's first address, or the literal itself.
func resolve(host string) (string, error) {
	if ip := net.ParseIP(host); ip != nil {
		return ip.String(), nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	addrs, err := net.DefaultResolver.LookupIPAddr(ctx, host)
	if err != nil || len(addrs) == 0 {
		var dns *net.DNSError
		if errors.As(err, &dns) {
			err = errors.New(dns.Err)
		}
		return "", fmt.Errorf("cannot resolve host %q: %v", host, err)
	}
	for _, a := range addrs {
		if a.IP.To4() != nil {
			return a.IP.String(), nil
		}
	}
	return addrs[0].IP.String(), nil
}

// execute runs the plan and prints and writes its results.
func (p *plan) execute(stdout, stderr io.Writer, sig <-chan os.Signal) int {
	runtime.GOMAXPROCS(p.procs())
	if p.o.jsonFile == "-" {
		stdout = stderr // stdout carries the JSON result alone
	}
	prog := newProgress(p.o, stderr)
	_ = report.Banner(stdout, version, p.o.html)
	if !p.o.html {
		_ = report.Benchmarking(stdout, p.target.host, p.o.proxy, prog.on)
	}
	if p.o.verbosity >= 2 {
		dumpRequest(stdout, p.client.Request)
	}
	if prog.on {
		p.load.Progress = prog.update
	}
	if p.o.verbosity >= 2 {
		p.load.Observe = newObserver(stdout, p.o.verbosity)
	}
	p.stderr = stderr
	res, err := p.runLoad(sig)
	if err != nil {
		return fail(stderr, err)
	}
	prog.finish(res)
	if !prog.on {
		_ = report.Done(stdout)
	}
	return p.conclude(res, stdout, stderr)
}

// cpus is gb's GOMAXPROCS: -G, or, when the target is on this machine,
// half the cores (at least one), leaving the rest to the server: measured
// on 2 cores against nginx, a second gb thread costs about 30% more CPU per
// request and gains no throughput (bench/RESULTS.md). A remote target gets
// every core.
func (p *plan) cpus() int {
	if p.o.cpus > 0 {
		return p.o.cpus
	}
	host, _, _ := net.SplitHostPort(p.client.Addr)
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return max(1, runtime.NumCPU()/2)
	}
	return runtime.NumCPU()
}

// runLoad runs the engine; the first signal stops it, a second exits.
func (p *plan) runLoad(sig <-chan os.Signal) (*stats.Result, error) {
	run, err := load.New(p.load)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan struct{})
	defer close(done)
	go func() {
		select {
		case <-sig:
			cancel()
			select {
			case <-sig:
				os.Exit(exitFailure)
			case <-done:
			}
		case <-done:
		}
	}()
	capture := p.startProfile(ctx)
	before := readSelf()
	res := run.Run(ctx, p.base())
	res.Client = selfCost(before, readSelf())
	res.Client.Engine = p.engine()
	if p.load.Loops > 0 {
		res.Client.MaxProcs = p.load.Loops // the spare P only runs gb's housekeeping
	}
	stopProfile(capture, res)
	return res, nil
}
