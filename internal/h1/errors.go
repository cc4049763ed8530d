package h1

import (
	"errors"
	"io"
)

// ProtocolError is a response that breaks HTTP/1.1 framing or gb's limits.
// The connection it arrived on cannot be reused. The package's errors are
// the preallocated values below, so a run full of bad responses does not
// allocate per request.
type ProtocolError struct {
	Reason string
}

func (e *ProtocolError) Error() string { return "h1: " + e.Reason }

// The protocol errors Reader returns.
var (
	ErrStatusLine     = &ProtocolError{"malformed status line"}
	ErrStatusLineTLS  = &ProtocolError{"malformed status line (the server speaks TLS: use https://)"}
	ErrStatusLineSSH  = &ProtocolError{"malformed status line (the server speaks SSH: wrong port?)"}
	ErrHeaderLine     = &ProtocolError{"malformed header line"}
	ErrHeaderTooLarge = &ProtocolError{"response header section too large"}
	ErrLineTooLong    = &ProtocolError{"response header line longer than 16 KiB"}
	ErrTooManyFields  = &ProtocolError{"too many response header fields"}
	ErrContentLength  = &ProtocolError{"invalid Content-Length"}
	ErrChunk          = &ProtocolError{"malformed chunk"}
	ErrChunkLine      = &ProtocolError{"chunk-size line too long"}
	ErrTooManyInfo    = &ProtocolError{"too many 1xx interim responses"}
	ErrUnexpected101  = &ProtocolError{"unrequested 101 Switching Protocols"}
)

// ErrTruncated is returned when the connection ended (clean EOF, or
// io.ErrUnexpectedEOF as crypto/tls reports a close inside a record) after
// part of a response arrived: inside the headers, before Content-Length
// bytes or the final chunk, or inside a close-delimited body cut mid-record.
// It wraps io.ErrUnexpectedEOF.
var ErrTruncated = truncated{}

type truncated struct{}

func (truncated) Error() string { return "h1: response truncated" }
func (truncated) Unwrap() error { return io.ErrUnexpectedEOF }

// IsProtocol reports whether err is a *ProtocolError.
func IsProtocol(err error) bool {
	var pe *ProtocolError
	return errors.As(err, &pe)
}
