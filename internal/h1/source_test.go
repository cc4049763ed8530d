package h1

import "io"

// chunkSource hands out data in reads of at most size bytes (0: as many as
// the caller's buffer takes), then returns end (io.EOF when nil) for ever.
// With eofWithData the end error comes with the last bytes, as some
// io.Readers do, instead of on the next call.
type chunkSource struct {
	data        []byte
	size        int
	eofWithData bool
	end         error
	n           int64 // bytes handed out
}

func (s *chunkSource) Read(p []byte) (int, error) {
	end := s.end
	if end == nil {
		end = io.EOF
	}
	if len(s.data) == 0 {
		return 0, end
	}
	k := len(p)
	if s.size > 0 && s.size < k {
		k = s.size
	}
	k = copy(p[:k], s.data)
	s.data = s.data[k:]
	s.n += int64(k)
	if len(s.data) == 0 && s.eofWithData {
		return k, end
	}
	return k, nil
}

// loopSource replays the same bytes for ever, as a keep-alive connection
// that answers every request identically would. It allocates nothing.
type loopSource struct {
	data []byte
	i    int
}

func (s *loopSource) Read(p []byte) (int, error) {
	n := copy(p, s.data[s.i:])
	if s.i += n; s.i == len(s.data) {
		s.i = 0
	}
	return n, nil
}

// lentSource is a Lender over a fuzzSource. A buffer given back is
// overwritten at once, as another connection's read would, so a Reader that
// used a buffer after returning it would see garbage.
type lentSource struct {
	*fuzzSource
	free [][]byte
	out  int    // buffers borrowed and not returned
	lent []byte // the buffer borrowed last
}

func (s *lentSource) WaitReadable() error { return nil }

func (s *lentSource) Borrow(size int) []byte {
	if s.out++; s.out > 1 {
		s.t.Fatalf("%d buffers borrowed at once by one Reader", s.out)
	}
	if n := len(s.free); n > 0 {
		s.lent = s.free[n-1]
		s.free = s.free[:n-1]
		return s.lent
	}
	s.lent = make([]byte, size)
	return s.lent
}

func (s *lentSource) Return(buf []byte) {
	if len(buf) == 0 || len(s.lent) == 0 || &buf[0] != &s.lent[0] {
		s.t.Fatalf("a buffer of %d bytes given back that was not lent", len(buf))
	}
	s.out--
	for i := range buf {
		buf[i] = 'H'
	}
	s.free = append(s.free, buf)
}
