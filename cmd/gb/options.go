package main

import (
	"errors"
	"io"
	"strconv"

	"time"

	"github.com/gb-bench/gb"
	"github.com/gb-bench/gb/internal/check"
	"github.com/gb-bench/gb/internal/getopt"
	"github.com/gb-bench/gb/internal/threshold"
)

// options holds the parsed command line of the benchmark (ab) mode: the
// load itself (cfg, handed to gb.Run as is) and what only the command line
// knows (files, report choices, progress). The zero value is not ab's
// defaults: use defaultOptions.
type options struct {
	cfg         gb.Config
	requestsSet bool       // -n was given
	profile     gb.Profile // --profile, --profile-url, --profile-dir
	pgoFile     string     // --pgo: the load's CPU profile for go build -pgo

	postFile, putFile string // -p, -u
	methodKind        string // the -i/-p/-u choice, for ab's "Cannot mix" rule

	verbosity                       int           // -v
	html                            bool          // -w
	tableAttrs, rowAttrs, cellAttrs string        // -x, -y, -z
	version, help                   bool          // -V, -h
	noPercentiles, noConfidence     bool          // -d, -S
	quiet                           bool          // -q
	live                            string        // --live: auto (""), on or off
	recvErrors                      bool          // -r (gb never exits on receive errors)
	gnuplotFile, csvFile, jsonFile  string        // -g, -e, --json
	htmlFile, hgrmFile, hlogFile    string        // --html, --hgrm, --hlog
	junitFile, benchOut             string        // --junit, --bench-out
	thresholds                      []string      // --threshold, in order
	repeat                          int           // --repeat; 0 = one run
	pause                           time.Duration // --pause between repeated runs
	stdout                          io.Writer     // the command's stdout, where "-" files go
	moreURLs                        []string      // the URLs after the first (several targets)
	targetsFile                     string        // --targets
	targetsFormat                   string        // --targets-format; "" = http
	lazy                            bool          // --lazy
	metrics                         metricsFlags  // --metrics-addr, --metrics-buckets, --metrics-linger
	web                             webFlags      // --web, --web-linger
}

func defaultOptions() options {
	return options{cfg: gb.Config{Requests: 1, Concurrency: 1, Timeout: 30 * time.Second}}
}

// flagSpec is one of gb's options.
type flagSpec = getopt.Spec[options]

var opt = getopt.New[options]

