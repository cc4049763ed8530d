package h1

import (
	"cmp"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Header is one request header field, sent as "Name: Value".
type Header struct {
	Name, Value string
}

// Request describes the request a worker sends over and over. Its bytes are
// built once per run with Append; nothing about a request changes per send.
type Request struct {
	Method      string   // "" means GET
	Target      string   // request-target: "/path?query", or an absolute URL through a proxy; "" means "/"
	Host        string   // Host header value, port included when it is not the scheme's default
	UserAgent   string   // "" means no User-Agent header
	Headers     []Header // user headers in order; Host, User-Agent, Accept or Content-Type among them replace the defaults
	Body        []byte   // nil means no body (and no Content-Length unless the method is POST, PUT or PATCH)
	ContentType string   // sent with a body unless Headers has Content-Type or BareBody; "" means text/plain (ab's default)
	BareBody    bool     // send no Content-Type of gb's own with Body: only one among Headers (vegeta's targets do)
	Close       bool     // send "Connection: close": one request per connection
}

// ErrBadHeader is returned (wrapped) by Validate for a header that would
// corrupt the request: an invalid name, or CR, LF or NUL in a value.
var ErrBadHeader = errors.New("invalid header")

// Validate checks the request's fields for bytes that would break the
// request line or split the request (CR, LF, NUL, spaces in the target).
func (r *Request) Validate() error {
	if r.Method != "" && !isToken(r.Method) {
		return fmt.Errorf("invalid method %q", r.Method)
	}
	if strings.ContainsAny(r.Target, " \r\n\x00") {
		return fmt.Errorf("invalid request target %q", r.Target)
	}
	if strings.ContainsAny(r.Host, " \r\n\x00") {
		return fmt.Errorf("invalid host %q", r.Host)
	}
	for _, h := range r.Headers {
		if !isToken(h.Name) {
			return fmt.Errorf("%w: name %q", ErrBadHeader, h.Name)
		}
		if strings.ContainsAny(h.Value, "\r\n\x00") {
			return fmt.Errorf("%w: %s value contains CR, LF or NUL", ErrBadHeader, h.Name)
		}
	}
	if strings.ContainsAny(r.ContentType+r.UserAgent, "\r\n\x00") {
		return fmt.Errorf("%w: Content-Type or User-Agent contains CR, LF or NUL", ErrBadHeader)
	}
	return nil
}

// Append appends the request's wire bytes (HTTP/1.1) to dst and returns
// the extended slice. The header order is: Host, User-Agent, Accept,
// Connection, Content-Length and Content-Type, then the user's headers; a
// user header named like a default replaces it (Content-Type is a singleton
// field: sending both would give the server two).
func (r *Request) Append(dst []byte) []byte {
	method, target := r.Method, r.Target
	if method == "" {
		method = "GET"
	}
	if target == "" {
		target = "/"
	}
	dst = append(dst, method...)
	dst = append(dst, ' ')
	dst = append(dst, target...)
	dst = append(dst, " HTTP/1.1\r\n"...)
	if !r.has("Host") {
		dst = appendField(dst, "Host", r.Host)
	}
	if r.UserAgent != "" && !r.has("User-Agent") {
		dst = appendField(dst, "User-Agent", r.UserAgent)
	}
	if !r.has("Accept") {
		dst = appendField(dst, "Accept", "*/*")
	}
	if r.Close {
		dst = appendField(dst, "Connection", "close")
	}
	if r.Body != nil || r.sendsContent() && !r.has("Content-Length") {
		dst = append(dst, "Content-Length: "...)
		dst = strconv.AppendInt(dst, int64(len(r.Body)), 10)
		dst = append(dst, "\r\n"...)
	}
	if r.Body != nil && !r.BareBody && !r.has("Content-Type") {
		dst = appendField(dst, "Content-Type", cmp.Or(r.ContentType, "text/plain"))
	}
	for _, h := range r.Headers {
		dst = appendField(dst, h.Name, h.Value)
	}
	dst = append(dst, "\r\n"...)
	return append(dst, r.Body...)
}

// sendsContent reports whether r's method defines a meaning for a
// request's content, so that a request without a body still says its
// length, 0 (RFC 9110 §8.6): some servers answer 411 otherwise.
func (r *Request) sendsContent() bool {
	return r.Method == "POST" || r.Method == "PUT" || r.Method == "PATCH"
}

// IsHead reports whether the response to r has no body whatever its headers say.
func (r *Request) IsHead() bool { return r.Method == "HEAD" }

func (r *Request) has(name string) bool {
	for _, h := range r.Headers {
		if strings.EqualFold(h.Name, name) {
			return true
		}
	}
	return false
}

func appendField(dst []byte, name, value string) []byte {
	dst = append(dst, name...)
	dst = append(dst, ": "...)
	dst = append(dst, value...)
	return append(dst, "\r\n"...)
}

// isToken reports whether s is a non-empty RFC 9110 token.
func isToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !tokenChar[s[i]] {
			return false
		}
	}
	return true
}

var tokenChar = func() (t [256]bool) {
	for c := '0'; c <= '9'; c++ {
		t[c] = true
	}
	for c := 'a'; c <= 'z'; c++ {
		t[c] = true
		t[c-'a'+'A'] = true
	}
	for _, c := range "!#$%&'*+-.^_`|~" {
		t[c] = true
	}
	return t
}()
