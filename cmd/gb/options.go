package main

import (
	"errors"

	"strconv"
	"strings"
	"time"

	"github.com/gb-bench/gb"
)

// options holds the parsed command line of the benchmark (ab) mode: the
// load itself (cfg, handed to gb.Run as is) and what only the command line
// knows (files, report choices, progress). The zero value is not ab's
// defaults: use defaultOptions.
type options struct {
	cfg         gb.Config
	requestsSet bool       // -n was given
	profile     gb.Profile // --profile, --profile-url, --profile-dir

	postFile, putFile string // -p, -u
	methodKind        string // the -i/-p/-u choice, for ab's "Cannot mix" rule

	verbosity                       int    // -v
	html                            bool   // -w
	tableAttrs, rowAttrs, cellAttrs string // -x, -y, -z
	version, help                   bool   // -V, -h
	noPercentiles, noConfidence     bool   // -d, -S
	quiet                           bool   // -q
	recvErrors                      bool   // -r (gb never exits on receive errors)
	gnuplotFile, csvFile, jsonFile  string // -g, -e, --json
}

func defaultOptions() options {
	return options{cfg: gb.Config{Requests: 1, Concurrency: 1, Timeout: 30 * time.Second}}
}

// abSpecs are ab 2.4's options in its usage order, then gb's additions.
var abSpecs = []flagSpec{
	{'n', "requests", "requests", "Number of requests to perform", func(o *options, v string) error {
		n, err := parseCount(v)
		o.cfg.Requests, o.requestsSet = n, true
		return err
	}},
	{'c', "concurrency", "concurrency", "Number of multiple requests to make at a time", func(o *options, v string) (err error) {
		o.cfg.Concurrency, err = parseInt(v)
		return err
	}},
	{'t', "timelimit", "timelimit", "Seconds to max. to spend on benchmarking\n(with -n, whichever comes first; no 50000 cap)", func(o *options, v string) (err error) {
		o.cfg.Duration, err = parseSeconds(v)
		return err
	}},
	{'s', "timeout", "timeout", "Seconds to max. wait for each response\nDefault is 30 seconds", func(o *options, v string) (err error) {
		o.cfg.Timeout, err = parseSeconds(v)
		return err
	}},
	{'b', "windowsize", "windowsize", "Size of TCP send/receive buffer, in bytes", func(o *options, v string) (err error) {
		o.cfg.SockBuf, err = parsePositive(v)
		return err
	}},
	{'B', "bind", "address", "Address to bind to when making outgoing connections", setString(func(o *options) *string { return &o.cfg.LocalAddr })},
	{'p', "postfile", "postfile", "File containing data to POST. Remember also to set -T", func(o *options, v string) error {
		o.postFile = v
		return o.setMethodKind("POST")
	}},
	{'u', "putfile", "putfile", "File containing data to PUT. Remember also to set -T", func(o *options, v string) error {
		o.putFile = v
		return o.setMethodKind("PUT")
	}},
	{'T', "content-type", "content-type", "Content-type header to use for POST/PUT data, eg.\n'application/x-www-form-urlencoded'\nDefault is 'text/plain'", setString(func(o *options) *string { return &o.cfg.ContentType })},
	{'v', "verbosity", "verbosity", "How much troubleshooting info to print", func(o *options, v string) (err error) {
		o.verbosity, err = parseInt(v)
		return err
	}},
	{'w', "html", "", "Print out results in HTML tables", setBool(func(o *options) *bool { return &o.html })},
	{'i', "head", "", "Use HEAD instead of GET", func(o *options, _ string) error { return o.setMethodKind("HEAD") }},
	{'x', "table-attrs", "attributes", "String to insert as table attributes", func(o *options, v string) error { o.tableAttrs, o.html = v, true; return nil }},
	{'y', "tr-attrs", "attributes", "String to insert as tr attributes", func(o *options, v string) error { o.rowAttrs, o.html = v, true; return nil }},
	{'z', "td-attrs", "attributes", "String to insert as td or th attributes", func(o *options, v string) error { o.cellAttrs, o.html = v, true; return nil }},
	{'C', "cookie", "attribute", "Add cookie, eg. 'Apache=1234'. (repeatable)", func(o *options, v string) error { o.cfg.Cookies = append(o.cfg.Cookies, v); return nil }},
	{'H', "header", "attribute", "Add Arbitrary header line, eg. 'Accept-Encoding: gzip'\nInserted after all normal header lines. (repeatable)", func(o *options, v string) error { o.cfg.Headers = append(o.cfg.Headers, v); return nil }},
	{'A', "auth", "attribute", "Add Basic WWW Authentication, the attributes\nare a colon separated username and password.", setString(func(o *options) *string { return &o.cfg.BasicAuth })},
	{'P', "proxy-auth", "attribute", "Add Basic Proxy Authentication, the attributes\nare a colon separated username and password.", setString(func(o *options) *string { return &o.cfg.ProxyAuth })},
	{'X', "proxy", "proxy:port", "Proxyserver and port number to use", setString(func(o *options) *string { return &o.cfg.Proxy })},
	{'V', "version", "", "Print version number and exit", setBool(func(o *options) *bool { return &o.version })},
	{'k', "keepalive", "", "Use HTTP KeepAlive feature", setBool(func(o *options) *bool { return &o.cfg.KeepAlive })},
	{'d', "no-percentiles", "", "Do not show percentiles served table.", setBool(func(o *options) *bool { return &o.noPercentiles })},
	{'S', "no-confidence", "", "Do not show confidence estimators and warnings.", setBool(func(o *options) *bool { return &o.noConfidence })},
	{'q', "quiet", "", "Do not show progress when doing more than 150 requests", setBool(func(o *options) *bool { return &o.quiet })},
	{'l', "variable-length", "", "Accept variable document length (use this for dynamic pages)", setBool(func(o *options) *bool { return &o.cfg.VariableLength })},
	{'g', "gnuplot", "filename", "Output collected data to gnuplot format file.", setString(func(o *options) *string { return &o.gnuplotFile })},
	{'e', "csv", "filename", "Output CSV file with percentages served", setString(func(o *options) *string { return &o.csvFile })},
	{'r', "recv-errors", "", "Don't exit on socket receive errors. (gb never does)", setBool(func(o *options) *bool { return &o.recvErrors })},
	{'m', "method", "method", "Method name", setString(func(o *options) *string { return &o.cfg.Method })},
	{'h', "help", "", "Display usage information (this message)", setBool(func(o *options) *bool { return &o.help })},
	{'I', "no-sni", "", "Disable TLS Server Name Indication (SNI) extension", setBool(func(o *options) *bool { return &o.cfg.TLS.NoSNI })},
	{'Z', "ciphers", "ciphersuite", "Specify SSL/TLS cipher suite: Go (IANA) names, comma\nseparated, eg. TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256", setString(func(o *options) *string { return &o.cfg.TLS.Ciphers })},
	{'f', "protocol", "protocol", "Specify SSL/TLS protocol\n(TLS1, TLS1.1, TLS1.2, TLS1.3 or ALL)", setString(func(o *options) *string { return &o.cfg.TLS.Protocol })},
	{'E', "cert", "certfile", "Specify optional client certificate chain and private key", setString(func(o *options) *string { return &o.cfg.TLS.CertFile })},
	{'G', "cpus", "cpus", "Number of CPUs gb may use (one event loop each); default half\nthe cores for a local target, all for a remote one", func(o *options, v string) (err error) {
		o.cfg.CPUs, err = parsePositive(v)
		return err
	}},
	{'R', "rate", "rate", "Send requests at this global rate (2000, 50/1s) on a fixed schedule;\nlatency is then measured from each request's intended send time", func(o *options, v string) (err error) {
		o.cfg.Rate, err = gb.ParseRate(v)
		return err
	}},
	{0, "pipeline", "depth", "HTTP/1.1 pipelining: send depth requests at once on each\nconnection (implies -k; closed loop only)", func(o *options, v string) (err error) {
		o.cfg.Pipeline, err = parsePositive(v)
		o.cfg.KeepAlive = true
		return err
	}},
	{0, "engine", "name", "How connections are driven: loop (event loops over epoll),\ngoroutine (one per connection) or auto (default: loop on Linux)", func(o *options, v string) error {
		switch v {
		case "auto", "loop", "goroutine":
			o.cfg.Engine = v
			return nil
		}
		return errors.New("want auto, loop or goroutine")
	}},
	{0, "connect-timeout", "seconds", "Deadline to connect (and handshake); default -s", durationFlag(func(o *options) *time.Duration { return &o.cfg.ConnectTimeout })},
	{0, "first-byte-timeout", "seconds", "Deadline from the request written to the first response byte", durationFlag(func(o *options) *time.Duration { return &o.cfg.FirstByteTimeout })},
	{0, "header-timeout", "seconds", "Deadline from the first byte to the end of the header section", durationFlag(func(o *options) *time.Duration { return &o.cfg.HeaderTimeout })},
	{0, "idle-timeout", "seconds", "Longest wait for the next body bytes", durationFlag(func(o *options) *time.Duration { return &o.cfg.IdleTimeout })},
	{0, "profile", "[kinds]", "Capture the target's pprof profiles during the run:\ncpu,heap,allocs,goroutine,block,mutex,trace (bare: cpu,allocs)", func(o *options, v string) error {
		if v == "" {
			v = "cpu,allocs"
		}
		o.profile.Kinds = v
		return nil
	}},
	{0, "profile-url", "url", "pprof base URL (default: the target's /debug/pprof/)", setString(func(o *options) *string { return &o.profile.URL })},
	{0, "profile-dir", "dir", "Where to save profiles (default: a new ./gb-profiles/<time>)", setString(func(o *options) *string { return &o.profile.Dir })},
	{0, "insecure", "", "Do not verify the server's TLS certificate", setBool(func(o *options) *bool { return &o.cfg.TLS.Insecure })},
	{0, "cacert", "file", "Trust the CA certificates in this PEM file", setString(func(o *options) *string { return &o.cfg.TLS.CAFile })},
	{0, "json", "file", "Write the whole result as JSON to file (- = stdout)", setString(func(o *options) *string { return &o.jsonFile })},
}

