package stats

import (
	"bytes"
	"compress/zlib"
	"encoding/base64"
	"encoding/binary"
	"math"
	"math/bits"
	"sync"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// encodePacked returns p in HdrHistogram's V2 compressed form, base64
// ("HISTF…"), byte for byte what p.Encode returns. It differs in cost:
// p.Encode makes a new best-compression zlib writer (about 800 KiB) for
// every histogram, which a JSON of 50 000 targets pays 50 000 times;
// encodePacked reuses one from a pool, and walks only the populated
// buckets. The result is a new slice the caller owns.
func encodePacked(p *hdrhistogram.PackedHistogram) []byte {
	e := v2Pool.Get().(*v2Encoder)
	defer v2Pool.Put(e)
	e.inner = v2Header(e.inner[:0], p)
	e.inner = v2Payload(e.inner, p)
	binary.BigEndian.PutUint32(e.inner[4:], uint32(len(e.inner)-v2HeaderSize))

	e.zb.Reset()
	e.zb.Write(make([]byte, 8)) // the outer header, filled in below
	e.zw.Reset(&e.zb)
	_, _ = e.zw.Write(e.inner) // writes to a bytes.Buffer cannot fail
	_ = e.zw.Close()
	outer := e.zb.Bytes()
	binary.BigEndian.PutUint32(outer[0:], uint32(hdrhistogram.V2CompressedEncodingCookieBase|0x10))
	binary.BigEndian.PutUint32(outer[4:], uint32(len(outer)-8))
	out := make([]byte, base64.StdEncoding.EncodedLen(len(outer)))
	base64.StdEncoding.Encode(out, outer)
	return out
}

// v2Encoder is encodePacked's reusable state: the uncompressed header and
// payload, the compressed output and the zlib writer.
type v2Encoder struct {
	inner []byte
	zb    bytes.Buffer
	zw    *zlib.Writer
}

var v2Pool = sync.Pool{New: func() any {
	e := new(v2Encoder)
	e.zw, _ = zlib.NewWriterLevel(&e.zb, zlib.BestCompression) // a valid level: cannot fail
	return e
}}

// v2HeaderSize is the V2 encoding's fixed header: cookie, payload length,
// normalizing offset, significant digits, lowest and highest trackable
// values, and the integer-to-double conversion ratio.
const v2HeaderSize = 40

// v2Header appends p's V2 header to b, with a payload length of 0 that
// the caller fills in.
func v2Header(b []byte, p *hdrhistogram.PackedHistogram) []byte {
	b = binary.BigEndian.AppendUint32(b, uint32(hdrhistogram.V2EncodingCookieBase|0x10))
	b = binary.BigEndian.AppendUint32(b, 0) // payload length
	b = binary.BigEndian.AppendUint32(b, 0) // normalizing index offset
	b = binary.BigEndian.AppendUint32(b, uint32(int32(p.SignificantFigures())))
	b = binary.BigEndian.AppendUint64(b, uint64(p.LowestTrackableValue()))
	b = binary.BigEndian.AppendUint64(b, uint64(p.HighestTrackableValue()))
	return binary.BigEndian.AppendUint64(b, math.Float64bits(1)) // gb's counts are integers
}

// v2Payload appends p's counts in the V2 payload's form to b: one ZigZag
// LEB128 number per counts index from 0 to the last populated one, a run
// of two or more empty indexes written as minus its length.
func v2Payload(b []byte, p *hdrhistogram.PackedHistogram) []byte {
	g := newV2Geometry(p.LowestTrackableValue(), int(p.SignificantFigures()))
	var next, zeros int64 // the next index to write; empty indexes before it not yet written
	p.ForEachBucket(func(v, c int64) bool {
		i := g.index(v)
		zeros += i - next
		next = i + 1
		if c == 0 {
			zeros++
			return true
		}
		b = appendZeros(b, zeros)
		zeros = 0
		b = appendZigZag(b, c)
		return true
	})
	if next == 0 { // empty: index 0 is written, as the library does
		zeros = 1
	}
	return appendZeros(b, zeros)
}

// appendZeros appends a run of n empty counts to b.
func appendZeros(b []byte, n int64) []byte {
	switch {
	case n == 1:
		return appendZigZag(b, 0)
	case n > 1:
		return appendZigZag(b, -n)
	}
	return b
}

// appendZigZag appends v ZigZag-encoded as LEB128, at most 9 bytes: the
// ninth byte holds the last 8 bits whole, as HdrHistogram's Java and Go
// encoders write it.
func appendZigZag(b []byte, v int64) []byte {
	u := uint64((v << 1) ^ (v >> 63))
	for i := 0; i < 8; i++ {
		if u>>7 == 0 {
			return append(b, byte(u))
		}
		b = append(b, byte(u&0x7f|0x80))
		u >>= 7
	}
	return append(b, byte(u))
}

// v2Geometry maps a value to its counts index, as a histogram of the same
// lowest value and significant digits does.
type v2Geometry struct {
	unitMagnitude int64 // log2 of the lowest discernible value, rounded down
	halfMagnitude int64 // log2 of half the sub-buckets per bucket
	subBucketMask uint64
}

func newV2Geometry(lowest int64, digits int) v2Geometry {
	single := 2 * math.Pow10(digits) // values with single-unit resolution
	half := max(int64(math.Ceil(math.Log2(single))), 1) - 1
	unit := int64(bits.Len64(uint64(max(lowest, 1)))) - 1
	return v2Geometry{unitMagnitude: unit, halfMagnitude: half, subBucketMask: (uint64(1)<<(half+1) - 1) << unit}
}

// index is v's counts index.
func (g v2Geometry) index(v int64) int64 {
	bucket := int64(bits.Len64(uint64(v)|g.subBucketMask)) - g.unitMagnitude - (g.halfMagnitude + 1)
	sub := v >> (bucket + g.unitMagnitude)
	return (bucket+1)<<g.halfMagnitude + sub - 1<<g.halfMagnitude
}
