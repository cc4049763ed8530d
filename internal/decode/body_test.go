package decode

import (
	"bytes"
	stdgzip "compress/gzip"
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/andybalholm/brotli"

	"github.com/gb-bench/gb/internal/testsupport"
)

// compress encodes p as enc with a real encoder.
func compress(t testing.TB, enc Encoding, p []byte) []byte {
	return testsupport.Compress(t, enc.String(), p)
}

// text is n bytes of seeded random words: compressible about 3×, as
// prose is, so the streams have many blocks.
func text(n int) []byte {
	words := strings.Fields("gb decodes what it asked for and counts every byte on the wire " +
		"latency request server client body header chunk stream window")
	r := rand.New(rand.NewPCG(1, 2))
	var b bytes.Buffer
	for b.Len() < n {
		b.WriteString(words[r.IntN(len(words))])
		b.WriteByte(' ')
	}
	return b.Bytes()[:n]
}

var codings = []Encoding{Gzip, Brotli, Zstd}

func TestDecodeRoundTrip(t *testing.T) {
	b := NewBody(All)
	for _, enc := range codings {
		for _, size := range []int{1, 100, 40 << 10, 1 << 20} {
			wire := compress(t, enc, text(size))
			// However the body arrives, in reads of 1, 7 or 4097 bytes
			// or whole, it decodes the same.
			for _, read := range []int{1, 7, 4097, len(wire)} {
				n, err := b.Decode(enc, &chunked{data: wire, size: read})
				if err != nil || n != int64(size) {
					t.Errorf("%v %d bytes (%d on the wire), reads of %d: decoded %d, %v", enc, size, len(wire), read, n, err)
				}
			}
		}
	}
	n, err := b.Decode(Identity, bytes.NewReader(text(1234)))
	if err != nil || n != 1234 {
		t.Errorf("identity: %d, %v", n, err)
	}
}

// andybalholm/brotli says "excessive input" for a stream whose last bytes
// were split across reads; gb takes such a stream as complete, and still
// finds bytes after the stream.
func TestDecodeBrotliSplitEnd(t *testing.T) {
	wire := compress(t, Brotli, text(1<<20))
	for _, size := range []int{1, 7, 100, 4096} {
		for _, tail := range []string{"", "tail"} {
			src := &chunked{data: append(append([]byte(nil), wire...), tail...), size: size}
			n, err := NewBody(All).Decode(Brotli, src)
			if tail == "" && (err != nil || n != 1<<20) || tail != "" && err != errorFor(Brotli, kindTrailing) {
				t.Errorf("reads of %d, tail %q: %d, %v", size, tail, n, err)
			}
		}
	}
}

// TestBrotliInternals pins what isBrotliExcess and brotliUnread rely on in the
// andybalholm/brotli version in go.mod: the error's message and the
// Reader's unread input field.
func TestBrotliInternals(t *testing.T) {
	wire := compress(t, Brotli, text(1<<20))
	r := brotli.NewReader(iotest.OneByteReader(bytes.NewReader(wire)))
	var err error
	for err == nil {
		_, err = r.Read(make([]byte, 32<<10))
	}
	in := reflect.ValueOf(r).Elem().FieldByName("in")
	if err == io.EOF {
		t.Log("andybalholm/brotli no longer reports a split stream end as excess input")
	} else if err.Error() != "brotli: excessive input" || !in.IsValid() || in.Kind() != reflect.Slice {
		t.Errorf("andybalholm/brotli changed: %v, field in %v", err, in)
	}
}

// chunked hands out data in reads of at most size bytes.
type chunked struct {
	data []byte
	size int
}

func (c *chunked) Read(p []byte) (int, error) {
	if len(c.data) == 0 {
		return 0, io.EOF
	}
	k := copy(p[:min(len(p), c.size)], c.data)
	c.data = c.data[k:]
	return k, nil
}

