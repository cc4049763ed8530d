package h1

// Kept is what a Reader keeps of each response for a script
// (Reader.Keep): its header lines and its body (chunked bodies
// de-chunked; bodies are not content-decoded). Both are reused by the
// next response.
type Kept struct {
	Fields []byte // the final response's header lines, each ended by "\n"
	Body   []byte // the body's first MaxBody bytes
	// MaxBody bounds the body kept, in bytes; 0 = DefaultKeepBody, < 0 =
	// none (the header lines only). The rest of a longer body is read and
	// discarded as usual.
	MaxBody int
}

// DefaultKeepBody is the longest body Kept holds when MaxBody is 0.
const DefaultKeepBody = 4 << 20

// reset empties k for the next response (or interim response).
func (k *Kept) reset() { k.Fields, k.Body = k.Fields[:0], k.Body[:0] }

// field keeps one header line.
func (k *Kept) field(line []byte) {
	k.Fields = append(k.Fields, line...)
	k.Fields = append(k.Fields, '\n')
}

// body keeps b, the next body bytes, within MaxBody.
func (k *Kept) body(b []byte) {
	limit := k.MaxBody
	if limit == 0 {
		limit = DefaultKeepBody
	}
	if room := limit - len(k.Body); room > 0 {
		k.Body = append(k.Body, b[:min(len(b), room)]...)
	}
}
