package gb

import (
	"time"

	"github.com/gb-bench/gb/internal/pace"
	"github.com/gb-bench/gb/stats"
)

// Config is one load: what to ask (URL, method, headers, body), how hard
// (concurrency, rate, pipelining), for how long (requests, duration) and
// how (TLS, timeouts, engine). The zero value of each field selects the
// default written beside it, as in net/http; the URL and a bound (Requests
// or Duration) are required. Run reads a Config and never changes it; a
// Config is not used after Run returns.
type Config struct {
	// URL is the target: http://host[:port]/path or https://…; the scheme
	// may be omitted (http). Userinfo in it is sent as Basic credentials
	// unless BasicAuth is set; it never appears in a Result.
	URL string

	// Targets are more requests to spread the load over (gb --targets,
	// several URLs): the load's targets are URL, when set, with Method and
	// Body, then Targets in order (see Target for what each takes from the
	// Config). Order says which target each request goes to; the Result
	// then counts each target apart (Result.Targets), and its Target
	// describes the first. nil = URL alone.
	Targets []Target
	Order   Order // OrderRoundRobin (and "") or OrderRandom
	Seed    int64 // OrderRandom's seed: the same seed sends the same sequence of targets; 0 is a seed
	// Targeter, when set, fills each request's Target as the load needs
	// it (vegeta's Targeter; a TargetReader's Next reads a targets stream
	// so): it is called once by NewPlan (the first target) and then
	// before each request is sent. Later targets may go to other
	// addresses (scheme, host and port; MaxStreamAddresses at most): each
	// is routed and resolved when its first target comes, and each worker
	// opens a connection to it when it first sends there. It replaces URL and Targets, which must
	// be empty. gb calls it from one goroutine at a time, with a zeroed
	// Target, and keeps none of the Target's slices after the call. It
	// returns ErrNoTargets when it has no more: the load ends as when
	// Requests is reached (with Requests and Duration 0, the Targeter's
	// end alone ends the load). Any other error stops the load (StopError, the
	// error its message) with the result of what ran. The Result counts
	// the targets by method and URL template (a path segment with a digit
	// becomes "*"), the first 100 such rows, then one for the rest.
	// Not with HTTP/2 or Pipeline. nil = URL and Targets.
	Targeter func(*Target) error

	Method      string   // "" = GET, or POST when Body is non-nil
	Headers     []string // extra header lines "Name: value", sent in order after gb's own
	Cookies     []string // joined with "; " into one Cookie header; nil = none
	BasicAuth   string   // "user:password" for Authorization; "" = the URL's userinfo, if any
	ProxyAuth   string   // "user:password" for Proxy-Authorization (on CONNECT for https://); "" = none
	Proxy       string   // forward proxy "host:port" (https:// URLs tunnel through CONNECT); "" = connect to the target
	Body        []byte   // request body, sent with Content-Length; nil = none
	ContentType string   // Content-Type sent with Body; "" = text/plain (ab's default)
	UserAgent   string   // "" = "gb/" + Version

	// KeepAlive reuses each connection for many requests (ab's -k);
	// false opens a new connection per request, as ab does by default.
	KeepAlive bool

	Concurrency int           // connections, each with one request in flight (or Pipeline); 0 = 1
	Requests    int64         // requests to send in all; 0 = no count limit (Duration or Targeter must be set)
	Duration    time.Duration // time limit of the load; 0 = none (Requests must be set)

	// Warmup runs the load this long before measuring: connections are
	// opened and requests sent (at Rate in rate mode), but they are
	// counted apart, in Result.Warmup, never in Counts or Latency.
	// Requests, Duration and the schedule count from its end. 0 = none.
	Warmup time.Duration

	// Rate, when set, makes the load open-model: requests are due on a
	// fixed schedule (Rate.Freq per Rate.Per) whoever is free sends them,
	// and latency is also measured from each request's intended time
	// (coordinated omission corrected). Zero = closed loop.
	Rate Rate

	// Pipeline, above 1, sends this many requests at once on each
	// connection (HTTP/1.1 pipelining; implies KeepAlive; closed loop
	// only; at most 1024, and never deeper than Requests). 0 or 1 = one
	// at a time.
	Pipeline int

	// Protocol is the HTTP version spoken: ProtocolHTTP1 ("" = it),
	// ProtocolHTTP2 (https:// URLs, ALPN "h2") or ProtocolH2C (http://
	// URLs, prior knowledge). HTTP/2 connections are always kept alive.
	Protocol Protocol
	// Streams is the most requests in flight on each HTTP/2 connection
	// (h2load's -m); the server's SETTINGS_MAX_CONCURRENT_STREAMS may
	// lower it. Works in rate mode too. 0 = 1; at most MaxStreams; HTTP/2
	// only.
	Streams int

	Timeout          time.Duration // deadline of connect, handshake and each request; 0 = 30 s (ab's -s)
	ConnectTimeout   time.Duration // deadline of dial plus TLS handshake; 0 = Timeout
	FirstByteTimeout time.Duration // request written to first response byte; 0 = only Timeout
	HeaderTimeout    time.Duration // first byte to end of the header section; 0 = only Timeout
	IdleTimeout      time.Duration // longest wait for more body bytes; 0 = only Timeout

	TLS TLS // https settings; the zero value verifies the server's certificate

	// UnixSocket is the path of a unix domain socket that every
	// connection is made to instead of the URL's host (curl's
	// --unix-socket): the URL still gives the scheme (https speaks TLS over
	// the socket), the Host header and the path. An http+unix:// URL names
	// its socket itself. "" = TCP to the URL's host (or the proxy).
	UnixSocket string

	// ConnectTo redirects connections as curl's --connect-to does: a rule
	// "HOST:PORT:ADDR:PORT" makes a load whose URL is for HOST:PORT
	// connect to ADDR:PORT instead (through a CONNECT proxy: tunnel to
	// it). An empty HOST or PORT matches any; an empty ADDR or PORT keeps
	// the URL's. The first matching rule applies. The Host header, the
	// request target and the TLS name stay the URL's. nil = none.
	ConnectTo []string

	LocalAddr string // IP address to dial from (ab's -B), a list "a,b" or a range "a-b" to spread over; "" = any (several 127.x for a loopback -c beyond one address's ports)
	SockBuf   int    // SO_SNDBUF and SO_RCVBUF in bytes (ab's -b); 0 = the kernel's

	// Engine drives the connections: EngineLoop (event loops over epoll),
	// EngineLoopTasks (the same, every exchange on its coroutine),
	// EngineGoroutine (one goroutine per connection) or "" / EngineAuto
	// (the loops where the system has epoll, else goroutines).
	Engine Engine

	// CPUs is how many cores gb's engine may use (one event loop each).
	// 0 = half the cores for a loopback target (the rest are the
	// server's), all of them for a remote one. Plan.Procs says what
	// GOMAXPROCS the load wants; Run does not change GOMAXPROCS itself.
	CPUs int

	// VariableLength accepts responses whose body length differs from the
	// first one's (ab's -l); false counts them as length failures.
	VariableLength bool

	// Interval is the length of each point of Result.Series, the run's
	// time series (counts, errors and latency per interval, aligned to
	// whole multiples of Interval in wall-clock time). 0 = one second;
	// negative = no series.
	Interval time.Duration

	// Shard makes this process one of Shard.Count that split the load
	// between them (gb --shard I/N): it does its share of Requests,
	// Rate.Freq and Concurrency (Shard.Share: the shares of all shards sum
	// to the whole exactly; shard I's share is always the same). A share
	// of Requests, Rate or Concurrency that would be 0 is a ConfigError.
	// Result.Load records the shard and the shares. The zero value = the
	// whole load.
	Shard Shard

	// StartAt is the wall-clock instant the load starts (gb --start-at),
	// so that shards on several machines start together: Plan.Run waits
	// until then, after all preparation. The zero value (or a past
	// instant) = at once.
	StartAt time.Time

	// Compressed (curl's --compressed) sends "Accept-Encoding: gzip, br,
	// zstd" (AcceptEncoding) unless Headers has an Accept-Encoding, which
	// is then sent as written and wins; and it decodes every response
	// body that has a Content-Encoding as it is read, counting its decoded
	// bytes in Result.Counts.DecodedIn. A body that does not decode
	// (corrupt, cut inside the compressed stream, data after it, past
	// MaxDecoded, or in a coding the request did not ask for) ends as
	// failed.decode. false = gb sends no Accept-Encoding of its own and
	// bodies are only framed.
	Compressed bool
	MaxDecoded int64 // with Compressed: decoded bytes per body past which it fails; 0 = 256 MiB

	// Checks are tests every complete response must pass (gb --check),
	// one expression each in package check's grammar: status==200,
	// status in 200,204, size>=100, body contains ok, body matches RE,
	// header[Content-Type] contains json. A response that fails any ends
	// as failed.check (not ok or non2xx) and Result.Checks counts each
	// check's passes and failures. Bodies are read (their first 1 MiB)
	// only when a body check needs them. Checks run on HTTP/1.1 and
	// HTTP/2, not HTTP/3; a body check not with Compressed. nil = none:
	// responses are classified by status.
	Checks []string

	// Script is a Lua script written for wrk's scripting API (gb
	// --script): the file's name, read by NewPlan. Its request() makes each
	// request's bytes (HTTP/1.1, sent as they are; several concatenated
	// are pipelined), response(status, headers, body) sees each response,
	// and delay(), setup(), init(args) and done() run as in wrk. One Lua
	// state per event loop (or per connection on the goroutine engine).
	// HTTP/1.1 only; not with Targets. "" = none: the request is built
	// from URL, Method, Headers and Body.
	Script string
	// ScriptSource is the script's text; nil = read it from Script.
	ScriptSource []byte
	// ScriptArgs are the script's arguments: init(args) gets the URL as
	// args[0] and these as args[1], args[2], ...
	ScriptArgs []string

	// KeepSamples keeps one Sample per response in Result.Samples (what
	// ab's -e and -g files need). It costs memory in proportion to the
	// requests; false keeps only histograms.
	KeepSamples bool
}

