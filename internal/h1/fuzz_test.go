package h1

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
)

// fuzzSource hands out data in reads whose sizes cycle through sizes (a
// size byte of 0 is a zero-length read, never two in a row), then io.EOF;
// with eofWithData io.EOF comes with the last bytes. It fails the test if
// the Reader keeps reading after the end.
type fuzzSource struct {
	t           *testing.T
	data        []byte
	sizes       []byte
	eofWithData bool
	i           int
	zero        bool  // the last read returned nothing
	n           int64 // bytes handed out
	calls       int
}

func (s *fuzzSource) Read(p []byte) (int, error) {
	// Each read hands out a byte, except zero-length reads (at most every
	// other one) and reads at the end; a Reader in a loop makes many more.
	if total := s.n + int64(len(s.data)); int64(s.calls) > 2*total+1000 {
		s.t.Fatalf("%d reads of a %d-byte input: the Reader is looping", s.calls, total)
	}
	s.calls++
	if len(s.data) == 0 {
		return 0, io.EOF
	}
	k := len(p)
	if len(s.sizes) > 0 {
		size := int(s.sizes[s.i%len(s.sizes)])
		s.i++
		if size == 0 && !s.zero {
			s.zero = true
			return 0, nil
		}
		k = min(k, max(size, 1))
	}
	s.zero = false
	k = copy(p[:k], s.data)
	s.data = s.data[k:]
	s.n += int64(k)
	if len(s.data) == 0 && s.eofWithData {
		return k, io.EOF
	}
	return k, nil
}

// outcome is what a Reader made of a stream: every response, then the
// error that ended it. It must not depend on how the stream was split.
type outcome struct {
	resps  []Response
	server []string
	ends   []int64 // bytes consumed after each complete response
	phase  string  // "header" or "body": where err came from
	err    error
}

func (o *outcome) String() string {
	var b strings.Builder
	for i, r := range o.resps {
		fmt.Fprintf(&b, "%+v server=%q", r, o.server[i])
		if i < len(o.ends) {
			fmt.Fprintf(&b, " end=%d", o.ends[i])
		}
		b.WriteByte('\n')
	}
	fmt.Fprintf(&b, "%s: %v", o.phase, o.err)
	return b.String()
}

// The errors a Reader may return on a source that fails only with io.EOF.
var knownErrs = []error{
	io.EOF, ErrTruncated, ErrStatusLine, ErrStatusLineTLS, ErrStatusLineSSH,
	ErrHeaderLine, ErrHeaderTooLarge, ErrLineTooLong, ErrTooManyFields,
	ErrContentLength, ErrChunk, ErrChunkLine, ErrTooManyInfo, ErrUnexpected101,
}

// fuzzConfig turns the mode byte into the Reader's settings.
func fuzzConfig(mode byte) (head bool, lim Limits, size int) {
	head = mode&1 != 0
	if mode&2 != 0 {
		lim = Limits{MaxHeaderBytes: 256, MaxFields: 4, MaxInfo: 2, MaxChunkLine: 16}
	}
	if mode&4 != 0 {
		size = 4096
	}
	return head, lim, size
}

// readStream reads responses until an error, checking the Reader's
// invariants after every step.
func readStream(t *testing.T, src *fuzzSource, head bool, lim Limits, size int) *outcome {
	t.Helper()
	return readFrom(t, src, src, head, lim, size)
}

