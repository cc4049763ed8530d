package h2

import (
	"errors"
	"io"
)

// inbuf holds bytes read from the connection; the Framer reads frames out
// of it, and only whole ones (the client checks before each ReadFrame), so
// a read deadline never leaves the Framer inside a frame.
type inbuf struct {
	buf  []byte
	r, w int // unread bytes are buf[r:w]
}

// Read gives the Framer buffered bytes; io.EOF when there are none.
func (b *inbuf) Read(p []byte) (int, error) {
	if b.r == b.w {
		return 0, io.EOF
	}
	n := copy(p, b.buf[b.r:b.w])
	b.r += n
	return n, nil
}

// frame returns the length of the next frame (header included) when the
// whole frame is buffered, else 0.
func (b *inbuf) frame() int {
	p := b.buf[b.r:b.w]
	if len(p) < frameHeaderLen {
		return 0
	}
	n := frameHeaderLen + (int(p[0])<<16 | int(p[1])<<8 | int(p[2]))
	if len(p) < n {
		return 0
	}
	return n
}

// frameType is the type byte of the next frame's header, which must be
// buffered.
func (b *inbuf) frameType() byte { return b.buf[b.r+3] }

// errFrameTooLarge is a frame longer than the SETTINGS_MAX_FRAME_SIZE gb
// advertised (16 KiB).
var errFrameTooLarge = errors.New("http2: the server sent a frame larger than SETTINGS_MAX_FRAME_SIZE")

// makeRoom moves the unread bytes to the front when the buffer's tail is
// short, so that a whole frame fits; a frame that cannot fit at all is an
// error.
func (b *inbuf) makeRoom() error {
	if b.r == b.w {
		b.r, b.w = 0, 0
		return nil
	}
	if p := b.buf[b.r:b.w]; len(p) >= 3 {
		if n := frameHeaderLen + (int(p[0])<<16 | int(p[1])<<8 | int(p[2])); n > len(b.buf) {
			return errFrameTooLarge
		}
	}
	if len(b.buf)-b.w < minFrameSize+frameHeaderLen {
		b.w = copy(b.buf, b.buf[b.r:b.w])
		b.r = 0
	}
	return nil
}

// reset empties the buffer (a new connection).
func (b *inbuf) reset() { b.r, b.w = 0, 0 }

// outbuf collects the frames the Framer writes until the client flushes
// them in one write.
type outbuf struct{ buf []byte }

func (b *outbuf) Write(p []byte) (int, error) {
	b.buf = append(b.buf, p...)
	return len(p), nil
}
