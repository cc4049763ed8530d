package client

import (
	"time"

	"github.com/gb-bench/gb/internal/clock"
	"github.com/gb-bench/gb/internal/decode"
	"github.com/gb-bench/gb/internal/h1"
	"github.com/gb-bench/gb/internal/load"
	"github.com/gb-bench/gb/stats"
)

// Decoding is the content decoding of --compressed: with Compressed set,
// every response body with a Content-Encoding is decoded as it is read (a
// decode.Body per client, its decoders reused for every body), and a body
// that does not decode ends as stats.FailDecode.
type Decoding struct {
	Compressed bool       // decode and check every body; false = bodies are only framed (the default)
	Accept     decode.Set // the encodings the request's Accept-Encoding asked for; others fail
	MaxDecoded int64      // decoded bytes per body beyond which it fails; 0 = decode.DefaultMax
}

// setDecoder gives the reader a decoder when the run decodes bodies.
func (f *Fast) setDecoder() {
	if d := f.cfg.Decoding; d.Compressed {
		f.rd.SetDecoder(&decode.Body{Accept: d.Accept, Max: d.MaxDecoded, Expired: f.expired})
	}
}

// expired reports whether the request whose body is being decoded is past
// its deadline (Config.Timeout from its start, or the phased total): a
// body that decodes for longer than the timeout fails as a body timeout,
// as one that arrives too slowly does.
func (f *Fast) expired() bool {
	if f.ph != nil {
		return !time.Now().Before(f.ph.total)
	}
	return clock.Read().After(f.due)
}

// decoded returns the response's body bytes after decoding: those of an
// identity body as received, and 0 when the run does not decode.
func (f *Fast) decoded(r *h1.Response) int64 {
	switch {
	case !f.cfg.Compressed:
		return 0
	case r.Encoding == decode.Identity:
		return r.BodyBytes
	}
	return r.Decoded
}

// failDecode ends an exchange whose response was read whole but whose body
// did not decode: the connection stays open when the response allows it,
// as after any other complete response.
func (f *Fast) failDecode(x *load.Exchange, err error) (stats.Outcome, bool) {
	x.Err = err
	x.KeepAlive = f.resp.KeepAlive && f.cfg.KeepAlive && (f.rd.Buffered() == 0 || f.pending > 0)
	if !x.KeepAlive {
		f.drop(x)
	}
	return stats.FailDecode, false
}
