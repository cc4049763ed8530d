package testserver

// Bodies are generated, never stored: byte i of every body is 'a'+i%26.
// pattern holds that sequence long enough that any window of up to maxChunk
// bytes can start at any offset modulo 26.

// maxChunk is the largest slice patternAt returns, in bytes.
const maxChunk = 26 * 1260

var pattern = func() []byte {
	p := make([]byte, maxChunk+26)
	for i := range p {
		p[i] = 'a' + byte(i%26)
	}
	return p
}()

// patternAt returns the body bytes [off, off+n) for n <= maxChunk. The
// result aliases pattern and must not be modified.
func patternAt(off int64, n int) []byte {
	start := int(off % 26)
	return pattern[start : start+n]
}