// Engine names how a load drives its connections (Config.Engine).
type Engine string

// The engines.
const (
	EngineAuto      Engine = "auto"      // the loops where available, else goroutines
	EngineLoop      Engine = "loop"      // one event loop per core over epoll (Linux)
	EngineGoroutine Engine = "goroutine" // one goroutine per connection over Go's netpoller
	// EngineLoopTasks is EngineLoop with every exchange on its connection's
	// coroutine: the loops do not run kept-alive exchanges themselves, as
	// they do by default (two coroutine switches per request fewer). For
	// comparing the two and testing both.
	EngineLoopTasks Engine = "loop-tasks"
)

// MaxConcurrency is the most connections a Config may ask for. The real
// bound is the open-file limit (RLIMIT_NOFILE), checked by NewPlan.
const MaxConcurrency = 1_000_000

// Rate is a fixed request schedule: Freq requests every Per. The zero
// value means no schedule (closed loop).
type Rate struct {
	Freq int64         // requests per Per; 0 = closed loop
	Per  time.Duration // the period; 0 = one second
}

// ParseRate parses a rate as -R takes it: "2000" (per second) or
// "50/1s", "3/100ms".
func ParseRate(s string) (Rate, error) {
	c, err := pace.ParseRate(s)
	return Rate{Freq: c.Freq, Per: c.Per}, err
}

