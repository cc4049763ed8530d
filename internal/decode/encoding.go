package decode

import (
	"bytes"
	"strings"
)

// Encoding is the content coding of one response body, from its
// Content-Encoding header (RFC 9110 §8.4). The zero value is Identity.
type Encoding uint8

// The encodings.
const (
	Identity Encoding = iota // no Content-Encoding, or only "identity"
	Gzip                     // gzip (RFC 1952), also spelled x-gzip
	Brotli                   // br (RFC 7932)
	Zstd                     // zstd (RFC 8878)
	Unknown                  // a coding gb does not decode (deflate, compress, ...)
	Stacked                  // more than one coding applied; gb decodes one
	numEncodings
)

var encodingNames = [numEncodings]string{"identity", "gzip", "br", "zstd", "unknown", "stacked"}

// String returns the coding's name as sent in Content-Encoding ("br" for
// Brotli), or "unknown" / "stacked".
func (e Encoding) String() string {
	if e < numEncodings {
		return encodingNames[e]
	}
	return "unknown"
}

// Add returns the encoding of a body whose codings so far are e and whose
// next Content-Encoding field value is v (a comma-separated list; a
// response may send the field more than once). Case is ignored and
// "identity" adds nothing. It allocates nothing.
func (e Encoding) Add(v []byte) Encoding {
	for len(v) > 0 {
		var tok []byte
		if i := bytes.IndexByte(v, ','); i >= 0 {
			tok, v = trim(v[:i]), v[i+1:]
		} else {
			tok, v = trim(v), nil
		}
		c := parseCoding(tok)
		switch {
		case c == Identity:
		case e == Identity:
			e = c
		default:
			e = Stacked
		}
	}
	return e
}

// parseCoding names one coding token.
func parseCoding(tok []byte) Encoding {
	switch {
	case len(tok) == 0 || equalFold(tok, "identity"):
		return Identity
	case equalFold(tok, "gzip"), equalFold(tok, "x-gzip"):
		return Gzip
	case equalFold(tok, "br"):
		return Brotli
	case equalFold(tok, "zstd"):
		return Zstd
	}
	return Unknown
}

// Set is a set of the encodings gb decodes, as asked for by a request's
// Accept-Encoding. The zero value is empty.
type Set uint8

// All is every encoding gb decodes.
const All = Set(1<<Gzip | 1<<Brotli | 1<<Zstd)

// AcceptEncoding is the header value --compressed sends: every coding in
// All.
const AcceptEncoding = "gzip, br, zstd"

// Has reports whether e is in the set. Identity always is.
func (s Set) Has(e Encoding) bool { return e == Identity || (e < Unknown && s&(1<<e) != 0) }

// Accepted returns the decodable encodings an Accept-Encoding value asks
// for (RFC 9110 §12.5.3): the listed codings, minus those with q=0; "*"
// stands for every one not listed.
func Accepted(v string) Set {
	var s, listed Set
	star := false
	for len(v) > 0 {
		var item string
		item, v, _ = strings.Cut(v, ",")
		name, params, _ := strings.Cut(item, ";")
		zero := qZero(params)
		tok := trim([]byte(name))
		if equalFold(tok, "*") {
			star = !zero
			continue
		}
		if c := parseCoding(tok); c != Identity && c != Unknown {
			listed |= 1 << c
			if !zero {
				s |= 1 << c
			}
		}
	}
	if star {
		s |= All &^ listed
	}
	return s
}

// qZero reports whether the parameters of an Accept-Encoding item say q=0.
func qZero(params string) bool {
	p := strings.ToLower(strings.TrimSpace(params))
	q, ok := strings.CutPrefix(p, "q=")
	return ok && strings.Trim(q, "0.") == "" && q != ""
}

// trim trims optional whitespace (SP, HTAB) from both ends.
func trim(b []byte) []byte { return bytes.Trim(b, " \t") }

// equalFold reports whether b equals s, ignoring ASCII case.
func equalFold(b []byte, s string) bool {
	return len(b) == len(s) && bytes.EqualFold(b, []byte(s))
}
