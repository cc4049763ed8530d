package stats

import (
	"encoding/json"
	"fmt"
	"slices"
	"time"
)

// FormatVersion is the version of the JSON result format written by
// Result's JSON encoding. Readers refuse results of a newer version.
// Version 2 adds plain numbers (rps, duration_s, totals, and per latency
// distribution min, mean, sd, max and percentiles in µs and ms) to version
// 1; version 3 gives each series point its width (width_ns: a long run's
// older intervals are merged). ReadResult reads all three. The schema is
// stats/result.schema.json.
const FormatVersion = 3

// Result is the immutable outcome of one run: what was asked (Target), who
// answered (Server), what happened to every request (Counts) and how long
// the responses took (Latency). It is what every renderer reads and what
// `--json` writes; gb report/compare/merge read it back.
type Result struct {
	Version   int           `json:"version"`
	GBVersion string        `json:"gb_version"`
	Command   []string      `json:"command"` // argv with secrets redacted
	Start     time.Time     `json:"start"`
	End       time.Time     `json:"end"`
	Elapsed   time.Duration `json:"elapsed_ns"` // ab's "Time taken for tests": start to last activity
	StoppedBy string        `json:"stopped_by"` // StopCount, StopTime, StopSignal or StopError
	StopError string        `json:"stop_error,omitempty"`
	Load      Load          `json:"target"` // the load asked for (its JSON key is the older name)
	Server    Server        `json:"server"`
	Counts    Counts        `json:"counts"`
	Latency   Phases        `json:"latency"`
	Client    Client        `json:"client"`

	// Profile is the server's profile during the load (--profile); nil
	// when it was not asked for or the target has no pprof.
	Profile *ServerProfile `json:"server_profile,omitempty"`

	// Warmup is the warm-up's account; nil when the run had none.
	Warmup *Warmup `json:"warmup,omitempty"`

	// Series is the run's time series (counts and latency per interval);
	// nil when the run recorded none.
	Series *Series `json:"series,omitempty"`

	// Partial is set on a merge of some, not all, of the shards of a
	// split load (gb merge --allow-partial): the counts are those shards',
	// not the whole load's. nil for a run or a complete merge.
	Partial *Partial `json:"partial,omitempty"`

	// Targets is each target's account, in the order of the Config's
	// targets, when the run had more than one (Load then describes the
	// first); nil for a run of one target.
	Targets []TargetStats `json:"targets,omitempty"`

	// Checks is each check's account (gb --check), in the order of the
	// Config's checks; nil for a run without checks.
	Checks []CheckStats `json:"checks,omitempty"`

	// Samples holds one row per response when the run kept them (ab's -g);
	// it is never written to JSON.
	Samples []Sample `json:"-"`
}

// Partial names the shards a partial merge holds (Result.Partial).
type Partial struct {
	Count  int   `json:"count"`  // the shards the load was split into
	Shards []int `json:"shards"` // the indexes merged, ascending
}

// Why a run stopped (Result.StoppedBy).
const (
	StopCount  = "count"  // the -n budget was used up
	StopTime   = "time"   // the -t time limit passed
	StopSignal = "signal" // SIGINT or SIGTERM
	StopError  = "error"  // a fatal error (see StopError)
)

