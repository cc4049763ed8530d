package h1

import "bytes"

// trimOWS trims optional whitespace (SP, HTAB) from both ends.
func trimOWS(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t') {
		b = b[1:]
	}
	for len(b) > 0 && (b[len(b)-1] == ' ' || b[len(b)-1] == '\t') {
		b = b[:len(b)-1]
	}
	return b
}

// equalFold reports whether b equals the lower-case ASCII string s,
// ignoring ASCII case in b.
func equalFold(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i := 0; i < len(b); i++ {
		c := b[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != s[i] {
			return false
		}
	}
	return true
}

// lastToken returns the last non-empty comma-separated element of a list
// value, or nil when it has none: RFC 9110 §5.6.1 has recipients ignore
// empty elements, so "chunked," ends in chunked.
func lastToken(b []byte) []byte {
	for {
		i := bytes.LastIndexByte(b, ',')
		if t := trimOWS(b[i+1:]); len(t) > 0 || i < 0 {
			return t
		}
		b = b[:i]
	}
}

// parseDecimal parses a non-negative decimal of at most 18 digits.
func parseDecimal(b []byte) (int64, bool) {
	if len(b) == 0 || len(b) > 18 {
		return 0, false
	}
	var n int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	return n, true
}
