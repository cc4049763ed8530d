package stats

import (
	"encoding/json"
	"fmt"
)

// Outcome is the one terminal result of a dispatched request. Outcomes are
// disjoint: every dispatched request ends in exactly one of them, and a
// retry of the keep-alive close race is an annotation (see Counts.Retries),
// never a second outcome.
type Outcome uint8

// The outcomes, in the order of ../shared/reference/reliability.md §1.1.
const (
	OK               Outcome = iota // status in the success set (2xx), body complete
	Non2xx                          // any other final status, body complete
	FailDNS                         // the host name did not resolve
	FailConnect                     // connect refused or unreachable
	FailLocal                       // client-side resource error: EMFILE, EADDRNOTAVAIL, ENOBUFS
	FailTLS                         // TLS handshake or certificate failure
	FailWrite                       // the request could not be written
	FailStaleConn                   // EOF or RST before any response byte on a reused connection, retry spent
	FailReset                       // RST after at least one response byte
	FailTruncated                   // EOF before the end of the body or of the headers
	FailProtocol                    // malformed response: status line, header, chunk, framing, limits
	FailDecode                      // --compressed: a well-framed body whose Content-Encoding does not decode (corrupt, cut, too large, not asked for)
	FailScript                      // --script: request() returned no request (not a string, not HTTP/1.1), or a callback raised an error
	FailCheck                       // --check: a complete response that failed one of the run's checks (Result.Checks)
	TimeoutConnect                  // connect did not finish in time
	TimeoutTLS                      // TLS handshake did not finish in time
	TimeoutFirstByte                // no response byte in time after the request was written
	TimeoutHeaders                  // header section did not complete in time
	TimeoutBody                     // body stalled longer than the idle timeout
	TimeoutTotal                    // the whole exchange exceeded the total deadline
	AbortedDeadline                 // in flight when the time limit (-t) stopped the run
	AbortedSignal                   // in flight when SIGINT/SIGTERM stopped the run
	AbortedFatal                    // in flight when a fatal error stopped the run
	Dropped                         // rate mode: never sent before the stop
	NumOutcomes                     // the number of outcomes; not an outcome
)

var outcomeNames = [NumOutcomes]string{
	OK:               "ok",
	Non2xx:           "non2xx",
	FailDNS:          "failed.dns",
	FailConnect:      "failed.connect",
	FailLocal:        "failed.local",
	FailTLS:          "failed.tls",
	FailWrite:        "failed.write",
	FailStaleConn:    "failed.stale_conn",
	FailReset:        "failed.reset",
	FailTruncated:    "failed.truncated",
	FailProtocol:     "failed.protocol",
	FailDecode:       "failed.decode",
	FailScript:       "failed.script",
	FailCheck:        "failed.check",
	TimeoutConnect:   "failed.timeout.connect",
	TimeoutTLS:       "failed.timeout.tls",
	TimeoutFirstByte: "failed.timeout.ttfb",
	TimeoutHeaders:   "failed.timeout.headers",
	TimeoutBody:      "failed.timeout.body",
	TimeoutTotal:     "failed.timeout.total",
	AbortedDeadline:  "aborted.deadline",
	AbortedSignal:    "aborted.signal",
	AbortedFatal:     "aborted.fatal",
	Dropped:          "dropped",
}

// String returns the outcome's name as used in JSON results, e.g.
// "failed.timeout.ttfb".
func (o Outcome) String() string {
	if o < NumOutcomes {
		return outcomeNames[o]
	}
	return fmt.Sprintf("outcome(%d)", uint8(o))
}

// ParseOutcome returns the outcome named s.
func ParseOutcome(s string) (Outcome, bool) {
	for i, n := range outcomeNames {
		if n == s {
			return Outcome(i), true
		}
	}
	return 0, false
}

// Failed reports whether o is one of the failed.* outcomes.
func (o Outcome) Failed() bool { return o >= FailDNS && o <= TimeoutTotal }

// Aborted reports whether o is one of the aborted.* outcomes.
func (o Outcome) Aborted() bool { return o >= AbortedDeadline && o <= AbortedFatal }

// Responded reports whether o carries a complete response (ok or non2xx):
// only those requests have latency samples.
func (o Outcome) Responded() bool { return o == OK || o == Non2xx }

// Outcomes counts requests by outcome. The zero value is all zeros.
type Outcomes [NumOutcomes]int64

// Sum returns the number of requests counted, i.e. the left side of
// invariant I2 (dispatched = ok + non2xx + Σfailed + Σaborted) plus dropped.
func (o *Outcomes) Sum() int64 {
	var n int64
	for _, v := range o {
		n += v
	}
	return n
}

// Failed returns Σfailed.*.
func (o *Outcomes) Failed() int64 {
	var n int64
	for i, v := range o {
		if Outcome(i).Failed() {
			n += v
		}
	}
	return n
}

// Aborted returns Σaborted.*.
func (o *Outcomes) Aborted() int64 {
	return o[AbortedDeadline] + o[AbortedSignal] + o[AbortedFatal]
}

// MarshalJSON writes every outcome by name, zeros included, so a reader
// never has to guess whether a missing key means zero.
func (o Outcomes) MarshalJSON() ([]byte, error) {
	m := make(map[string]int64, NumOutcomes)
	for i, v := range o {
		m[outcomeNames[i]] = v
	}
	return json.Marshal(m)
}

// UnmarshalJSON reads the form written by MarshalJSON. Unknown names are an
// error: a result from a newer gb must not be read as if they were zero.
func (o *Outcomes) UnmarshalJSON(b []byte) error {
	var m map[string]int64
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	*o = Outcomes{}
	for k, v := range m {
		oc, ok := ParseOutcome(k)
		if !ok {
			return fmt.Errorf("stats: unknown outcome %q", k)
		}
		o[oc] = v
	}
	return nil
}