// Load describes what a run asked for (Result.Load): the URL, the
// request, how many connections, requests, how long, how fast. A target
// in gb's words is one request of a load (gb.Target, TargetStats); a Load
// may have several. Durations are nanoseconds in JSON; zero means "not
// set".
type Load struct {
	URL            string        `json:"url"` // credentials redacted
	Method         string        `json:"method"`
	Host           string        `json:"host"` // URL host name, no port, no brackets
	Port           int           `json:"port"`
	Path           string        `json:"path"` // path and query, as sent
	Proxy          string        `json:"proxy,omitempty"`
	UnixSocket     string        `json:"unix_socket,omitempty"` // the unix socket connected to (--unix-socket, an http+unix:// URL); "" over TCP
	ConnectTo      string        `json:"connect_to,omitempty"`  // "host:port" the --connect-to rules sent the connections to (the URL's when none matched); "" without rules
	Concurrency    int           `json:"concurrency"`
	Requests       int64         `json:"requests"`   // -n; 0 = no count limit
	TimeLimit      time.Duration `json:"time_limit"` // -t
	Timeout        time.Duration `json:"timeout"`    // -s
	Rate           float64       `json:"rate,omitempty"`
	Pipeline       int           `json:"pipeline,omitempty"` // requests sent at once per connection; 0 = no pipelining
	Streams        int           `json:"streams,omitempty"`  // HTTP/2: the most requests in flight per connection; 0 = HTTP/1.1
	KeepAlive      bool          `json:"keep_alive"`
	BodyLength     int64         `json:"body_length"`     // request body bytes (-p/-u)
	VariableLength bool          `json:"variable_length"` // -l: length differences are not failures
	TLSVerify      bool          `json:"tls_verify"`
	TLSResume      bool          `json:"tls_resume,omitempty"` // --tls-resume: new connections offered the sessions earlier ones got
	Engine         string        `json:"engine"`               // the protocol: "h1", "h2" (HTTP/2 over TLS), "h2c" (HTTP/2 cleartext) or "h3" (HTTP/3 over QUIC)
	Compressed     bool          `json:"compressed,omitempty"` // --compressed: Accept-Encoding sent and every body's coding checked

	// StartAt is when the load was set to start (--start-at), UTC; the
	// zero value (omitted in JSON) when it was not set. Shards of one load
	// share it.
	StartAt time.Time `json:"start_at,omitzero"`

	// Shard is the part of a split load this run carried (--shard I/N):
	// Concurrency, Requests and Rate above are then its share. The zero
	// value (omitted in JSON) means the run was the whole load, or a merge.
	Shard ShardID `json:"shard,omitzero"`

	// Order is how requests were spread over several targets:
	// "round-robin", "random" (with Seed) or "stream" (targets read as
	// the load went: Targets are rows per URL template); "" = one target.
	Order string `json:"order,omitempty"`
	Seed  int64  `json:"seed,omitempty"` // the random order's seed; absent = 0
}

// Server describes who answered.
type Server struct {
	Software       string `json:"software"`                  // Server header of the first response as sent (at most 64 bytes); the text report cuts it as ab does
	DocumentLength int64  `json:"document_length"`           // body length of the first response
	TLSProtocol    string `json:"tls_protocol,omitempty"`    // OpenSSL spelling, e.g. "TLSv1.3"
	TLSCipher      string `json:"tls_cipher,omitempty"`      // Go (IANA) name
	TLSKeyBits     int    `json:"tls_key_bits,omitempty"`    // size of the server certificate's public key
	TLSTempKey     string `json:"tls_temp_key,omitempty"`    // ab's shape, e.g. "X25519 253 bits"
	TLSServerName  string `json:"tls_server_name,omitempty"` // SNI sent; "" when none
}

// Client is what gb itself spent during the run, so a report can say when
// the client, not the server, was the limit.
type Client struct {
	CPU        time.Duration `json:"cpu_ns"`                   // user+system CPU time of the gb process during the run (from the warm-up's end)
	CPUWindow  time.Duration `json:"cpu_window_ns,omitempty"`  // wall time CPU was read over (the run, its setup and teardown); 0 = not recorded
	MaxProcs   int           `json:"gomaxprocs"`               // cores gb could use for load: GOMAXPROCS, or the event loops
	GCCycles   int64         `json:"gc_cycles"`                // garbage collections during the run
	GCPause    time.Duration `json:"gc_pause_ns"`              // total stop-the-world pause during the run
	HeapAllocs int64         `json:"heap_alloc_bytes"`         // bytes allocated during the run
	MaxRSS     int64         `json:"max_rss_bytes"`            // peak resident memory of the gb process
	BaseRSS    int64         `json:"base_rss_bytes,omitempty"` // peak resident memory before the load (after setup); 0 = not measured
	Engine     string        `json:"engine,omitempty"`         // how connections were driven: "loop", "loop-tasks" or "goroutine"
}