// PerSecond returns the rate in requests per second; 0 for the zero Rate.
func (r Rate) PerSecond() float64 {
	if r.Freq == 0 {
		return 0
	}
	return r.pacer().Rate()
}

// Within returns how many requests the schedule holds in a run of length
// d: those whose interval (1/rate) ends by d, floor(rate·d), sent at 0,
// 1/rate, ...; 0 for the zero Rate. A run of Duration d sends no more.
func (r Rate) Within(d time.Duration) int64 {
	if r.Freq == 0 {
		return 0
	}
	return r.pacer().Within(d)
}

func (r Rate) pacer() pace.Constant {
	if r.Per <= 0 {
		r.Per = time.Second
	}
	return pace.Constant{Freq: r.Freq, Per: r.Per}
}

// Shard names one process's part of a split load: shard Index (from 0)
// of Count. The zero value means the load is not split.
type Shard = stats.ShardID

// ParseShard parses a shard as --shard takes it: "I/N", 0 ≤ I < N.
func ParseShard(s string) (Shard, error) { return stats.ParseShardID(s) }

// TLS holds the https settings, by file name and by the names ab and Go
// use, so that a command line maps onto it one flag to one field.
type TLS struct {
	Insecure bool   // do not verify the server's certificate
	CAFile   string // PEM file of CA certificates to trust; "" = the system's
	CertFile string // PEM file holding a client certificate chain and its key (ab's -E); "" = none
	Ciphers  string // Go (IANA) cipher suite names, comma or colon separated; "" = Go's defaults
	Protocol string // TLS1, TLS1.1, TLS1.2, TLS1.3 or ALL (ab's -f); "" = ALL
	NoSNI    bool   // send no Server Name Indication (ab's -I); the name is still verified
	// Resume makes new connections resume the TLS sessions earlier ones
	// got (TLS 1.3 tickets, TLS 1.2 session tickets; Go's client does not
	// resume by TLS 1.2 session id). false = a full handshake every time.
	Resume bool
	// ServerName is the name sent as Server Name Indication and verified
	// in the server's certificate (--sni); "" = the URL's host.
	ServerName string
}