// abSpecs are ab 2.4's options in its usage order, then gb's additions.
var abSpecs = []flagSpec{
	opt('n', "requests", "requests", "Number of requests to perform", func(o *options, v string) error {
		n, err := getopt.Count(v)
		o.cfg.Requests, o.requestsSet = n, true
		return err
	}),
	opt('c', "concurrency", "concurrency", "Number of multiple requests to make at a time", func(o *options, v string) (err error) {
		o.cfg.Concurrency, err = getopt.Int(v)
		return err
	}),
	opt('t', "timelimit", "timelimit", "Seconds to max. to spend on benchmarking\n(with -n, whichever comes first; no 50000 cap)", func(o *options, v string) (err error) {
		o.cfg.Duration, err = getopt.Seconds(v)
		return err
	}),
	opt('s', "timeout", "timeout", "Seconds to max. wait for each response\nDefault is 30 seconds", func(o *options, v string) (err error) {
		o.cfg.Timeout, err = getopt.Seconds(v)
		return err
	}),
	opt('b', "windowsize", "windowsize", "Size of TCP send/receive buffer, in bytes", func(o *options, v string) (err error) {
		o.cfg.SockBuf, err = getopt.Positive(v)
		return err
	}),
	opt('B', "bind", "address", "Address to bind to when making outgoing connections\n(a list a,b or a range a-b: connections spread over them)", setString(func(o *options) *string { return &o.cfg.LocalAddr })),
	opt('p', "postfile", "postfile", "File containing data to POST. Remember also to set -T", func(o *options, v string) error {
		o.postFile = v
		return o.setMethodKind("POST")
	}),
	opt('u', "putfile", "putfile", "File containing data to PUT. Remember also to set -T", func(o *options, v string) error {
		o.putFile = v
		return o.setMethodKind("PUT")
	}),
	opt('T', "content-type", "content-type", "Content-type header to use for POST/PUT data, eg.\n'application/x-www-form-urlencoded'\nDefault is 'text/plain'", setString(func(o *options) *string { return &o.cfg.ContentType })),
	opt('v', "verbosity", "verbosity", "How much troubleshooting info to print", func(o *options, v string) (err error) {
		o.verbosity, err = getopt.Int(v)
		return err
	}),
	opt('w', "html-tables", "", "Print out results in HTML tables", setBool(func(o *options) *bool { return &o.html })),
	opt('i', "head", "", "Use HEAD instead of GET", func(o *options, _ string) error { return o.setMethodKind("HEAD") }),
	opt('x', "table-attrs", "attributes", "String to insert as table attributes", func(o *options, v string) error { o.tableAttrs, o.html = v, true; return nil }),
	opt('y', "tr-attrs", "attributes", "String to insert as tr attributes", func(o *options, v string) error { o.rowAttrs, o.html = v, true; return nil }),
	opt('z', "td-attrs", "attributes", "String to insert as td or th attributes", func(o *options, v string) error { o.cellAttrs, o.html = v, true; return nil }),
	opt('C', "cookie", "attribute", "Add cookie, eg. 'Apache=1234'. (repeatable)", func(o *options, v string) error { o.cfg.Cookies = append(o.cfg.Cookies, v); return nil }),
	opt('H', "header", "attribute", "Add Arbitrary header line, eg. 'Accept-Encoding: gzip'\nInserted after all normal header lines. (repeatable)", func(o *options, v string) error { o.cfg.Headers = append(o.cfg.Headers, v); return nil }),
	opt('A', "auth", "attribute", "Add Basic WWW Authentication, the attributes\nare a colon separated username and password.", setString(func(o *options) *string { return &o.cfg.BasicAuth })),
	opt('P', "proxy-auth", "attribute", "Add Basic Proxy Authentication, the attributes\nare a colon separated username and password.", setString(func(o *options) *string { return &o.cfg.ProxyAuth })),
	opt('X', "proxy", "proxy:port", "Proxyserver and port number to use\n(https:// URLs go through it with CONNECT)", setString(func(o *options) *string { return &o.cfg.Proxy })),
	opt('V', "version", "", "Print version number and exit", setBool(func(o *options) *bool { return &o.version })),
	opt('k', "keepalive", "", "Use HTTP KeepAlive feature", setBool(func(o *options) *bool { return &o.cfg.KeepAlive })),
	opt('d', "no-percentiles", "", "Do not show percentiles served table.", setBool(func(o *options) *bool { return &o.noPercentiles })),
	opt('S', "no-confidence", "", "Do not show confidence estimators and warnings.", setBool(func(o *options) *bool { return &o.noConfidence })),
	opt('q', "quiet", "", "Do not show progress when doing more than 150 requests", setBool(func(o *options) *bool { return &o.quiet })),
	opt('l', "variable-length", "", "Accept variable document length (use this for dynamic pages)", setBool(func(o *options) *bool { return &o.cfg.VariableLength })),
	opt('g', "gnuplot", "filename", "Output collected data to gnuplot format file.", setString(func(o *options) *string { return &o.gnuplotFile })),
	opt('e', "csv", "filename", "Output CSV file with percentages served", setString(func(o *options) *string { return &o.csvFile })),
	opt('r', "recv-errors", "", "Don't exit on socket receive errors. (gb never does)", setBool(func(o *options) *bool { return &o.recvErrors })),
	opt('m', "method", "method", "Method name", setString(func(o *options) *string { return &o.cfg.Method })),
	opt('h', "help", "", "Display usage information (this message)", setBool(func(o *options) *bool { return &o.help })),
	opt('I', "no-sni", "", "Disable TLS Server Name Indication (SNI) extension", setBool(func(o *options) *bool { return &o.cfg.TLS.NoSNI })),
	opt('Z', "ciphers", "ciphersuite", "Specify SSL/TLS cipher suite: Go (IANA) names, comma\nseparated, eg. TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256", setString(func(o *options) *string { return &o.cfg.TLS.Ciphers })),
	opt('f', "protocol", "protocol", "Specify SSL/TLS protocol\n(TLS1, TLS1.1, TLS1.2, TLS1.3 or ALL)", setString(func(o *options) *string { return &o.cfg.TLS.Protocol })),
	opt('E', "cert", "certfile", "Specify optional client certificate chain and private key", setString(func(o *options) *string { return &o.cfg.TLS.CertFile })),
	opt('G', "cpus", "cpus", "Number of CPUs gb may use (one event loop each); default half\nthe cores for a local target, all for a remote one", func(o *options, v string) (err error) {
		o.cfg.CPUs, err = getopt.Positive(v)
		return err
	}),
	opt('R', "rate", "rate", "Send requests at this global rate (2000, 50/1s) on a fixed schedule;\nlatency is then measured from each request's intended send time", func(o *options, v string) (err error) {
		o.cfg.Rate, err = gb.ParseRate(v)
		return err
	}),
	opt(0, "pipeline", "depth", "HTTP/1.1 pipelining: send depth requests at once on each\nconnection (implies -k; closed loop only)", func(o *options, v string) (err error) {
		o.cfg.Pipeline, err = getopt.Positive(v)
		o.cfg.KeepAlive = true
		return err
	}),
	opt(0, "http2", "", "Speak HTTP/2 over TLS (https:// URLs; ALPN h2, an error if the\nserver does not choose it); connections are kept alive", func(o *options, _ string) error {
		o.cfg.Protocol = gb.ProtocolHTTP2
		return nil
	}),
	opt(0, "h2c", "", "Speak HTTP/2 over cleartext TCP (http:// URLs, prior knowledge);\nnot with -X (an http:// URL goes to a proxy as HTTP/1.1)", func(o *options, _ string) error {
		o.cfg.Protocol = gb.ProtocolH2C
		return nil
	}),
	opt(0, "http3", "", "Speak HTTP/3 over QUIC (https:// URLs; UDP to the URL's port,\nALPN h3); connections are kept alive; with --tls-resume, GET and\nHEAD go in 0-RTT when the server takes early data; not with -X or\n--unix-socket (QUIC is UDP to a host), --script (its requests are\nHTTP/1.1 bytes) or --lazy (its requests fill one slot per worker)", func(o *options, _ string) error {
		o.cfg.Protocol = gb.ProtocolHTTP3
		return nil
	}),
	opt(0, "streams", "n", "HTTP/2 and HTTP/3: requests in flight on each connection\n(h2load's -m; default 1); the server's stream limit may lower it", func(o *options, v string) (err error) {
		o.cfg.Streams, err = getopt.Positive(v)
		return err
	}),
	opt(0, "engine", "name", "How connections are driven: loop (event loops over epoll),\nloop-tasks (the same, every request on its coroutine), goroutine\n(one per connection) or auto (default: loop on Linux)", func(o *options, v string) error {
		switch e := gb.Engine(v); e {
		case gb.EngineAuto, gb.EngineLoop, gb.EngineLoopTasks, gb.EngineGoroutine:
			o.cfg.Engine = e
			return nil
		}
		return errors.New("want auto, loop, loop-tasks or goroutine")
	}),
	opt(0, "live", "when", "Live panel on stderr while the load runs: auto (default: when\nstderr is a terminal), on or off (ab's progress lines)", func(o *options, v string) error {
		switch v {
		case "auto", "on", "off":
			o.live = v
			return nil
		}
		return errors.New("want auto, on or off")
	}),
	opt(0, "connect-timeout", "seconds", "Deadline to connect (and handshake); default -s", durationFlag(func(o *options) *time.Duration { return &o.cfg.ConnectTimeout })),
	opt(0, "first-byte-timeout", "seconds", "Deadline from the request written to the first response byte", durationFlag(func(o *options) *time.Duration { return &o.cfg.FirstByteTimeout })),
	opt(0, "header-timeout", "seconds", "Deadline from the first byte to the end of the header section", durationFlag(func(o *options) *time.Duration { return &o.cfg.HeaderTimeout })),
	opt(0, "idle-timeout", "seconds", "Longest wait for the next body bytes", durationFlag(func(o *options) *time.Duration { return &o.cfg.IdleTimeout })),
	opt(0, "profile", "[kinds]", "Capture the target's pprof profiles during the run:\ncpu,heap,allocs,goroutine,block,mutex,trace (bare: cpu,allocs)", func(o *options, v string) error {
		if v == "" {
			v = "cpu,allocs"
		}
		o.profile.Kinds = v
		return nil
	}),
	opt(0, "profile-url", "url", "pprof base URL (default: the target's /debug/pprof/)", setString(func(o *options) *string { return &o.profile.URL })),
	opt(0, "profile-dir", "dir", "Where to save profiles (default: a new ./gb-profiles/<time>)", setString(func(o *options) *string { return &o.profile.Dir })),
	opt(0, "pgo", "file", "Write the load's server CPU profile (merged over --repeat) for\ngo build -pgo=file; turns on --profile=cpu when not given", setString(func(o *options) *string { return &o.pgoFile })),
	opt(0, "insecure", "", "Do not verify the server's TLS certificate", setBool(func(o *options) *bool { return &o.cfg.TLS.Insecure })),
	opt(0, "cacert", "file", "Trust the CA certificates in this PEM file", setString(func(o *options) *string { return &o.cfg.TLS.CAFile })),
	opt(0, "tls-resume", "", "New TLS connections resume the sessions earlier ones got\n(tickets); default: a full handshake each", setBool(func(o *options) *bool { return &o.cfg.TLS.Resume })),
	opt(0, "compressed", "", "Send Accept-Encoding: gzip, br, zstd (unless -H sets one) and\ncheck that every body decodes; reports decoded sizes", setBool(func(o *options) *bool { return &o.cfg.Compressed })),
	opt(0, "max-decoded", "bytes", "With --compressed: a body decoding to more bytes fails\n(failed.decode; default 268435456)", func(o *options, v string) error {
		n, err := getopt.Positive(v)
		o.cfg.MaxDecoded = int64(n)
		return err
	}),
	opt(0, "json", "file", "Write the whole result as JSON to file (- = stdout)", setString(func(o *options) *string { return &o.jsonFile })),
	opt(0, "html", "file", "Write an HTML report with charts (one file, opens offline)", setString(func(o *options) *string { return &o.htmlFile })),
	opt(0, "hgrm", "file", "Write the latency percentile distribution (HdrHistogram .hgrm)", setString(func(o *options) *string { return &o.hgrmFile })),
	opt(0, "hlog", "file", "Write one histogram per --interval (HdrHistogram interval log)", setString(func(o *options) *string { return &o.hlogFile })),
	opt(0, "interval", "duration", "Length of each point of the time series (default 1s)", durationFlag(func(o *options) *time.Duration { return &o.cfg.Interval })),
	opt(0, "threshold", "expr", "Pass/fail check on the result, e.g. 'p99<50ms', 'errors<0.1%',\n'rps>=1000' (repeatable); a failure exits 99", func(o *options, v string) error {
		if _, err := threshold.Parse(v); err != nil {
			return getopt.Errorf(false, "--threshold %q: %v", v, err)
		}
		o.thresholds = append(o.thresholds, v)
		return nil
	}),
	opt(0, "check", "expr", "Check every response (repeatable): 'status==200', 'size>=100',\n'status in 200,204', 'body contains ok', 'body matches RE',\n'header[Content-Type] contains json'; one that fails is failed.check", func(o *options, v string) error {
		if _, err := check.Parse(v); err != nil {
			var ce *check.Error
			if errors.As(err, &ce) {
				return getopt.Errorf(false, "--check %q: %s", ce.Expr, ce.Msg)
			}
			return getopt.Errorf(false, "--check: %v", err)
		}
		o.cfg.Checks = append(o.cfg.Checks, v)
		return nil
	}),
	opt(0, "junit", "file", "Write the thresholds as JUnit XML (one testcase each)", setString(func(o *options) *string { return &o.junitFile })),
	opt(0, "warmup", "duration", "Apply the load this long before measuring; its requests are\ncounted apart (the JSON's warmup)", durationFlag(func(o *options) *time.Duration { return &o.cfg.Warmup })),
	opt(0, "repeat", "k", "Run the same load k times; the JSON holds every run, the report\nthe median run's with a line of spread", func(o *options, v string) (err error) {
		o.repeat, err = getopt.Positive(v)
		return err
	}),
	opt(0, "pause", "duration", "Pause between repeated runs (default none)", func(o *options, v string) (err error) {
		o.pause, err = getopt.Seconds(v)
		return err
	}),
	opt(0, "shard", "I/N", "Do shard I (from 0) of N's share of -n, -R and -c, as one of N\nprocesses that split the load (merge their --json with gb merge)", func(o *options, v string) (err error) {
		if o.cfg.Shard, err = gb.ParseShard(v); err != nil {
			return getopt.Errorf(false, "--shard: %v", err)
		}
		return nil
	}),
	opt(0, "start-at", "time", "Start the load at this wall-clock time (RFC 3339, e.g.\n2026-11-24T21:00:00Z), so that shards start together", func(o *options, v string) error {
		t, err := time.Parse(time.RFC3339, v)
		switch {
		case err != nil:
			return getopt.Errorf(false, "--start-at %q: want an RFC 3339 time, e.g. 2026-11-24T21:00:00Z", v)
		case time.Until(t) < -time.Second:
			return getopt.Errorf(false, "--start-at %s is %v in the past", v, -time.Until(t).Round(time.Second))
		}
		o.cfg.StartAt = t
		return nil
	}),
	opt(0, "targets", "file", "Send the load to the targets of this file too (vegeta's http format:\n\"METHOD URL\", header lines, @bodyfile; blank lines between); over\nHTTP/2 targets on several addresses take --streams 1", setString(func(o *options) *string { return &o.targetsFile })),
	opt(0, "targets-format", "format", "The targets file's format: http (default) or json (vegeta's: one\n{\"method\",\"url\",\"header\",\"body\" (base64)} object a line)", func(o *options, v string) error {
		if v != gb.TargetsHTTP && v != gb.TargetsJSON {
			return errors.New("want http or json")
		}
		o.targetsFormat = v
		return nil
	}),
	opt(0, "lazy", "", "Read --targets as the load needs them (a stream: --targets -),\nin bounded memory; its end ends the load", setBool(func(o *options) *bool { return &o.lazy })),
	opt(0, "order", "order", "How requests are spread over several targets: round-robin\n(default) or random (--seed)", func(o *options, v string) error {
		switch order := gb.Order(v); order {
		case gb.OrderRoundRobin, gb.OrderRandom:
			o.cfg.Order = order
			return nil
		}
		return errors.New("want round-robin or random")
	}),
	opt(0, "seed", "n", "Seed of --order random (default 0): the same seed, the same sequence", func(o *options, v string) (err error) {
		o.cfg.Seed, err = strconv.ParseInt(v, 10, 64)
		return err
	}),
	opt(0, "unix-socket", "path", "Connect to this unix domain socket; the URL still gives the\nHost header and path (or use http+unix://%2Fpath%2Fto.sock/path)", setString(func(o *options) *string { return &o.cfg.UnixSocket })),
	opt(0, "connect-to", "H:P:A:P", "HOST:PORT:ADDR:PORT: connect to ADDR:PORT for a URL of HOST:PORT\n(curl's; empty fields match any or keep the URL's; repeatable)", func(o *options, v string) error {
		o.cfg.ConnectTo = append(o.cfg.ConnectTo, v)
		return nil
	}),
	opt(0, "sni", "name", "TLS server name to send and verify instead of the URL's host", setString(func(o *options) *string { return &o.cfg.TLS.ServerName })),
	opt(0, "bench-out", "file", "Write Go benchmark lines (one per run) for benchstat", setString(func(o *options) *string { return &o.benchOut })),
	opt(0, "script", "file", "Lua script in wrk's scripting API (wrk's -s): request(),\nresponse(), done()...; arguments after -- go to its init(args)", setString(func(o *options) *string { return &o.cfg.Script })),
	opt(0, "metrics-addr", "host:port", "Serve the load's Prometheus metrics at /metrics on this address\n(e.g. :9100; every series is named gb_*)", setMetricsAddr),
	opt(0, "metrics-buckets", "list", "The latency histogram's classic bucket bounds, e.g. 1ms,5ms,20ms\n(default 100us to 10s; native buckets are always there)", setMetricsBuckets),
	opt(0, "metrics-linger", "duration", "Keep serving /metrics this long after the load (default 0),\nso that a scrape sees its end; a signal ends it sooner", durationFlag(func(o *options) *time.Duration { return &o.metrics.linger })),
	opt(0, "web", "host:port", "Serve a live page of the load at this address, then its report\n(e.g. :8089, this machine only; 0.0.0.0:8089 for every machine)", setWebAddr),
	opt(0, "web-linger", "duration", "Keep serving the page this long after the load (default: until\nthe open pages have the report, at most 10s); a signal ends it sooner", setWebLinger),
}

// setMethodKind records -i, -p or -u, refusing a second, different one
// with ab's message.
func (o *options) setMethodKind(kind string) error {
	if o.methodKind != "" && o.methodKind != kind {
		return getopt.Errorf(false, "Cannot mix %s with other methods", kind)
	}
	o.methodKind = kind
	return nil
}

func durationFlag(field func(*options) *time.Duration) func(*options, string) error {
	return func(o *options, v string) (err error) {
		*field(o), err = getopt.Seconds(v)
		return err
	}
}

func setString(field func(*options) *string) func(*options, string) error {
	return func(o *options, v string) error { *field(o) = v; return nil }
}

func setBool(field func(*options) *bool) func(*options, string) error {
	return func(o *options, _ string) error { *field(o) = true; return nil }
}
