package decode

import "errors"

// Error is a response body that does not decode: its framing was fine, its
// content coding was not. The values are preallocated (errorFor), so a run
// full of bad bodies does not allocate per response for its errors, and
// their messages are few and fixed (they are tallied by message).
type Error struct {
	Reason string
}

func (e *Error) Error() string { return "decode: " + e.Reason }

// IsError reports whether err is a decode failure (*Error).
// It allocates nothing for nil or an unwrapped *Error.
func IsError(err error) bool {
	if err == nil {
		return false
	}
	if _, ok := err.(*Error); ok {
		return true
	}
	var e *Error
	return errors.As(err, &e)
}

// The encoding-level errors.
var (
	ErrUnknown  = &Error{"unknown content-encoding (gb decodes gzip, br and zstd)"}
	ErrStacked  = &Error{"several content-codings on one body (gb decodes one)"}
	ErrBuffered = &Error{"compressed body larger than the buffer limit"}
)

// kind is what went wrong inside a decodable coding.
type kind uint8

const (
	kindNotAsked kind = iota // the request did not ask for the coding
	kindCorrupt              // the stream is not valid
	kindShort                // the body ends inside the stream
	kindTrailing             // bytes follow the end of the stream
	kindTooLarge             // decodes past Body.Max
	numKinds
)

var errs = func() (t [Unknown][numKinds]*Error) {
	for e := Gzip; e < Unknown; e++ {
		n := e.String()
		t[e] = [numKinds]*Error{
			kindNotAsked: {"content-encoding " + n + " not asked for (Accept-Encoding did not list it)"},
			kindCorrupt:  {n + " body corrupt"},
			kindShort:    {n + " body ends inside the compressed stream"},
			kindTrailing: {"data after the end of the " + n + " stream"},
			kindTooLarge: {n + " body decodes past the limit on decoded bytes (--max-decoded)"},
		}
	}
	return t
}()

// errorFor returns the preallocated error of kind k for encoding e (one of
// Gzip, Brotli, Zstd).
func errorFor(e Encoding, k kind) *Error { return errs[e][k] }

// ErrExpired is Decode's error when Body.Expired said the body's time was
// up. It is a timeout, not a decoding failure (IsError is false): it
// satisfies net.Error with Timeout true, as a passed read deadline does.
var ErrExpired error = expired{}

type expired struct{}

func (expired) Error() string {
	return "decode: the request's deadline passed while its body was decoded"
}
func (expired) Timeout() bool   { return true }
func (expired) Temporary() bool { return true }