// readFrom is readStream over in, which reads from src (src itself, or a
// lentSource over it).
func readFrom(t *testing.T, in io.Reader, src *fuzzSource, head bool, lim Limits, size int) *outcome {
	t.Helper()
	r := NewReader(in, size, lim)
	lim = lim.resolved()
	o := &outcome{}
	var resp Response
	var counted, last int64 // header and body bytes reported; consumed after the last response
	check := func() {
		t.Helper()
		if r.Wire != src.n {
			t.Fatalf("Wire = %d, the source handed out %d", r.Wire, src.n)
		}
		if b := r.Buffered(); b < 0 || b > len(r.buf) {
			t.Fatalf("Buffered() = %d with a %d-byte buffer", b, len(r.buf))
		}
		if len(r.Server()) > 64 {
			t.Fatalf("Server() is %d bytes", len(r.Server()))
		}
		if resp.HeaderBytes < 0 || resp.BodyBytes < 0 || counted+resp.HeaderBytes+resp.BodyBytes > r.Wire {
			t.Fatalf("%d header and %d body bytes (after %d) counted from %d bytes read",
				resp.HeaderBytes, resp.BodyBytes, counted, r.Wire)
		}
	}
	end := func(phase string, err error) *outcome {
		t.Helper()
		check()
		o.resps = append(o.resps, resp)
		o.server = append(o.server, string(r.Server()))
		o.phase, o.err = phase, err
		known := false
		for _, k := range knownErrs {
			known = known || err == k
		}
		if !known {
			t.Fatalf("%s: unexpected error %#v", phase, err)
		}
		if (err == io.EOF) != (phase == "header" && !r.Started()) {
			t.Fatalf("%s: %v with Started() = %v", phase, err, r.Started())
		}
		if err == io.EOF && r.Buffered() != 0 {
			t.Fatalf("io.EOF with %d bytes buffered", r.Buffered())
		}
		return o
	}
	for {
		if err := r.ReadHeader(&resp, head); err != nil {
			return end("header", err)
		}
		check()
		switch {
		case resp.Status < 200 || resp.Status > 999 || resp.Minor < 0 || resp.Minor > 9:
			t.Fatalf("status %d, minor %d", resp.Status, resp.Minor)
		case resp.Info > lim.MaxInfo:
			t.Fatalf("%d interim responses, limit %d", resp.Info, lim.MaxInfo)
		case resp.HeaderBytes <= 0 || resp.HeaderBytes > int64(lim.MaxHeaderBytes):
			t.Fatalf("HeaderBytes = %d, limit %d", resp.HeaderBytes, lim.MaxHeaderBytes)
		case resp.Framing > UntilEOF:
			t.Fatalf("Framing = %d", resp.Framing)
		case resp.Framing == Length && resp.ContentLength < 0:
			t.Fatalf("Length framing with ContentLength %d", resp.ContentLength)
		case resp.Framing != Length && resp.Framing != NoBody && resp.ContentLength != -1:
			t.Fatalf("%d framing with ContentLength %d", resp.Framing, resp.ContentLength)
		case (resp.Framing == NoBody) != (head || resp.Status == 204 || resp.Status == 304):
			t.Fatalf("NoBody = %v for status %d, head %v", resp.Framing == NoBody, resp.Status, head)
		case resp.Framing == UntilEOF && resp.KeepAlive, resp.CLAndTE && resp.KeepAlive:
			t.Fatalf("keep-alive after %+v", resp)
		}
		if err := r.ReadBody(&resp); err != nil {
			return end("body", err)
		}
		check()
		switch resp.Framing {
		case NoBody:
			if resp.BodyBytes != 0 {
				t.Fatalf("%d body bytes without a body", resp.BodyBytes)
			}
		case Length:
			if resp.BodyBytes != resp.ContentLength {
				t.Fatalf("%d body bytes for Content-Length %d", resp.BodyBytes, resp.ContentLength)
			}
		}
		consumed := r.Wire - int64(r.Buffered())
		if consumed <= last {
			t.Fatalf("a response consumed nothing: %d bytes consumed before and after", consumed)
		}
		last = consumed
		counted += resp.HeaderBytes + resp.BodyBytes
		o.resps = append(o.resps, resp)
		o.server = append(o.server, string(r.Server()))
		o.ends = append(o.ends, consumed)
	}
}

// FuzzReader feeds arbitrary bytes, split into reads as sizes says, through
// a Reader. mode selects HEAD (bit 0), small limits (bit 1), a 4 KiB
// buffer (bit 2) and io.EOF delivered with the last bytes (bit 3). Besides
// the Reader's invariants, the outcome must be the one whole reads give.
func FuzzReader(f *testing.F) {
	for _, c := range readCases() {
		if len(c.in) > 8<<10 || c.end != nil {
			continue
		}
		var mode byte
		if c.head {
			mode |= 1
		}
		f.Add([]byte(c.in), []byte{1}, mode)
		f.Add([]byte(c.in), []byte{3, 0, 7}, mode|8)
	}
	for _, s := range []string{
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1;a\r\nx\r\n0\r\nA: b\r\n\r\n",
		"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\n\r\n",
		"HTTP/1.1 200 OK\r\nA: 1\r\nB: 2\r\nC: 3\r\nD: 4\r\nE: 5\r\n\r\n",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1;0123456789abcdef\r\nx\r\n0\r\n\r\n",
		"\x16\x03", "\x15", "S", "SSH-", "HTTP/1.", "HTTP/1.1 200 OK\r\n\r",
	} {
		f.Add([]byte(s), []byte{}, byte(2))
		f.Add([]byte(s), []byte{1}, byte(10))
	}
	// Lines longer than a 4 KiB buffer (which grows for them), at and over
	// MaxLine, between responses that fit.
	long := "HTTP/1.1 200 OK\r\nX-Long: " + strings.Repeat("a", 6000) + "\r\nContent-Length: 2\r\n\r\nok"
	atMax := "HTTP/1.1 200 OK\r\nX-Long: " + strings.Repeat("a", MaxLine-len("X-Long: \r\n")) + "\r\n\r\n"
	for _, s := range []string{hCL5 + "hello" + long + hCL5 + "hello", long + atMax, long + atMax[:30] + "a" + atMax[30:]} {
		f.Add([]byte(s), []byte{}, byte(4))
		f.Add([]byte(s), []byte{200, 0, 255}, byte(4))
	}
	f.Fuzz(func(t *testing.T, data, sizes []byte, mode byte) {
		head, lim, size := fuzzConfig(mode)
		src := &fuzzSource{t: t, data: data, sizes: sizes, eofWithData: mode&8 != 0}
		got := readStream(t, src, head, lim, size)
		if src.n > int64(len(data)) {
			t.Fatalf("read %d bytes of %d", src.n, len(data))
		}
		whole := readStream(t, &fuzzSource{t: t, data: data}, head, lim, size)
		if !sameOutcome(got, whole) {
			t.Fatalf("the outcome depends on how the input is split into reads:\nsplit:\n%v\nwhole reads:\n%v", got, whole)
		}
		split := &fuzzSource{t: t, data: data, sizes: sizes, eofWithData: mode&8 != 0}
		lent := &lentSource{fuzzSource: split}
		if got := readFrom(t, lent, split, head, lim, size); !sameOutcome(got, whole) {
			t.Fatalf("the outcome depends on lent buffers:\nlent:\n%v\nwhole reads:\n%v", got, whole)
		}
		if lent.out > 1 {
			t.Fatalf("%d buffers borrowed at the end, want at most 1", lent.out)
		}
		now := &nowFuzzSource{fuzzSource: &fuzzSource{t: t, data: data, sizes: sizes, eofWithData: mode&8 != 0}}
		r := NewReader(now, size, lim)
		gotNow, _ := readNow(r, head)
		want := readWaiting(NewReader(&fuzzSource{t: t, data: data}, size, lim), head)
		if !slices.Equal(gotNow, want) || r.Wire != now.n {
			t.Fatalf("ReadNow and Parse read otherwise than ReadHeader (Wire %d of %d):\nnow:\n%+v\nwhole reads:\n%+v",
				r.Wire, now.n, gotNow, want)
		}
	})
}