// setMethodKind records -i, -p or -u, refusing a second, different one
// with ab's message.
func (o *options) setMethodKind(kind string) error {
	if o.methodKind != "" && o.methodKind != kind {
		return usagef(false, "Cannot mix %s with other methods", kind)
	}
	o.methodKind = kind
	return nil
}

func durationFlag(field func(*options) *time.Duration) func(*options, string) error {
	return func(o *options, v string) (err error) {
		*field(o), err = parseSeconds(v)
		return err
	}
}

func setString(field func(*options) *string) func(*options, string) error {
	return func(o *options, v string) error { *field(o) = v; return nil }
}

func setBool(field func(*options) *bool) func(*options, string) error {
	return func(o *options, _ string) error { *field(o) = true; return nil }
}

// parseCount parses a request count: digits with an optional k (×1000) or
// m (×1000000) suffix.
func parseCount(v string) (int64, error) {
	mult := int64(1)
	switch {
	case strings.HasSuffix(v, "k"):
		mult, v = 1000, v[:len(v)-1]
	case strings.HasSuffix(v, "m"):
		mult, v = 1000000, v[:len(v)-1]
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return 0, errors.New("want a whole number (k and m suffixes allowed)")
	}
	if n > (1<<62)/mult {
		return 0, errors.New("too large")
	}
	return n * mult, nil
}

// parseSeconds parses ab's seconds, whole or fractional ("30", "1.5"), or
// a Go duration ("1.5s", "2m"); the result must be positive.
func parseSeconds(v string) (time.Duration, error) {
	if f, err := strconv.ParseFloat(v, 64); err == nil {
		if !(f > 0 && f <= 1e8) {
			return 0, errors.New("want a positive number of seconds")
		}
		return time.Duration(f * float64(time.Second)), nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		return 0, errors.New("want seconds (30, 1.5) or a duration (1.5s, 2m)")
	}
	return d, nil
}

func parseInt(v string) (int, error) {
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0, errors.New("want a whole number")
	}
	return n, nil
}

func parsePositive(v string) (int, error) {
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		return 0, errors.New("want a positive whole number")
	}
	return n, nil
}