func TestDecodeStdlibGzipMultistream(t *testing.T) {
	var w bytes.Buffer
	for range 2 {
		z := stdgzip.NewWriter(&w)
		_, _ = z.Write(text(1000))
		_ = z.Close()
	}
	n, err := NewBody(All).Decode(Gzip, &w)
	if err != nil || n != 2000 {
		t.Errorf("two gzip members: %d, %v", n, err)
	}
}

func TestDecodeFailures(t *testing.T) {
	b := NewBody(All)
	b.Max = 1 << 20
	for _, enc := range codings {
		good := compress(t, enc, text(100<<10))
		corrupt := append([]byte(nil), good...)
		for i := len(corrupt) / 3; i < len(corrupt)/3+16; i++ {
			corrupt[i] ^= 0x55
		}
		bomb := compress(t, enc, make([]byte, 8<<20)) // 8 MiB of zeros
		cases := []struct {
			name string
			body []byte
			want error
		}{
			{"corrupt", corrupt, nil},
			{"garbage", []byte("this is not compressed at all, not even a little"), nil},
			{"short", good[:len(good)/2], errorFor(enc, kindShort)},
			{"trailing", append(append([]byte(nil), good...), "tail"...), nil},
			{"bomb", bomb, errorFor(enc, kindTooLarge)},
			{"empty", nil, nil},
		}
		for _, c := range cases {
			var src io.Reader = bytes.NewReader(c.body)
			if c.name == "trailing" {
				// The tail arrives in a read of its own (brotli cannot
				// report a tail in the same read as the stream's end).
				src = io.MultiReader(bytes.NewReader(good), strings.NewReader("tail"))
			}
			n, err := b.Decode(enc, src)
			if c.name == "trailing" {
				// gzip and zstd read the tail as a broken next member or
				// frame, brotli as trailing data: any decode error,
				// never success.
				if !IsError(err) {
					t.Errorf("%v %s: err %v, want a decode error", enc, c.name, err)
				}
				continue
			}
			if c.name == "corrupt" || c.name == "garbage" {
				// Where a damaged stream is noticed depends on the
				// coding: corrupt or ending early, never success.
				if !IsError(err) {
					t.Errorf("%v %s: %d, %v; want a decode error", enc, c.name, n, err)
				}
				continue
			}
			if err != c.want {
				t.Errorf("%v %s: %d, %v; want %v", enc, c.name, n, err, c.want)
			}
			if c.name == "bomb" && (n <= b.Max || n > b.Max+scratchSize) {
				t.Errorf("%v bomb: decoding stopped after %d bytes, want just past %d", enc, n, b.Max)
			}
		}
		// The Body is still usable after every failure.
		if n, err := b.Decode(enc, bytes.NewReader(good)); err != nil || n != 100<<10 {
			t.Errorf("%v after failures: %d, %v", enc, n, err)
		}
	}
}

func TestDecodeNotAskedAndUnknown(t *testing.T) {
	b := NewBody(Accepted("gzip"))
	if _, err := b.Decode(Zstd, bytes.NewReader(compress(t, Zstd, text(10)))); err != errorFor(Zstd, kindNotAsked) {
		t.Errorf("zstd with only gzip asked: %v", err)
	}
	if _, err := b.Decode(Unknown, bytes.NewReader(text(10))); err != ErrUnknown {
		t.Errorf("unknown: %v", err)
	}
	if _, err := b.Decode(Stacked, bytes.NewReader(text(10))); err != ErrStacked {
		t.Errorf("stacked: %v", err)
	}
}

// A source failure is the caller's error, not the coding's.
func TestDecodeSourceError(t *testing.T) {
	boom := errors.New("connection reset")
	for _, enc := range codings {
		wire := compress(t, enc, text(50<<10))
		src := io.MultiReader(bytes.NewReader(wire[:len(wire)/2]), iotest.ErrReader(boom))
		if _, err := NewBody(All).Decode(enc, src); err != boom {
			t.Errorf("%v: %v, want the source's error", enc, err)
		}
	}
}