// nowFuzzSource is a fuzzSource that can read without waiting, finding
// nothing every other time.
type nowFuzzSource struct {
	*fuzzSource
	idle bool
}

func (s *nowFuzzSource) ReadNow(p []byte) (int, error) {
	if s.idle = !s.idle; s.idle {
		return 0, nil
	}
	return s.Read(p)
}

// sameOutcome compares two outcomes. A response whose header section
// failed is compared by its error only: how much of it was counted depends
// on where the Reader stopped.
func sameOutcome(a, b *outcome) bool {
	if a.err != b.err || a.phase != b.phase || len(a.resps) != len(b.resps) || !equalInts(a.ends, b.ends) {
		return false
	}
	for i := range a.resps {
		if i == len(a.resps)-1 && a.phase == "header" {
			break
		}
		if a.resps[i] != b.resps[i] || a.server[i] != b.server[i] {
			return false
		}
	}
	return true
}

func equalInts(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// FuzzChunkSize checks parseChunkSize against a plain reading of RFC 9112
// §7.1 (hex digits, optional whitespace, extensions after ';') with gb's
// bound of 15 significant hex digits, and that the Reader frames a chunk
// with that size line the same way.
func FuzzChunkSize(f *testing.F) {
	for _, s := range []string{
		"0", "5", "a", "A", "fF", "000a", "5;ext", "5 ; a=\"b;c\"", "5\t;x", "", ";", "g", "-1", "+1", "0x1", "1 2",
		"fffffffffffffff", "1000000000000000", "ffffffffffffffff", "10000000000000000", "0000000000000000000000000fffffffffffffff",
		" 5", "5 ", "\t\t5\t", "5\r", "5;\r", strings.Repeat("0", 5000) + "1",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		n, ok := parseChunkSize(line)
		wantN, wantOK := refChunkSize(line)
		if n != wantN || ok != wantOK {
			t.Fatalf("parseChunkSize(%q) = %d, %v; want %d, %v", line, n, ok, wantN, wantOK)
		}
		if bytes.ContainsAny(line, "\r\n") || len(line)+2 > 4<<10 || (ok && n > 1<<16) {
			return
		}
		// Through the Reader: the line frames one chunk of n bytes.
		in := hChunked + string(line) + "\r\n"
		if ok && n > 0 {
			in += strings.Repeat("x", int(n)) + "\r\n0\r\n"
		}
		in += "\r\n"
		r := NewReader(&chunkSource{data: []byte(in), size: 1}, 0, Limits{})
		var resp Response
		if err := r.ReadHeader(&resp, false); err != nil {
			t.Fatal(err)
		}
		err := r.ReadBody(&resp)
		switch {
		case ok && (err != nil || resp.BodyBytes != n || r.Buffered() != 0):
			t.Fatalf("chunk line %q: ReadBody = %v, %d body bytes, %d left; want %d bytes", line, err, resp.BodyBytes, r.Buffered(), n)
		case !ok && !errors.Is(err, ErrChunk):
			t.Fatalf("chunk line %q: ReadBody = %v, want ErrChunk", line, err)
		}
	})
}

// refChunkSize is a straightforward reference for parseChunkSize.
func refChunkSize(line []byte) (int64, bool) {
	s := string(line)
	if i := strings.IndexByte(s, ';'); i >= 0 {
		s = s[:i]
	}
	s = strings.Trim(s, " \t")
	if s == "" || strings.Trim(s, "0123456789abcdefABCDEF") != "" {
		return 0, false
	}
	if s = strings.TrimLeft(s, "0"); len(s) > 15 {
		return 0, false // 2^60 or more
	}
	var n int64
	for _, c := range s {
		n = n*16 + int64(strings.IndexRune("0123456789abcdef", c|0x20))
	}
	return n, true
}
