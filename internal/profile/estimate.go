package profile

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"io"

	pprof "github.com/google/pprof/profile"
)

// The memory a parsed profile holds per element, in bytes: pprof's
// structs, the slack of slices grown by append while decoding, and the
// decoder's maps. Measured with TestEstimateBoundsParse, rounded up.
const (
	costBase     = 64 << 10
	costSample   = 224
	costLocID    = 24
	costValue    = 24
	costLabel    = 448
	costLocation = 256
	costLine     = 48
	costFunction = 224
	costMapping  = 256
	costString   = 128 // plus its length
	costOther    = 96  // a sample type, a comment
)

// errMalformed is scan's error for bytes that are not protobuf.
var errMalformed = errors.New("profile: malformed protobuf")

// estimate returns how much memory parsing the uncompressed pprof
// protobuf b would take (see scan).
func estimate(b []byte) (int64, error) {
	_, est, err := scan(bytes.NewReader(b), int64(len(b)))
	return est, err
}

// scan reads an uncompressed pprof protobuf from r, without keeping it,
// and returns its size and how much memory parsing it would take, from
// its element counts: it walks the fields of the Profile message and of
// each sample and location (other messages are counted, not opened). It
// fails with errTooLarge past limit bytes (also when the bytes are not
// protobuf: a bomb is too large before it is malformed), with
// errMalformed, or with r's error.
func scan(r io.Reader, limit int64) (size, est int64, err error) {
	s := &scanner{r: bufio.NewReaderSize(r, 32<<10), left: limit}
	est, err = s.profile()
	if errors.Is(err, errMalformed) { // drain, to tell a bomb from garbage
		for {
			if _, e := s.next(); e != nil {
				if e != io.EOF {
					err = e
				}
				break
			}
		}
	}
	return limit - s.left, est, err
}

// scanner reads protobuf from r, counting the bytes it may still read.
type scanner struct {
	r       *bufio.Reader
	left    int64
	readErr error // r's first error other than io.EOF
}

// next returns the next byte; errTooLarge when the limit is passed.
func (s *scanner) next() (byte, error) {
	c, err := s.r.ReadByte()
	if err != nil {
		if err != io.EOF && s.readErr == nil {
			s.readErr = err
		}
		return 0, err
	}
	if s.left--; s.left < 0 {
		return 0, errTooLarge
	}
	return c, nil
}

// ReadByte makes a scanner an io.ByteReader for binary.ReadUvarint.
func (s *scanner) ReadByte() (byte, error) { return s.next() }

// varint reads one varint: r's error, errTooLarge, or errMalformed for
// the end of the input inside it or an overflow.
func (s *scanner) varint() (uint64, error) {
	v, err := binary.ReadUvarint(s)
	switch {
	case err == nil:
		return v, nil
	case s.readErr != nil:
		return 0, s.readErr
	case errors.Is(err, errTooLarge):
		return 0, err
	}
	return 0, errMalformed
}

// field reads a field's key; io.EOF at the end of the input.
func (s *scanner) field() (num int, wire uint64, err error) {
	if _, err := s.r.Peek(1); err == io.EOF {
		return 0, 0, io.EOF
	}
	key, err := s.varint()
	if err != nil {
		return 0, 0, err
	}
	if key>>3 == 0 || key>>3 > 1<<29 {
		return 0, 0, errMalformed
	}
	return int(key >> 3), key & 7, nil
}

// skip reads past n bytes, returning how many of them end a varint (the
// elements of a packed field).
func (s *scanner) skip(n uint64) (varints int64, err error) {
	for ; n > 0; n-- {
		c, err := s.next()
		switch {
		case s.readErr != nil:
			return 0, s.readErr
		case err == io.EOF:
			return 0, errMalformed
		case err != nil:
			return 0, err
		}
		if c < 0x80 {
			varints++
		}
	}
	return varints, nil
}

// value reads past a field's value of wire type wire and returns its
// element count: 1, or for a length-delimited field the varints in it.
func (s *scanner) value(wire uint64) (int64, error) {
	switch wire {
	case 0:
		_, err := s.varint()
		return 1, err
	case 1:
		_, err := s.skip(8)
		return 1, err
	case 5:
		_, err := s.skip(4)
		return 1, err
	case 2:
		n, err := s.varint()
		if err != nil {
			return 0, err
		}
		return s.skip(n)
	}
	return 0, errMalformed
}

// profile scans the Profile message to its end.
func (s *scanner) profile() (int64, error) {
	if head, err := s.r.Peek(2); err == nil && isGzip(head) {
		return 0, errNestedGzip
	}
	est := int64(costBase)
	for {
		num, wire, err := s.field()
		if err == io.EOF {
			return est, nil
		}
		if err != nil {
			return est, err
		}
		var n int64
		switch {
		case wire == 2 && num == 2:
			n, err = s.message(sampleCost)
			est += costSample + n
		case wire == 2 && num == 4:
			n, err = s.message(locationCost)
			est += costLocation + n
		default:
			before := s.left
			n, err = s.value(wire)
			switch num {
			case 1, 11, 13: // sample_type, period_type, comment
				est += costOther * max(n, 1)
			case 3:
				est += costMapping
			case 5:
				est += costFunction
			case 6:
				est += costString + before - s.left
			}
		}
		if err != nil {
			return est, err
		}
	}
}

// sampleCost is the memory of field num of a sample, with n elements:
// location ids and values (packed), labels (messages).
func sampleCost(num int, n int64) int64 {
	switch num {
	case 1:
		return costLocID * n
	case 2:
		return costValue * n
	case 3:
		return costLabel
	}
	return 0
}

// locationCost is the memory of field num of a location: its lines.
func locationCost(num int, _ int64) int64 {
	if num == 4 {
		return costLine
	}
	return 0
}

// message scans a length-delimited sub-message and returns the memory
// its fields take, by cost.
func (s *scanner) message(cost func(num int, n int64) int64) (int64, error) {
	size, err := s.varint()
	if err != nil {
		return 0, err
	}
	if size > uint64(max(s.left, 0)) {
		size = uint64(max(s.left, 0)) + 1 // past the limit: read on to errTooLarge
	}
	end := s.left - int64(size)
	var est int64
	for s.left > end {
		num, wire, err := s.field()
		if err == io.EOF {
			return est, errMalformed
		}
		if err != nil {
			return est, err
		}
		n, err := s.value(wire)
		if err != nil {
			return est, err
		}
		est += cost(num, n)
	}
	if s.left != end {
		return est, errMalformed
	}
	return est, nil
}

// errNestedGzip is a gzip stream inside a gzip stream.
var errNestedGzip = errors.New("profile: nested gzip")

// estimateParsed is estimate for a profile already in memory (a merge of
// CPU windows), from the same weights.
func estimateParsed(p *pprof.Profile) int64 {
	est := int64(costBase) + costOther*int64(len(p.SampleType)+len(p.Comments)+1)
	for _, s := range p.Sample {
		est += costSample + costLocID*int64(len(s.Location)) + costValue*int64(len(s.Value)) +
			costLabel*int64(len(s.Label)+len(s.NumLabel))
	}
	for _, l := range p.Location {
		est += costLocation + costLine*int64(len(l.Line))
	}
	for _, f := range p.Function {
		est += costFunction + costString*3 + int64(len(f.Name)+len(f.SystemName)+len(f.Filename))
	}
	for _, m := range p.Mapping {
		est += costMapping + costString*2 + int64(len(m.File)+len(m.BuildID))
	}
	return est
}
