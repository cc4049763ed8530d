package decode

import (
	"bytes"
	"errors"
	"io"
	"reflect"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// DefaultMax is the decoded size of one body past which decoding stops
// with an error when Body.Max is 0: 256 MiB. It bounds the time a
// decompression bomb costs; memory is bounded anyway, since decoded bytes
// go to a fixed scratch buffer and are never kept.
const DefaultMax = 256 << 20

// DefaultMaxBuffered is how many compressed bytes Write buffers for one
// body when Body.MaxBuffered is 0: 64 MiB.
const DefaultMaxBuffered = 64 << 20

// MaxZstdWindow is the largest zstd window gb decodes: 8 MiB, the limit
// RFC 9659 sets for zstd as an HTTP content coding. It bounds a zstd
// decoder's memory.
const MaxZstdWindow = 8 << 20

// scratchSize is the buffer decoded bytes are written into and dropped.
const scratchSize = 32 << 10

// Body decodes response bodies and counts their decoded bytes, keeping
// none of them. One Body serves one connection (or one worker) at a time:
// its decoders are created on first use of each encoding and reused for
// every later body (Reset), so in steady state decoding a body allocates
// nothing. A Body is not safe for concurrent use.
//
// Two ways to use it:
//   - Decode(enc, src): streaming, for a reader that can hand out the body
//     as an io.Reader (gb's HTTP/1.1 reader does): the decoder pulls
//     compressed bytes as they arrive and nothing is buffered.
//   - Reset(enc), Write(p)..., Close(): for a client that receives a body
//     in pieces it cannot stop for (HTTP/2 DATA frames of interleaved
//     streams): Write buffers the compressed bytes (at most MaxBuffered,
//     in a buffer reused across bodies) and Close decodes them.
type Body struct {
	// Accept is the set of encodings the request asked for; a body in
	// any other coding fails with a "not asked for" error.
	Accept Set
	// Max bounds one body's decoded bytes; 0 = DefaultMax.
	Max int64
	// MaxBuffered bounds the compressed bytes Write keeps for one body;
	// 0 = DefaultMaxBuffered.
	MaxBuffered int
	// Expired, when set, is asked after every decoded chunk (32 KiB)
	// whether the body's time is up: decoding a small compressed body
	// can take seconds, with no read to meet a connection's deadline.
	// When it says so, Decode stops with ErrExpired. nil = never.
	Expired func() bool

	gz      *gzip.Reader
	br      *brotli.Reader
	zs      *zstd.Decoder
	src     source
	scratch []byte

	enc  Encoding     // Write's body
	buf  []byte       // Write's compressed bytes
	werr error        // Write's failure, returned by Close
	rd   bytes.Reader // Close's view of buf
}

// NewBody returns a Body that accepts the encodings in accept.
func NewBody(accept Set) *Body { return &Body{Accept: accept} }

// Decode reads src to its end (io.EOF) and decodes it as enc, discarding
// the output, and returns the number of decoded bytes (those decoded
// before a failure included). Identity bodies are counted as read.
//
// The error is nil when the body decoded completely (an empty body decodes
// to nothing whatever its coding); an *Error when it did not (corrupt,
// ending early, data after the stream, too large, a coding that was not
// asked for or that gb cannot decode), after which src may be left
// unread; or src's own error, unchanged, when src failed first (a
// truncated or broken response is the connection's failure, not the
// coding's).
func (b *Body) Decode(enc Encoding, src io.Reader) (int64, error) {
	b.src = source{r: src}
	switch {
	case enc == Unknown:
		return 0, ErrUnknown
	case enc == Stacked:
		return 0, ErrStacked
	case !b.Accept.Has(enc):
		return 0, errorFor(enc, kindNotAsked)
	}
	if b.scratch == nil {
		b.scratch = make([]byte, scratchSize)
	}
	r, err := b.reset(enc)
	var n int64
	if err == nil {
		n, err = b.copy(r, enc)
	}
	if err == nil && enc != Identity {
		err = b.trailing(enc)
	}
	return n, b.verdict(enc, err)
}

// reset readies the decoder for enc over b.src and returns it.
func (b *Body) reset(enc Encoding) (io.Reader, error) {
	switch enc {
	case Gzip:
		if b.gz == nil {
			b.gz = new(gzip.Reader)
		}
		err := b.gz.Reset(&b.src)
		return b.gz, err
	case Brotli:
		if b.br == nil {
			b.br = new(brotli.Reader)
		}
		err := b.br.Reset(&b.src)
		return b.br, err
	case Zstd:
		if b.zs == nil {
			zs, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1),
				zstd.WithDecoderMaxWindow(MaxZstdWindow))
			if err != nil {
				return nil, err
			}
			b.zs = zs
		}
		err := b.zs.Reset(&b.src)
		return b.zs, err
	}
	return &b.src, nil
}

