package h2

import (
	"crypto/tls"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/gb-bench/gb/internal/client"
	"github.com/gb-bench/gb/internal/clock"
	"github.com/gb-bench/gb/internal/decode"
	"github.com/gb-bench/gb/internal/load"
	"github.com/gb-bench/gb/stats"
	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

// ALPNError is a TLS server that did not choose "h2": every connection
// would fail the same way, so the run stops on the first (load.Fatal).
type ALPNError struct{ Got string } // the protocol it chose; "" = none

func (e *ALPNError) Error() string {
	if e.Got == "" {
		return "the server did not negotiate HTTP/2 (no ALPN protocol)"
	}
	return fmt.Sprintf("the server did not negotiate HTTP/2 (ALPN gave %q)", e.Got)
}

// NotH2Error is a server whose first bytes are not an HTTP/2 SETTINGS
// frame (an HTTP/1.1 server answering h2c's preface): the run stops on it.
type NotH2Error struct{ First []byte } // up to 32 of its first bytes

func (e *NotH2Error) Error() string {
	return fmt.Sprintf("the server does not speak HTTP/2: its first bytes are %q, not a SETTINGS frame", e.First)
}

// connect opens a connection for x: dial, TLS with ALPN h2 (or h2c),
// the client preface with gb's SETTINGS and connection window, and the
// server's SETTINGS, within the connect timeout. x is ready (connected)
// once the server's SETTINGS arrived.
func (c *Client) connect(x *load.Exchange) (stats.Outcome, bool) {
	if c.stop.Load() {
		return stats.AbortedSignal, false // the worker relabels it with the stop's cause
	}
	cc := c.cfg.Client
	nc, o := cc.Dial(c.ctx, c.dialer, x)
	if o != stats.OK {
		return o, false
	}
	if tc, ok := nc.(*tls.Conn); ok {
		if p := tc.ConnectionState().NegotiatedProtocol; p != http2.NextProtoTLS {
			_ = nc.Close()
			x.Closed++
			x.Err = &load.Fatal{Err: &ALPNError{Got: p}}
			return stats.FailTLS, false
		}
	}
	c.reset()
	c.nc = nc
	c.live.Store(&connRef{nc})
	c.out.buf = append(c.out.buf, http2.ClientPreface...)
	_ = c.fr.WriteSettings(http2.Setting{ID: http2.SettingEnablePush, Val: 0},
		http2.Setting{ID: http2.SettingInitialWindowSize, Val: recvWindow},
		http2.Setting{ID: http2.SettingMaxHeaderListSize, Val: uint32(c.cfg.maxHeaderBytes())})
	_ = c.fr.WriteWindowUpdate(0, recvWindow-initialConn)
	c.carryOut += int64(len(c.out.buf))
	if err := c.awaitSettings(time.Now().Add(cc.DialTimeout())); err != nil {
		c.closeConn()
		c.carryClose--
		x.Closed++
		x.Err = err
		var not *NotH2Error
		var pe *protocolError
		switch {
		case errors.As(err, &not):
			x.Err = &load.Fatal{Err: err}
			return stats.FailProtocol, false
		case errors.As(err, &pe):
			return stats.FailProtocol, false // a flood with the SETTINGS
		case client.IsTimeout(err) && !c.stop.Load():
			x.Err = errNoSettings
			return stats.TimeoutConnect, false
		}
		return stats.FailConnect, false
	}
	x.Connected = clock.Read()
	x.Ready()
	return stats.OK, true
}

// reset readies the client's state for a new connection.
func (c *Client) reset() {
	c.in.reset()
	c.out.buf = c.out.buf[:0]
	c.fr = http2.NewFramer(&c.out, &c.in)
	c.fr.SetReuseFrames()
	c.fr.SetMaxReadFrameSize(minFrameSize)
	c.fr.MaxHeaderListSize = uint32(c.cfg.maxHeaderBytes())
	c.dec = hpack.NewDecoder(4096, c.emit)
	c.dec.SetMaxStringLength(c.cfg.maxHeaderBytes())
	c.nextID, c.lastID = 1, 0
	c.maxStreams = math.MaxInt32 // unlimited until the server's SETTINGS say
	c.initWin, c.sendWin, c.maxFrame = initialConn, initialConn, minFrameSize
	c.recvUsed, c.settings, c.draining, c.served, c.full, c.firstDone = 0, false, false, 0, true, false
	c.armed, c.unsent, c.unsentReqs, c.acks, c.goAwayErr, c.readErr = time.Time{}, false, 0, 0, nil, nil
}

// awaitSettings sends the preface and reads until the server's SETTINGS
// frame has been handled, or deadline.
func (c *Client) awaitSettings(deadline time.Time) error {
	_ = c.nc.SetDeadline(deadline)
	c.armed = deadline
	if c.stop.Load() {
		_ = c.nc.SetDeadline(aLongTimeAgo)
	}
	err := c.flush()
	for err == nil && !c.settings {
		if err = c.process(); err == nil && !c.settings {
			err = c.fill()
		}
	}
	if err == nil {
		err = c.flush() // the SETTINGS acknowledgement
	}
	return err
}

// process handles every whole frame buffered.
func (c *Client) process() error {
	for {
		if !c.settings && c.in.w-c.in.r >= frameHeaderLen && c.in.frameType() != byte(http2.FrameSettings) {
			return &NotH2Error{First: append([]byte(nil), c.in.buf[c.in.r:min(c.in.w, c.in.r+32)]...)}
		}
		n := c.in.frame()
		if n == 0 {
			return nil
		}
		fh, err := c.fr.ReadFrameHeader()
		if err == nil && fh.Type == http2.FrameHeaders && fh.StreamID != 0 &&
			fh.Flags&(http2.FlagHeadersPadded|http2.FlagHeadersPriority) == 0 {
			// Without padding or priority a HEADERS frame's payload is
			// its header block fragment (RFC 9113 §6.2): decoded where it
			// lies, it costs the Framer's HeadersFrame allocation.
			frag := c.in.buf[c.in.r : c.in.r+int(fh.Length)]
			c.in.r += int(fh.Length)
			err = c.onHeaders(fh.StreamID, frag, fh.Flags.Has(http2.FlagHeadersEndHeaders), fh.Flags.Has(http2.FlagHeadersEndStream), true, int64(n))
			if err != nil {
				return err
			}
			continue
		}
		if err == nil && fh.Type == http2.FramePing && fh.Length == 8 && fh.StreamID == 0 {
			// Answered where it lies: no frame is allocated, so a flood
			// of PINGs makes no garbage.
			p := c.in.buf[c.in.r : c.in.r+8]
			c.in.r += 8
			c.carryIn += int64(n)
			if !fh.Flags.Has(http2.FlagPingAck) {
				if err := c.ping([8]byte(p)); err != nil {
					return err
				}
			}
			continue
		}
		var f http2.Frame
		if err == nil {
			f, err = c.fr.ReadFrameForHeader(fh)
		}
		if err != nil {
			if err = c.streamError(err, int64(n)); err != nil {
				return &frameError{err}
			}
			continue
		}
		if err := c.handle(f, int64(n)); err != nil {
			return err
		}
	}
}

// streamError ends the stream a frame error names (http2.StreamError) and
// returns nil, or returns err, a connection error.
func (c *Client) streamError(err error, n int64) error {
	var se http2.StreamError
	if !errors.As(err, &se) {
		return err
	}
	c.carryIn += n
	if s := c.find(se.StreamID); s != nil {
		c.end(s, stats.FailProtocol, streamError{se.Code, se.Cause})
	}
	return nil
}

// frameError is a frame the Framer refused as a connection error: the
// connection fails as failed.protocol. Its message leaves out stream ids
// (see withoutStreamIDs).
type frameError struct{ err error }

func (e *frameError) Error() string { return withoutStreamIDs(e.err.Error()) }
func (e *frameError) Unwrap() error { return e.err }

// withoutStreamIDs replaces the number after each "stream " or
// "stream ID " in msg with N, so that equal errors of different streams
// group in the error tally.
func withoutStreamIDs(msg string) string {
	var b strings.Builder
	for {
		i := strings.Index(msg, "stream ")
		if i < 0 {
			b.WriteString(msg)
			return b.String()
		}
		j := i + len("stream ")
		j += len(msg[j:]) - len(strings.TrimPrefix(msg[j:], "ID "))
		k := j
		for k < len(msg) && msg[k] >= '0' && msg[k] <= '9' {
			k++
		}
		b.WriteString(msg[:j])
		if k > j {
			b.WriteString("N")
		}
		msg = msg[k:]
	}
}

// streamError is an http2.StreamError without its stream id, so that
// equal errors group in the error tally.
type streamError struct {
	code  http2.ErrCode
	cause error // nil = none
}

func (e streamError) Error() string {
	if e.cause != nil {
		return "http2: stream error: " + e.code.String() + "; " + e.cause.Error()
	}
	return "http2: stream error: " + e.code.String()
}

// handle acts on one frame of n bytes.
func (c *Client) handle(f http2.Frame, n int64) error {
	switch f := f.(type) {
	case *http2.DataFrame:
		c.onData(f, n)
	case *http2.HeadersFrame:
		return c.onHeaders(f.StreamID, f.HeaderBlockFragment(), f.HeadersEnded(), f.StreamEnded(), true, n)
	case *http2.ContinuationFrame:
		return c.onHeaders(f.StreamID, f.HeaderBlockFragment(), f.HeadersEnded(), c.curEnd, false, n)
	case *http2.SettingsFrame:
		return c.onSettings(f, n)
	case *http2.WindowUpdateFrame:
		return c.onWindow(f, n)
	case *http2.PingFrame: // one process did not answer itself
		c.carryIn += n
		if !f.IsAck() {
			return c.ping(f.Data)
		}
	case *http2.RSTStreamFrame:
		c.onReset(f, n)
	case *http2.GoAwayFrame:
		c.onGoAway(f, n)
	case *http2.PushPromiseFrame:
		return http2.ConnectionError(http2.ErrCodeProtocol) // gb disabled push
	default:
		c.carryIn += n
	}
	return nil
}

// count adds a frame's n bytes to its stream's exchange (or the
// connection's, for the next exchange to end) and returns the stream.
func (c *Client) count(id uint32, n int64) *stream {
	s := c.find(id)
	if s == nil {
		c.carryIn += n
		return nil
	}
	s.x.BytesIn += n
	return s
}

// onHeaders feeds a HEADERS (first) or CONTINUATION fragment to the
// decoder; the whole block is acted on at its end. Blocks of streams that
// already ended are decoded all the same (the decoder's table must follow
// the server's) and dropped.
func (c *Client) onHeaders(id uint32, frag []byte, endHeaders, endStream, first bool, n int64) error {
	s := c.count(id, n)
	if first {
		c.curID, c.curEnd = id, endStream
		c.hdrBytes, c.hdrFields, c.hdrBad, c.status, c.blockLen, c.blockWire = 0, 0, false, 0, 0, 0
		c.length, c.hdrEnc, c.fields = noLength, decode.Identity, c.fields[:0]
		c.dec.SetEmitEnabled(true)
		if s != nil && !s.started {
			s.started = true
			s.x.FirstByte = clock.Of(c.now)
			if c.cfg.phased {
				c.phase(s, c.cfg.Client.HeaderTimeout, c.now)
			}
		}
	}
	c.cur = s
	if c.blockLen += len(frag); !c.full && c.blockLen > c.cfg.maxHeaderBytes() {
		c.hdrBad = true
	}
	if c.blockWire += int(n); c.blockWire > blockFlood*c.cfg.maxHeaderBytes() {
		return errBlockFlood
	}
	if err := c.decode(frag, first, endHeaders); err != nil {
		return err
	}
	if !endHeaders {
		return nil
	}
	c.cur = nil
	if err := c.dec.Close(); err != nil {
		return err
	}
	if s == nil {
		return nil
	}
	if c.curEnd {
		s.peerDone = true
	}
	switch {
	case c.hdrBad:
		c.end(s, stats.FailProtocol, errHeaderList)
	case s.headers: // trailers
		if !c.curEnd {
			c.end(s, stats.FailProtocol, errNoStatus)
		} else {
			c.finish(s)
		}
	case c.status < 100 || c.status > 999 || c.status == 101:
		c.end(s, stats.FailProtocol, errNoStatus)
	case c.status < 200:
		s.x.Info++
		if c.curEnd {
			c.end(s, stats.FailProtocol, errNoStatus)
		}
	default:
		s.headers = true
		s.x.Status, s.x.Server, s.length = c.status, c.server, c.length
		s.enc, s.zbuf, s.zover = c.hdrEnc, s.zbuf[:0], false
		c.keepHeaders(s)
		c.full, c.firstDone = c.keepFields, true // header checks read every block's fields
		if c.curEnd {
			c.finish(s)
		} else if c.cfg.phased {
			c.phase(s, c.cfg.Client.IdleTimeout, c.now) // the body's first DATA
		}
	}
	return nil
}

// blockFlood is how many times the header list limit a header block's
// frames (headers included, so that empty CONTINUATION frames count) may
// reach before the connection fails: a block over the limit but ending
// is decoded to its end (the decoder must stay in step with the
// server's) and fails only its stream; one that keeps growing (a
// CONTINUATION flood) would never end.
const blockFlood = 4

// errBlockFlood fails a connection whose header block passed blockFlood
// times the limit.
var errBlockFlood = &protocolError{fmt.Sprintf("http2: response header block without end (CONTINUATION flood past %d times the header list limit)", blockFlood)}

// protocolError is a connection gb ends because the server broke HTTP/2
// or flooded it: every stream on it fails as failed.protocol.
type protocolError struct{ msg string }

func (e *protocolError) Error() string { return e.msg }

// decode gives a header block's fragment to the decoder: as it comes
// for the connection's first response (decoded whole), else the whole
// block at its end (see feed), gathered when it came in several frames.
func (c *Client) decode(frag []byte, first, endHeaders bool) error {
	switch {
	case c.full:
		_, err := c.dec.Write(frag)
		return err
	case first && endHeaders:
		return c.feed(frag)
	case first:
		c.block = c.block[:0]
	}
	c.block = append(c.block, frag...)
	if !endHeaders {
		return nil
	}
	return c.feed(c.block)
}

// emit is the decoder's callback for each field of a header block. The
// connection's first response is decoded whole: its fields counted
// against the limits, its Server field kept for all the connection's
// responses. In the others the decoder emits only the first field,
// :status (RFC 9113 §8.3: pseudo-headers come first), and the fields
// feed cannot name itself, so it skips decoding the strings of fields
// the server did not index (one allocation each in hpack), and the
// limit applies to the block's encoded length instead (onHeaders).
func (c *Client) emit(f hpack.HeaderField) {
	c.hdrBytes += int(f.Size())
	c.hdrFields++
	if c.hdrBytes > c.cfg.maxHeaderBytes() || c.hdrFields > c.cfg.maxFields() {
		c.hdrBad = true
	}
	s := c.cur
	switch {
	case s == nil || c.hdrBad:
	case f.Name == ":status":
		if len(f.Value) == 3 && !s.headers {
			c.status = atoi3(f.Value)
		}
	case f.Name == "server" && !c.firstDone:
		c.server = append(c.server[:0], f.Value[:min(len(f.Value), maxServer)]...)
	case f.Name == "content-length":
		c.noteLength(parseLength(f.Value))
	case f.Name == "content-encoding" && c.unz != nil:
		c.hdrEnc = c.hdrEnc.Add([]byte(f.Value))
	}
	if c.keepFields && s != nil && !c.hdrBad && !s.headers {
		c.keepField(f.Name, f.Value)
	}
}

// maxServer is the most of the Server field kept (stats.Server.Software).
const maxServer = 64

// atoi3 parses a three-digit status; 0 when it is not one.
func atoi3(v string) int {
	n := 0
	for i := range 3 {
		d := v[i] - '0'
		if d > 9 {
			return 0
		}
		n = n*10 + int(d)
	}
	return n
}

// finish ends s with its complete response: failed.protocol when its
// body and content-length disagree (RFC 9113 §8.1.1; no body is due for
// HEAD, 204 and 304).
func (c *Client) finish(s *stream) {
	if s.length != noLength && s.length != s.x.Body && !s.req.head && s.x.Status != 204 && s.x.Status != 304 {
		var err error = errBadLength
		if s.length >= 0 {
			err = errLength{want: s.length, got: s.x.Body}
		}
		c.end(s, stats.FailProtocol, err)
		return
	}
	if c.unz != nil {
		if o, err := c.decodeBody(s); o != stats.OK {
			c.end(s, o, err)
			return
		}
	}
	if c.cfg.Client.Checks != nil {
		c.checkResponse(s)
		return
	}
	if s.x.Status >= 200 && s.x.Status < 300 {
		c.end(s, stats.OK, nil)
		return
	}
	c.end(s, stats.Non2xx, nil)
}

// onData counts a DATA frame's body bytes and gives the windows back.
func (c *Client) onData(f *http2.DataFrame, n int64) {
	c.recvUsed += int(f.Length)
	if s := c.count(f.StreamID, n); s != nil {
		if f.StreamEnded() {
			s.peerDone = true
		}
		switch {
		case !s.headers:
			c.end(s, stats.FailProtocol, errEarlyData)
		case f.StreamEnded():
			s.x.Body += int64(len(f.Data()))
			c.keep(s, f.Data())
			if c.keepBodies {
				c.keepBody(s, f.Data())
			}
			c.finish(s)
		default:
			s.x.Body += int64(len(f.Data()))
			c.keep(s, f.Data())
			if c.keepBodies {
				c.keepBody(s, f.Data())
			}
			if c.cfg.phased {
				c.phase(s, c.cfg.Client.IdleTimeout, c.now) // the next DATA
			}
			if s.recvUsed += int(f.Length); s.recvUsed >= recvWindow/2 {
				_ = c.fr.WriteWindowUpdate(s.id, uint32(s.recvUsed))
				s.recvUsed = 0
				c.carryOut += frameHeaderLen + 4
			}
		}
	}
	if c.recvUsed >= recvWindow/2 {
		_ = c.fr.WriteWindowUpdate(0, uint32(c.recvUsed))
		c.recvUsed = 0
		c.carryOut += frameHeaderLen + 4
	}
}

// onSettings applies the server's settings and acknowledges them.
func (c *Client) onSettings(f *http2.SettingsFrame, n int64) error {
	c.carryIn += n
	if f.IsAck() {
		return nil
	}
	for i := range f.NumSettings() {
		s := f.Setting(i)
		if err := s.Valid(); err != nil {
			return err
		}
		switch s.ID {
		case http2.SettingMaxConcurrentStreams:
			c.maxStreams = int(min(s.Val, math.MaxInt32))
		case http2.SettingInitialWindowSize:
			delta := int32(s.Val) - c.initWin
			for i := range c.streams {
				if st := &c.streams[i]; st.state == open {
					st.sendWin += delta
				}
			}
			c.initWin = int32(s.Val)
		case http2.SettingMaxFrameSize:
			c.maxFrame = int(s.Val)
		}
	}
	_ = c.fr.WriteSettingsAck()
	c.carryOut += frameHeaderLen
	c.settings = true
	c.sendBodies()
	return c.acked()
}

// maxAcks is the most PING and SETTINGS acknowledgements gb queues
// between two writes. gb writes them before its next read, so only a
// server sending more control frames in one read batch than a real one
// ever does (a flood) reaches it; the connection then fails as a
// protocol error (as nghttp2's and Go's limits on queued control frames
// do) instead of buffering acknowledgements without bound.
const maxAcks = 1000

// errControlFlood fails a connection that reached maxAcks.
var errControlFlood = &protocolError{fmt.Sprintf("http2: the server flooded PING or SETTINGS frames (more than %d unacknowledged)", maxAcks)}

// ping queues the acknowledgement of a PING carrying data.
func (c *Client) ping(data [8]byte) error {
	_ = c.fr.WritePing(true, data)
	c.carryOut += frameHeaderLen + 8
	return c.acked()
}

// acked counts an acknowledgement queued; an error past maxAcks.
func (c *Client) acked() error {
	if c.acks++; c.acks > maxAcks {
		return errControlFlood
	}
	return nil
}

// onWindow opens a send window and sends the bodies it lets through.
func (c *Client) onWindow(f *http2.WindowUpdateFrame, n int64) error {
	if f.StreamID == 0 {
		c.carryIn += n
		if int64(c.sendWin)+int64(f.Increment) > math.MaxInt32 {
			return http2.ConnectionError(http2.ErrCodeFlowControl)
		}
		c.sendWin += int32(f.Increment)
	} else if s := c.count(f.StreamID, n); s != nil {
		if int64(s.sendWin)+int64(f.Increment) > math.MaxInt32 {
			c.end(s, stats.FailProtocol, streamError{code: http2.ErrCodeFlowControl})
			return nil
		}
		s.sendWin += int32(f.Increment)
	}
	c.sendBodies()
	return nil
}

// onReset ends a stream the server reset; one it refused (not processed)
// goes again on a new connection.
func (c *Client) onReset(f *http2.RSTStreamFrame, n int64) {
	s := c.count(f.StreamID, n)
	if s == nil {
		return
	}
	s.peerDone = true
	err := resetError{f.ErrCode}
	if f.ErrCode == http2.ErrCodeRefusedStream {
		c.requeue(s, err)
		return
	}
	c.end(s, stats.FailReset, err)
}

// onGoAway stops new streams on the connection; the streams the server
// did not process (above its last stream id) go again on a new one.
func (c *Client) onGoAway(f *http2.GoAwayFrame, n int64) {
	c.carryIn += n
	c.draining, c.lastID = true, f.LastStreamID
	var err error = goAwayError{code: f.ErrCode}
	for i := range c.streams {
		if s := &c.streams[i]; s.state == open && s.id > f.LastStreamID {
			s.peerDone = true
			c.requeue(s, err)
		}
	}
	if f.ErrCode != http2.ErrCodeNo {
		c.goAwayErr = goAwayError{code: f.ErrCode, debug: string(f.DebugData())}
	}
}

// isHpack reports whether err is a header-compression failure.
func isHpack(err error) bool {
	var de hpack.DecodingError
	var ie hpack.InvalidIndexError
	return errors.As(err, &de) || errors.As(err, &ie) || errors.Is(err, hpack.ErrStringLength) || errors.Is(err, hpack.ErrInvalidHuffman)
}