// Protocol names the HTTP version a load speaks (Config.Protocol).
type Protocol string

// The protocols.
const (
	ProtocolHTTP1 Protocol = "h1"  // HTTP/1.1, the default
	ProtocolHTTP2 Protocol = "h2"  // HTTP/2 over TLS, negotiated with ALPN "h2" (https:// URLs)
	ProtocolH2C   Protocol = "h2c" // HTTP/2 over cleartext TCP with prior knowledge (http:// URLs)
	// ProtocolHTTP3 is HTTP/3 over QUIC: https:// URLs, UDP to the URL's
	// port, ALPN "h3".
	ProtocolHTTP3 Protocol = "h3"
)

// Target is one request of a load with several targets (Config.Targets,
// gb --targets or several URLs). Its fields are its own: Method and Body
// are not taken from the Config. What the Config says of every request
// (Headers, Cookies, BasicAuth, UserAgent, ContentType, KeepAlive,
// Proxy, TLS, timeouts) applies to every target; a Target's Headers are
// sent after the Config's, and a Content-Type among them replaces
// Config.ContentType for it. A Target's Body is sent with no Content-Type
// unless its Headers or Config.ContentType give one (as vegeta sends it);
// a POST, PUT or PATCH without a Body is sent with Content-Length: 0.
type Target struct {
	URL     string   // as Config.URL: http://host[:port]/path or https://…
	Method  string   // "" = GET, or POST when Body is non-nil
	Headers []string // extra header lines "Name: value", after Config.Headers
	Body    []byte   // request body, sent with Content-Length; nil = none

	// Source says where the target was read, for error messages
	// ("targets.txt:3", as ReadTargets sets it); "" = "target N", its
	// place in the load's list of targets.
	Source string
}

// Order names how a load with several targets spreads its requests over
// them (Config.Order).
type Order string

// The orders.
const (
	OrderRoundRobin Order = "round-robin" // request i goes to target i mod k: equal shares
	OrderRandom     Order = "random"      // each request's target drawn from Config.Seed and its index
)

func (c *Config) concurrency() int { return max(c.Concurrency, 1) }

func (c *Config) method() string {
	switch {
	case c.Method != "":
		return c.Method
	case c.Body != nil:
		return "POST"
	}
	return "GET"
}