// copy reads r to its end into the scratch buffer and counts the bytes.
func (b *Body) copy(r io.Reader, enc Encoding) (int64, error) {
	limit := b.Max
	if limit <= 0 {
		limit = DefaultMax
	}
	var n int64
	for {
		k, err := r.Read(b.scratch)
		n += int64(k)
		if n > limit && enc != Identity {
			return n, errorFor(enc, kindTooLarge)
		}
		if b.Expired != nil && err == nil && b.Expired() {
			return n, ErrExpired
		}
		if enc == Brotli && isBrotliExcess(err) {
			if b.brotliUnread() == 0 {
				return n, nil // a clean end, split across reads
			}
			return n, errorFor(Brotli, kindTrailing)
		}
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, err
		}
	}
}

// isBrotliExcess reports whether err is andybalholm/brotli's "excessive
// input". The library returns it at a complete stream's end when bytes
// follow the stream in its input buffer (real trailing data), but also,
// wrongly, when the stream's last bytes were split across source reads
// (its internal bit-reader buffer is left marked as used). The two differ
// only in the Reader's unread input: see brotliUnread.
func isBrotliExcess(err error) bool {
	return err != nil && err.Error() == "brotli: excessive input"
}

// brotliUnread returns the length of the brotli Reader's unexported unread
// input, read by reflection (pinned by TestBrotliInternals for the version
// in go.mod); 1 when it cannot be read.
func (b *Body) brotliUnread() int {
	in := reflect.ValueOf(b.br).Elem().FieldByName("in")
	if !in.IsValid() || in.Kind() != reflect.Slice {
		return 1
	}
	return in.Len()
}

// trailing checks that the body ends where the compressed stream did.
func (b *Body) trailing(enc Encoding) error {
	for {
		k, err := b.src.Read(b.scratch[:1])
		if k > 0 {
			return errorFor(enc, kindTrailing)
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// verdict turns the error that ended decoding into Decode's error.
func (b *Body) verdict(enc Encoding, err error) error {
	de, isDecode := err.(*Error)
	switch {
	case err == nil:
		return nil
	case err == ErrExpired:
		return err
	case b.src.err != nil:
		return b.src.err
	case b.src.n == 0 && b.src.eof:
		return nil // an empty body
	case isDecode:
		return de
	case err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF):
		return errorFor(enc, kindShort)
	}
	return errorFor(enc, kindCorrupt)
}

// Reset starts a body of encoding enc for Write and Close.
func (b *Body) Reset(enc Encoding) {
	b.enc, b.buf, b.werr = enc, b.buf[:0], nil
}

// Write buffers compressed bytes of the body Reset started. Past
// MaxBuffered bytes it keeps nothing more and returns ErrBuffered, which
// Close returns too.
func (b *Body) Write(p []byte) (int, error) {
	limit := b.MaxBuffered
	if limit <= 0 {
		limit = DefaultMaxBuffered
	}
	if b.werr == nil && len(b.buf)+len(p) > limit {
		b.werr = ErrBuffered
	}
	if b.werr != nil {
		return 0, b.werr
	}
	b.buf = append(b.buf, p...)
	return len(p), nil
}

// Close decodes the bytes written since Reset, as Decode does, and
// returns the decoded byte count and Decode's error (or Write's).
func (b *Body) Close() (int64, error) {
	if b.werr != nil {
		return 0, b.werr
	}
	b.rd.Reset(b.buf)
	return b.Decode(b.enc, &b.rd)
}

// source is the decoders' view of the body: it counts what it hands out
// and keeps the body's own failure apart from the coding's.
type source struct {
	r   io.Reader
	n   int64 // bytes read
	eof bool  // r returned io.EOF
	err error // r's first error other than io.EOF
}

func (s *source) Read(p []byte) (int, error) {
	k, err := s.r.Read(p)
	s.n += int64(k)
	switch {
	case err == io.EOF:
		s.eof = true
	case err != nil && s.err == nil:
		s.err = err
	}
	return k, err
}