// Counts are the run's request and byte counters.
type Counts struct {
	Dispatched     int64            `json:"dispatched"`          // requests a worker sent (or tried to)
	Scheduled      int64            `json:"scheduled,omitempty"` // rate mode: requests due before the stop (= dispatched + dropped)
	Late           int64            `json:"late,omitempty"`      // rate mode: requests started more than LateAfter behind schedule
	Outcomes       Outcomes         `json:"outcomes"`
	Retries        int64            `json:"retried_stale_conn"`
	LengthMismatch int64            `json:"length_mismatch"` // responses whose body length differs from Document Length
	KeepAlive      int64            `json:"keep_alive_responses"`
	Info           int64            `json:"info_responses"`
	ConnsOpened    int64            `json:"conns_opened"`
	ConnsClosed    int64            `json:"conns_closed"`
	BytesIn        int64            `json:"bytes_in"`             // headers and bodies
	BodyIn         int64            `json:"body_in"`              // bodies only
	DecodedIn      int64            `json:"decoded_in,omitempty"` // --compressed: bodies after content decoding (identity bodies as received); 0 without
	BytesOut       int64            `json:"bytes_out"`            // request lines, headers and bodies
	Status         map[int]int64    `json:"status"`
	Errors         map[string]int64 `json:"errors,omitempty"`       // failure messages (no addresses), at most 50
	OtherErrors    int64            `json:"errors_other,omitempty"` // failures whose message did not fit
	OtherStatus    int64            `json:"status_other,omitempty"` // codes beyond the per-worker table
}

// Phases holds one Dist per phase; a phase with no samples is nil.
type Phases [NumPhases]*Dist

// nestedPhases are the phases whose JSON is a member of another phase's
// object rather than a key of its own: latency.tls.full and
// latency.tls.resumed. A reader that knows only the older phases reads
// latency.tls as before and skips them.
var nestedPhases = [...]struct {
	phase, parent Phase
	key           string
}{{TLSFull, TLS, "full"}, {TLSResumed, TLS, "resumed"}}

// MarshalJSON writes the phases that have samples, keyed by name, with
// the nested phases inside their parent's object (dropped without it).
func (p Phases) MarshalJSON() ([]byte, error) {
	m := make(map[string]json.RawMessage, NumPhases)
	for i, d := range p {
		if d == nil || nested(Phase(i)) {
			continue
		}
		b, err := d.MarshalJSON()
		if err != nil {
			return nil, err
		}
		for _, n := range nestedPhases {
			if n.parent != Phase(i) || p[n.phase] == nil {
				continue
			}
			c, err := p[n.phase].MarshalJSON()
			if err != nil {
				return nil, err
			}
			b = append(append(append(b[:len(b)-1], `,"`+n.key+`":`...), c...), '}')
		}
		m[Phase(i).String()] = b
	}
	return json.Marshal(m)
}

// nested reports whether ph's JSON is inside another phase's.
func nested(ph Phase) bool {
	for _, n := range nestedPhases {
		if n.phase == ph {
			return true
		}
	}
	return false
}

