package shape

import "sync"

// Bodies are generated, never stored: byte i of every body is 'a'+i%26.
// pattern holds that sequence long enough that any window of up to MaxChunk
// bytes can start at any offset modulo 26.

// MaxChunk is the largest slice patternAt returns, in bytes.
const MaxChunk = 26 * 1260

// pattern is made at its first use: a gb that serves nothing does not
// allocate it at start.
var pattern = sync.OnceValue(func() []byte {
	p := make([]byte, MaxChunk+26)
	for i := range p {
		p[i] = 'a' + byte(i%26)
	}
	return p
})

// patternAt returns the body bytes [off, off+n) for n <= MaxChunk. The
// result aliases pattern and must not be modified.
func PatternAt(off int64, n int) []byte {
	start := int(off % 26)
	return pattern()[start : start+n]
}
