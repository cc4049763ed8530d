package shape

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Limits on what a query may ask for. They keep a misbehaving or mistaken
// client from making the server allocate or run without bound.
const (
	MaxBodySize  = 1 << 40   // generated (streamed) body bytes per response
	MaxListItems = 100       // entries in a weighted list
	MaxDelay     = time.Hour // delay= and the like
	MaxChunks    = 1 << 20   // chunks in a generated chunked body (/chunked?n=)
)

// ErrSyntax is wrapped by every query parsing error.
var ErrSyntax = errors.New("testserver: bad parameter")

// binaryUnits are the size suffixes parseSize accepts, case-insensitively.
var binaryUnits = map[string]float64{
	"": 1, "b": 1,
	"k": 1 << 10, "kb": 1 << 10, "kib": 1 << 10,
	"m": 1 << 20, "mb": 1 << 20, "mib": 1 << 20,
	"g": 1 << 30, "gb": 1 << 30, "gib": 1 << 30,
	"t": 1 << 40, "tb": 1 << 40, "tib": 1 << 40,
}

// parseSize parses a byte count no larger than limit: "1024", "1e6",
// "1.5k", "10KiB", "4m", "10GiB". Suffixes are binary multiples (k = 1024).
func ParseSize(s string, limit int64) (int64, error) {
	i := len(s)
	for i > 0 && strings.ContainsRune("kmgtibKMGTIB", rune(s[i-1])) {
		i--
	}
	unit, ok := binaryUnits[strings.ToLower(s[i:])]
	if !ok || i == 0 {
		return 0, fmt.Errorf("%w: size %q", ErrSyntax, s)
	}
	if n, err := strconv.ParseInt(s[:i], 10, 64); err == nil && unit == 1 {
		if n < 0 || n > limit {
			return 0, fmt.Errorf("%w: size %q out of range [0, %d]", ErrSyntax, s, limit)
		}
		return n, nil
	}
	f, err := strconv.ParseFloat(s[:i], 64)
	f *= unit
	if err != nil || math.IsNaN(f) || f < 0 || f > float64(limit) || f != math.Trunc(f) {
		return 0, fmt.Errorf("%w: size %q (want a whole number of bytes up to %d)", ErrSyntax, s, limit)
	}
	return int64(f), nil
}

// ParseDelay parses a delay: a Go duration ("250us", "1.5s") or a bare
// number of milliseconds ("50"). It must lie in [0, MaxDelay].
func ParseDelay(s string) (time.Duration, error) {
	d, err := time.ParseDuration(s)
	if err != nil {
		ms, ferr := strconv.ParseFloat(s, 64)
		if ferr != nil {
			return 0, fmt.Errorf("%w: duration %q", ErrSyntax, s)
		}
		d = time.Duration(ms * float64(time.Millisecond))
	}
	if d < 0 || d > MaxDelay {
		return 0, fmt.Errorf("%w: duration %q out of range [0, %v]", ErrSyntax, s, MaxDelay)
	}
	return d, nil
}

// ParseStatus parses a final status code in [200, 599].
func ParseStatus(s string) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil || n < 200 || n > 599 {
		return 0, fmt.Errorf("%w: status %q (want 200-599)", ErrSyntax, s)
	}
	return n, nil
}

// parseInt parses a decimal integer in [lo, hi].
func ParseInt(s string, lo, hi int) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil || n < lo || n > hi {
		return 0, fmt.Errorf("%w: %q (want an integer in [%d, %d])", ErrSyntax, s, lo, hi)
	}
	return n, nil
}

// parseHeader parses "Name:Value" for hdr= and trailers=. The name must be
// a token and the value free of control characters, so a query cannot
// inject framing.
func ParseHeader(s string) (name, value string, err error) {
	name, value, ok := strings.Cut(s, ":")
	if !ok || !IsToken(name) {
		return "", "", fmt.Errorf("%w: header %q (want Name:Value)", ErrSyntax, s)
	}
	for _, r := range value {
		if r < ' ' || r == 0x7f {
			return "", "", fmt.Errorf("%w: header %q has a control character", ErrSyntax, s)
		}
	}
	return name, strings.TrimSpace(value), nil
}

// isToken reports whether s is a non-empty RFC 9110 token.
func IsToken(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r >= 0x7f || r <= ' ' || strings.ContainsRune(`"(),/:;<=>?@[\]{}`, r) {
			return false
		}
	}
	return true
}