// UnmarshalJSON reads the form written by MarshalJSON.
func (p *Phases) UnmarshalJSON(b []byte) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	*p = Phases{}
	for k, raw := range m {
		i := slices.Index(phaseNames[:], k)
		if i < 0 || nested(Phase(i)) {
			return fmt.Errorf("stats: unknown latency phase %q", k)
		}
		if err := json.Unmarshal(raw, &p[i]); err != nil {
			return err
		}
		for _, n := range nestedPhases {
			if n.parent == Phase(i) {
				if err := unmarshalMember(raw, n.key, &p[n.phase]); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// unmarshalMember decodes the member key of the JSON object raw into *d;
// *d stays nil when raw has no such member.
func unmarshalMember(raw json.RawMessage, key string, d **Dist) error {
	var members map[string]json.RawMessage
	if err := json.Unmarshal(raw, &members); err != nil {
		return err
	}
	if v, ok := members[key]; ok {
		return json.Unmarshal(v, d)
	}
	return nil
}

// Complete returns ab's "Complete requests": responses received (ok and
// non2xx), the requests that have latency samples.
func (r *Result) Complete() int64 { return r.Counts.Outcomes[OK] + r.Counts.Outcomes[Non2xx] }

// Breakdown is ab's failure breakdown. Connect: DNS, connect, local and
// connect-timeout failures. Receive: stale connections, resets and
// first-byte/header/body/total timeouts. Length: truncated bodies, responses
// that failed a check (--check: gb's content check, as ab's length
// comparison is ab's), plus, unless
// variable lengths are allowed (-l), complete responses whose length differs
// from the first. Exceptions: TLS, protocol and write failures.
type Breakdown struct {
	Connect, Receive, Length, Exceptions int64
}

// Breakdown returns the run's ab failure breakdown.
func (r *Result) Breakdown() Breakdown {
	o := &r.Counts.Outcomes
	b := Breakdown{
		Connect: o[FailDNS] + o[FailConnect] + o[FailLocal] + o[TimeoutConnect],
		Receive: o[FailStaleConn] + o[FailReset] + o[TimeoutFirstByte] + o[TimeoutHeaders] +
			o[TimeoutBody] + o[TimeoutTotal],
		Length:     o[FailTruncated] + o[FailCheck],
		Exceptions: o[FailTLS] + o[TimeoutTLS] + o[FailProtocol] + o[FailWrite] + o[FailDecode],
	}
	if !r.Load.VariableLength {
		b.Length += r.Counts.LengthMismatch
	}
	return b
}

// Failed returns ab's "Failed requests": the sum of the breakdown.
func (r *Result) Failed() int64 {
	b := r.Breakdown()
	return b.Connect + b.Receive + b.Length + b.Exceptions
}

// AddDropped records the run's dropped requests (rate mode: due before the
// end but never sent) in the Corrected latency, as censored values: the
// k-th of them (k from 0 to Counts.Outcomes[Dropped]-1) was due at due(k),
// an offset from Start, and was still unsent when the run ended at
// Elapsed, so its latency from the intended send time is at least
// Elapsed - due(k) (0 when that is negative). The Corrected percentiles
// then include every scheduled request and are a lower bound; without
// this they would cover only the requests sent, understating the tail.
// Call it once, after the run's counts are final.
func (r *Result) AddDropped(due func(k int64) time.Duration) {
	n := r.Counts.Outcomes[Dropped]
	if n <= 0 {
		return
	}
	d := r.Latency[Corrected]
	if d == nil {
		d = &Dist{}
		r.Latency[Corrected] = d
	}
	for k := range n {
		d.add(max(r.Elapsed-due(k), 0).Microseconds())
	}
}

// Check verifies the accounting invariants that must hold for any result:
// I2 (dispatched = ok + non2xx + Σfailed + Σaborted), I1 in rate mode
// (scheduled = dispatched + dropped), I5 (each histogram holds its exact
// count; Total has one sample per complete response, and in rate mode
// Corrected one per complete response plus one censored sample per dropped
// request, see AddDropped) and I8 (latencies are non-negative and ordered:
// min <= p50 <= p90 <= p99 <= max). It returns one error per broken
// invariant; none means the result is consistent.
func (r *Result) Check() []error {
	var errs []error
	o := &r.Counts.Outcomes
	if got := o.Sum() - o[Dropped]; got != r.Counts.Dispatched {
		errs = append(errs, fmt.Errorf("I2: dispatched %d != ok+non2xx+failed+aborted %d", r.Counts.Dispatched, got))
	}
	if r.Load.Rate > 0 && r.Counts.Scheduled != r.Counts.Dispatched+o[Dropped] {
		errs = append(errs, fmt.Errorf("I1: scheduled %d != dispatched %d + dropped %d", r.Counts.Scheduled, r.Counts.Dispatched, o[Dropped]))
	}
	for i, d := range r.Latency {
		if d == nil {
			continue
		}
		name := Phase(i).String()
		if d.Count > 0 && d.Min < 0 {
			errs = append(errs, fmt.Errorf("I8: %s latency min %d µs < 0", name, d.Min))
		}
		if d.Hist == nil {
			continue
		}
		p50, p90, p99 := d.Percentile(50), d.Percentile(90), d.Percentile(99)
		if !(p50 <= p90 && p90 <= p99) {
			errs = append(errs, fmt.Errorf("I8: %s percentiles out of order: p50 %d p90 %d p99 %d", name, p50, p90, p99))
		}
		if d.Hist.TotalCount() != d.Count {
			errs = append(errs, fmt.Errorf("I5: %s histogram holds %d samples, exact count %d", name, d.Hist.TotalCount(), d.Count))
		}
	}
	if t := r.Latency[Total]; t != nil && t.Count != r.Complete() {
		errs = append(errs, fmt.Errorf("I5: %d latency samples for %d complete responses", t.Count, r.Complete()))
	}
	if c := r.Latency[Corrected]; r.Load.Rate > 0 && c != nil && c.Count != r.Complete()+o[Dropped] {
		errs = append(errs, fmt.Errorf("I5: %d corrected latency samples for %d complete and %d dropped requests", c.Count, r.Complete(), o[Dropped]))
	}
	return append(errs, r.checkTargets()...)
}
