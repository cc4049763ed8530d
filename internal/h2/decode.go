package h2

import (
	"time"

	"github.com/gb-bench/gb/internal/decode"
	"github.com/gb-bench/gb/stats"
	"golang.org/x/net/http2/hpack"
)

// With content decoding (client.Config.Decoding.Compressed, gb's
// --compressed) each response's content-encoding is read from its header
// block (feed's scan, or the decoder's emit), the compressed bytes of its
// DATA frames are kept in its stream slot (streams interleave, so a
// streaming decoder cannot pull them), and the body is decoded at its end
// with the connection's decode.Body, whose decoders serve every stream in
// turn. Steady state allocates nothing: the slots' buffers and the
// decoders are reused.

// literalEncoding adds a literal content-encoding value, as sent
// (Huffman-coded when huff), to the block's encoding.
func (c *Client) literalEncoding(value []byte, huff bool) {
	if !huff {
		c.hdrEnc = c.hdrEnc.Add(value)
		return
	}
	c.huff.Reset()
	if _, err := hpack.HuffmanDecode(&c.huff, value); err != nil {
		c.hdrEnc = decode.Unknown // the decoder then fails the block
		return
	}
	c.hdrEnc = c.hdrEnc.Add(c.huff.Bytes())
}

// keep adds DATA payload p to s's compressed body, up to
// decode.DefaultMaxBuffered bytes (past it the body fails to decode).
func (c *Client) keep(s *stream, p []byte) {
	if c.unz == nil || s.enc == decode.Identity || s.zover {
		return
	}
	if len(s.zbuf)+len(p) > decode.DefaultMaxBuffered {
		s.zover, s.zbuf = true, s.zbuf[:0]
		return
	}
	s.zbuf = append(s.zbuf, p...)
}

// decodeBody decodes s's complete body and records its decoded size
// (Exchange.Decoded; an identity body's is its size). Its outcome is
// stats.OK when the body decoded, stats.FailDecode when it did not, and
// the body timeout (the total one with phase timeouts) when decoding
// outlived the request's deadline, as HTTP/1.1's.
func (c *Client) decodeBody(s *stream) (stats.Outcome, error) {
	x := s.x
	if s.enc == decode.Identity {
		x.Decoded = x.Body
		return stats.OK, nil
	}
	if s.zover {
		return stats.FailDecode, decode.ErrBuffered
	}
	c.zrd.Reset(s.zbuf)
	c.zcur = s
	n, err := c.unz.Decode(s.enc, &c.zrd)
	c.zcur = nil
	x.Decoded = n
	switch {
	case err == nil:
		return stats.OK, nil
	case err == decode.ErrExpired && c.cfg.phased:
		return stats.TimeoutTotal, err
	case err == decode.ErrExpired:
		return stats.TimeoutBody, err
	}
	return stats.FailDecode, err
}

// decodeExpired is unz.Expired: whether the stream being decoded is past
// its deadline (-s from its start).
func (c *Client) decodeExpired() bool {
	return c.zcur != nil && !time.Now().Before(c.zcur.total)
}
