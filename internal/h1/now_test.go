package h1

import (
	"fmt"
	"io"
	"slices"
	"testing"
)

// nowSource is a chunkSource that can also read without waiting: every
// other ReadNow finds nothing yet, as a socket between two segments.
type nowSource struct {
	chunkSource
	idle bool
}

func (s *nowSource) ReadNow(p []byte) (int, error) {
	if s.idle = !s.idle; s.idle {
		return 0, nil
	}
	return s.Read(p)
}

// ending is what a stream's next response came to: its fields, or the
// error that ended the stream.
type ending struct {
	resp    Response
	server  string
	err     string
	started bool
}

// readWaiting reads the responses of src with ReadHeader and ReadBody until
// an error.
func readWaiting(r *Reader, head bool) []ending {
	var out []ending
	for len(out) < 100 {
		var resp Response
		err := r.ReadHeader(&resp, head)
		if err == nil {
			err = r.ReadBody(&resp)
		}
		out = append(out, result(r, resp, err))
		if err != nil {
			return out
		}
	}
	return out
}

// readNow reads the same responses as an event loop's handler does: ReadNow
// and Parse while they can go on, ReadHeader and ReadBody for a response
// they leave.
func readNow(r *Reader, head bool) (out []ending, parsed int) {
	for len(out) < 100 {
		var resp Response
		var whole bool
		for {
			if _, ok := r.ReadNow(); !ok {
				break
			}
			var ok bool
			if whole, ok = r.Parse(&resp, head); whole || !ok {
				break
			}
		}
		var err error
		if whole {
			parsed++
		} else if err = r.ReadHeader(&resp, head); err == nil {
			err = r.ReadBody(&resp)
		}
		out = append(out, result(r, resp, err))
		if err != nil {
			return out, parsed
		}
	}
	return out, parsed
}

func result(r *Reader, resp Response, err error) ending {
	if err != nil {
		return ending{err: fmt.Sprint(err), started: r.Started()}
	}
	return ending{resp: resp, server: string(r.Server()), started: r.Started()}
}

// TestParseReadsAsReadHeader: every stream of the reader's cases, in reads
// of every size, gives the same responses and the same error read by
// ReadNow and Parse (falling back to ReadHeader and ReadBody where they
// stop) as read by ReadHeader and ReadBody alone, and every byte read is
// counted once.
func TestParseReadsAsReadHeader(t *testing.T) {
	parsedAny := 0
	for _, c := range readCases() {
		for _, size := range []int{1, 3, 7, 64, 0} {
			if size == 1 && len(c.in) > 64<<10 {
				continue
			}
			waitSrc := &chunkSource{data: []byte(c.in), size: size, end: c.end}
			want := readWaiting(NewReader(waitSrc, c.buf, c.lim), c.head)
			nowSrc := &nowSource{chunkSource: chunkSource{data: []byte(c.in), size: size, end: c.end}}
			r := NewReader(nowSrc, c.buf, c.lim)
			got, parsed := readNow(r, c.head)
			parsedAny += parsed
			if !slices.Equal(got, want) {
				t.Errorf("%s, reads of %d: read now\n%+v\nwaiting\n%+v", c.name, size, got, want)
			}
			if r.Wire != nowSrc.n {
				t.Errorf("%s, reads of %d: Wire %d, the source gave %d", c.name, size, r.Wire, nowSrc.n)
			}
		}
	}
	if parsedAny == 0 {
		t.Error("Parse never read a whole response")
	}
}

// TestParseLeavesWhatItCannotFinish: a response in two parts is not
// consumed until its second part arrives; one framed by the connection's
// end, or malformed, is left whole for ReadHeader.
func TestParseLeavesWhatItCannotFinish(t *testing.T) {
	src := &nowSource{chunkSource: chunkSource{data: []byte(hCL5 + "hel")}}
	src.idle = true // the next ReadNow reads
	r := NewReader(src, 0, Limits{})
	var resp Response
	if n, ok := r.ReadNow(); n != len(hCL5)+3 || !ok {
		t.Fatalf("ReadNow = %d, %v", n, ok)
	}
	if whole, ok := r.Parse(&resp, false); whole || !ok || r.Buffered() != len(hCL5)+3 {
		t.Fatalf("Parse of a partial response = %v, %v with %d buffered; want false, true, all of it", whole, ok, r.Buffered())
	}
	src.data, src.idle = []byte("lo"), true
	if n, ok := r.ReadNow(); n != 2 || !ok {
		t.Fatalf("ReadNow = %d, %v", n, ok)
	}
	if whole, ok := r.Parse(&resp, false); !whole || !ok || resp.BodyBytes != 5 || r.Buffered() != 0 {
		t.Fatalf("Parse = %v, %v, body %d, %d left; want the whole response", whole, ok, resp.BodyBytes, r.Buffered())
	}
	for _, in := range []string{hClose + "body", "HTTP/1.1 20x OK\r\n\r\n"} {
		src := &nowSource{chunkSource: chunkSource{data: []byte(in)}, idle: true}
		r := NewReader(src, 0, Limits{})
		r.ReadNow()
		if whole, ok := r.Parse(&resp, false); whole || ok || r.Buffered() != len(in) {
			t.Errorf("Parse(%q) = %v, %v with %d buffered; want false, false, all of it", in, whole, ok, r.Buffered())
		}
	}
	if _, ok := NewReader(&chunkSource{data: []byte(hCL5)}, 0, Limits{}).ReadNow(); ok {
		t.Error("ReadNow over a source that cannot read without waiting reported ok")
	}
	end := &nowSource{idle: true}
	r = NewReader(end, 0, Limits{})
	if _, ok := r.ReadNow(); ok {
		t.Error("ReadNow at the end of the stream reported ok")
	}
	if err := r.ReadHeader(&resp, false); err != io.EOF {
		t.Errorf("ReadHeader after ReadNow met the end = %v, want the held io.EOF", err)
	}
}
