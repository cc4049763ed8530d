package h1

import "io"

// Lender is a source that lends a Reader its read buffer, so that many
// connections share a few buffers: a Reader over a Lender holds a buffer
// only while bytes of a response are buffered (a response arrived in
// pieces, or bytes beyond it), and gives it back before it waits for the
// next input. The event loops' connections are Lenders; their buffers are
// shared by the loop's tasks, which run one at a time.
type Lender interface {
	io.Reader
	// WaitReadable blocks until a Read would not block: input, the end of
	// the stream or an error is ready. It returns the error a Read would
	// return on a passed deadline.
	WaitReadable() error
	// Borrow returns a buffer of size bytes for the Reader's use until it
	// gives the buffer back with Return.
	Borrow(size int) []byte
	// Return gives back a buffer from Borrow; the Reader no longer uses it.
	Return(buf []byte)
}

// ensure gives an emptied Reader (r.r == r.w == 0) a buffer to read into.
// A lent buffer goes back to its Lender first and is borrowed again once
// the source is readable; a private one is made on first use. A read error
// held back while bytes were buffered is returned now, with no wait.
func (r *Reader) ensure() error {
	if r.lend == nil {
		if r.buf == nil {
			r.buf = make([]byte, r.size)
		}
		return nil
	}
	if r.err != nil {
		err := r.err
		r.err = nil
		return err
	}
	r.giveBack()
	if err := r.lend.WaitReadable(); err != nil {
		return err
	}
	r.buf = r.lend.Borrow(r.size)
	return nil
}

// giveBack returns a lent buffer to its Lender; a grown one (grow) is
// kept for the next long line.
func (r *Reader) giveBack() {
	if r.lend != nil && r.buf != nil {
		if !r.grown {
			r.lend.Return(r.buf)
		}
		r.buf, r.grown = nil, false
	}
}

// Release gives a lent buffer back when no byte is buffered, as at the end
// of a response: a connection that sends no next request (the run is over)
// keeps none. It does nothing on a Reader with its own buffer.
func (r *Reader) Release() {
	if r.r == r.w {
		r.r, r.w = 0, 0
		r.giveBack()
	}
}