func TestWriteClose(t *testing.T) {
	b := NewBody(All)
	for _, enc := range codings {
		wire := compress(t, enc, text(70<<10))
		b.Reset(enc)
		for p := wire; len(p) > 0; p = p[min(len(p), 1000):] {
			if _, err := b.Write(p[:min(len(p), 1000)]); err != nil {
				t.Fatal(err)
			}
		}
		if n, err := b.Close(); err != nil || n != 70<<10 {
			t.Errorf("%v: %d, %v", enc, n, err)
		}
	}
	b.MaxBuffered = 100
	b.Reset(Gzip)
	if _, err := b.Write(make([]byte, 101)); err != ErrBuffered {
		t.Errorf("past MaxBuffered: %v", err)
	}
	if _, err := b.Close(); err != ErrBuffered {
		t.Errorf("Close after an overflow: %v", err)
	}
}

func TestDecodeAllocs(t *testing.T) {
	b := NewBody(All)
	for _, enc := range codings {
		wire := compress(t, enc, text(64<<10))
		r := bytes.NewReader(wire)
		_, _ = b.Decode(enc, r) // first use creates the decoder
		allocs := testing.AllocsPerRun(50, func() {
			r.Reset(wire)
			if _, err := b.Decode(enc, r); err != nil {
				t.Fatal(err)
			}
		})
		// andybalholm/brotli makes its context maps anew for each
		// meta-block (a few small slices per body); gzip and zstd reuse
		// everything.
		want := 0.0
		if enc == Brotli {
			want = 4
		}
		if allocs > want {
			t.Errorf("%v: %.1f allocs per body, want at most %v", enc, allocs, want)
		}
	}
}

func BenchmarkDecode(b *testing.B) {
	for _, enc := range codings {
		wire := compress(b, enc, text(64<<10))
		b.Run(enc.String(), func(b *testing.B) {
			d := NewBody(All)
			r := bytes.NewReader(wire)
			b.SetBytes(64 << 10)
			b.ReportAllocs()
			for b.Loop() {
				r.Reset(wire)
				if _, err := d.Decode(enc, r); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	// The standard library's gzip, for comparison with klauspost's.
	wire := compress(b, Gzip, text(64<<10))
	b.Run("stdlib-gzip", func(b *testing.B) {
		z := new(stdgzip.Reader)
		r := bytes.NewReader(wire)
		scratch := make([]byte, scratchSize)
		b.SetBytes(64 << 10)
		b.ReportAllocs()
		for b.Loop() {
			r.Reset(wire)
			src := source{r: r}
			if err := z.Reset(&src); err != nil {
				b.Fatal(err)
			}
			for {
				_, err := z.Read(scratch)
				if err == io.EOF {
					break
				}
				if err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}

// TestDecodeExpired: a body whose time runs out while it decodes stops at
// the next decoded chunk with ErrExpired, a timeout (net.Error with
// Timeout true) and not a decoding failure, having decoded no more than
// the chunks before it; with time left it decodes whole.
func TestDecodeExpired(t *testing.T) {
	const size = 1 << 20
	for _, enc := range codings {
		wire := compress(t, enc, make([]byte, size)) // a small body that decodes to much more
		for _, after := range []int{0, 3} {
			calls := 0
			b := NewBody(All)
			b.Expired = func() bool { calls++; return calls > after }
			n, err := b.Decode(enc, bytes.NewReader(wire))
			var ne net.Error
			if err != ErrExpired || IsError(err) || !errors.As(err, &ne) || !ne.Timeout() {
				t.Errorf("%v, expired after %d chunks: %v, want ErrExpired, a timeout", enc, after, err)
			}
			if n > int64(after+1)*scratchSize {
				t.Errorf("%v: decoded %d bytes after the time ran out at chunk %d", enc, n, after+1)
			}
		}
		b := NewBody(All)
		b.Expired = func() bool { return false }
		if n, err := b.Decode(enc, bytes.NewReader(wire)); err != nil || n != size {
			t.Errorf("%v with time left: %d bytes, %v", enc, n, err)
		}
	}
}
