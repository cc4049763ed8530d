package fault

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"

	"github.com/gb-bench/gb/internal/testserver/shape"
)

// The fault listener's header oddities and non-HTTP replies.

// Limits of /big-headers.
const (
	maxBigHeaders = 64 << 20 // bytes=
	maxHeaderRows = 1 << 20  // count=
)

// serveFold answers /fold: the usual reply with an obs-fold header line,
// "X-Fold: a" CRLF SP "b".
func serveFold(ex *exchange) verdict {
	r := ex.common(defaultShape, shape.Keys{})
	r.hdrs = append(r.hdrs, "X-Fold: a\r\n b")
	return ex.send(r)
}

// serveSpaceColon answers /space-colon?name=X-Space: the usual reply with a
// header "name : 1" (whitespace before the colon).
func serveSpaceColon(ex *exchange) verdict {
	r := ex.common(defaultShape, shape.Keys{})
	name := ex.q.Get("name")
	if name == "" {
		name = "X-Space"
	}
	if !shape.IsToken(name) {
		ex.fail(fmt.Errorf("%w: name=%q", shape.ErrSyntax, name))
	}
	r.hdrs = append(r.hdrs, name+" : 1")
	return ex.send(r)
}

// serveNonASCII answers /non-ascii-hdr: the usual reply with a header
// value holding UTF-8 ("café") and the bytes 0xFF 0xFE.
func serveNonASCII(ex *exchange) verdict {
	r := ex.common(defaultShape, shape.Keys{})
	r.hdrs = append(r.hdrs, "X-Non-Ascii: caf\xc3\xa9 \xff\xfe")
	return ex.send(r)
}

// serveBareLF answers /bare-lf: the usual reply with LF line ends in the
// head.
func serveBareLF(ex *exchange) verdict {
	r := ex.common(defaultShape, shape.Keys{})
	r.frame = "cl"
	if ex.perr != nil {
		return ex.badParams()
	}
	if !ex.sleep(r.delay) {
		return finish
	}
	head := strings.ReplaceAll(string(r.head(ex.req)), "\r\n", "\n")
	if !ex.write([]byte(head)) || !ex.body(0, r.size) {
		return finish
	}
	return closeOrKeep(ex, r)
}

// serveBigHeaders answers /big-headers?bytes=&count=: count header lines
// "X-Big-i: aaa..." of about bytes/count bytes each (bytes default 1 MiB;
// count default one line per KiB), written in batches, never held whole.
func serveBigHeaders(ex *exchange) verdict {
	total := ex.size("bytes", 1<<20)
	count := int64(ex.num("count", int(max(total/1024, 1)), 1, maxHeaderRows))
	if total > maxBigHeaders {
		ex.fail(fmt.Errorf("%w: bytes= above %d", shape.ErrSyntax, maxBigHeaders))
	}
	if ex.perr != nil {
		return ex.badParams()
	}
	head := reply{code: http.StatusOK}.head(ex.req)
	if !ex.write(head[:len(head)-2]) {
		return finish
	}
	per := total / count
	var b []byte
	for i := range count {
		name := "X-Big-" + strconv.FormatInt(i, 10) + ": "
		b = append(b, name...)
		for v := max(per-int64(len(name))-2, 1); v > 0; v -= shape.MaxChunk {
			b = append(b, shape.PatternAt(0, int(min(v, shape.MaxChunk)))...)
		}
		b = append(b, "\r\n"...)
		if len(b) >= shape.MaxChunk || i == count-1 {
			if !ex.write(b) {
				return finish
			}
			b = b[:0]
		}
	}
	if !ex.write([]byte("\r\n")) {
		return finish
	}
	return keepUnless(ex)
}

// garbage holds the fixed replies of /garbage.
var garbage = map[string]string{
	"ssh":   "SSH-2.0-OpenSSH_9.6\r\n",
	"tls":   "\x16\x03\x03\x00\x04\x02\x00\x00\x00", // a TLS handshake record (ServerHello header)
	"empty": "",
	"html":  "<html><body><h1>It works!</h1></body></html>\n",
}

// serveGarbage answers /garbage?kind=: bytes that are not an HTTP response,
// then FIN. kind=random writes 64 bytes from the generator of seed=.
func serveGarbage(ex *exchange) verdict {
	kind := ex.choice("kind", "random", "ssh", "tls", "empty", "html")
	seed, err := strconv.ParseUint(ex.q.Get("seed"), 10, 64)
	if err != nil && ex.q.Has("seed") {
		ex.fail(fmt.Errorf("%w: seed %q", shape.ErrSyntax, ex.q.Get("seed")))
	}
	if ex.perr != nil {
		return ex.badParams()
	}
	b := []byte(garbage[kind])
	if kind == "random" {
		b = make([]byte, 64)
		ex.s.dice.Roll(seed, func(r *rand.Rand) {
			for i := range b {
				b[i] = byte(r.Uint32())
			}
		})
	}
	ex.write(b)
	return finish
}
