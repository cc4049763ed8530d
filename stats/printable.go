package stats

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Printable returns s with everything a terminal could take for a control
// sequence escaped: control bytes (ESC, CR, BEL, ...), DEL, C1 controls
// and bytes that are not UTF-8 become \xNN, other unprintable runes
// \uNNNN; printable text (non-ASCII letters included) stays. Messages
// that carry a server's bytes (a proxy's reason phrase, an error a
// server's data caused) go through it before they are kept (Counts.Errors)
// or printed. It returns s itself, without allocating, when s needs
// nothing.
func Printable(s string) string {
	i := 0
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		if !printableRune(r, n) {
			break
		}
		i += n
	}
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.WriteString(s[:i])
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case printableRune(r, n):
			b.WriteString(s[i : i+n])
		case r == utf8.RuneError || r < utf8.RuneSelf || r <= 0x9f:
			for _, c := range []byte(s[i : i+n]) {
				b.WriteString(`\x`)
				b.WriteByte(hexDigits[c>>4])
				b.WriteByte(hexDigits[c&15])
			}
		default:
			q := strconv.QuoteRuneToASCII(r) // '\u200b'
			b.WriteString(q[1 : len(q)-1])
		}
		i += n
	}
	return b.String()
}

const hexDigits = "0123456789abcdef"

// printableRune reports whether the rune r, n bytes long in its string,
// is safe to print: valid UTF-8, and a graphic character or a space.
func printableRune(r rune, n int) bool {
	if r < utf8.RuneSelf {
		return ' ' <= r && r < 0x7f
	}
	return !(r == utf8.RuneError && n == 1) && unicode.IsPrint(r)
}
