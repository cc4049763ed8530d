package probe

import (
	"bufio"
	"bytes"
	"io"
	"net"
	"strconv"
	"sync"
	"sync/atomic"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

// H2Script plays a hostile HTTP/2 server's answer to request n (from 1,
// counted per connection) on stream id. It runs on the connection's
// writer goroutine while another goroutine keeps reading the client's
// frames, so a script that floods never stops the client's writes.
type H2Script func(c *H2Conn, id uint32, n int)

// H2Server is a scripted hostile HTTP/2 server over cleartext TCP (h2c
// with prior knowledge) on a free loopback port: each connection reads
// the client preface, sends Settings, and runs the script for each
// request's HEADERS. It counts the requests its connections read.
type H2Server struct {
	ln       net.Listener
	script   H2Script
	settings []http2.Setting
	requests atomic.Int64 // request HEADERS read, on every connection
	conns    atomic.Int64 // connections accepted
	mu       sync.Mutex
	open     map[net.Conn]struct{}
	wg       sync.WaitGroup
}

// StartH2 listens on 127.0.0.1 and serves script until Close, sending
// settings in each connection's SETTINGS frame.
func StartH2(script H2Script, settings ...http2.Setting) (*H2Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &H2Server{ln: ln, script: script, settings: settings, open: map[net.Conn]struct{}{}}
	s.wg.Go(s.serve)
	return s, nil
}

// Addr is the server's host:port.
func (s *H2Server) Addr() string { return s.ln.Addr().String() }

// Requests returns the number of request HEADERS read so far.
func (s *H2Server) Requests() int64 { return s.requests.Load() }

// Conns returns the number of connections accepted so far.
func (s *H2Server) Conns() int64 { return s.conns.Load() }

// Close stops accepting, closes every connection and waits for their
// goroutines to end.
func (s *H2Server) Close() error {
	err := s.ln.Close()
	s.mu.Lock()
	for nc := range s.open {
		_ = nc.Close()
	}
	s.mu.Unlock()
	s.wg.Wait()
	return err
}

func (s *H2Server) serve() {
	for {
		nc, err := s.ln.Accept()
		if err != nil {
			return
		}
		s.mu.Lock()
		s.open[nc] = struct{}{}
		s.mu.Unlock()
		s.conns.Add(1)
		s.wg.Go(func() {
			defer func() {
				_ = nc.Close()
				s.mu.Lock()
				delete(s.open, nc)
				s.mu.Unlock()
			}()
			s.serveConn(nc)
		})
	}
}

// serveConn reads the client's frames on this goroutine and runs the
// script on another, for each request's HEADERS in turn.
func (s *H2Server) serveConn(nc net.Conn) {
	preface := make([]byte, len(http2.ClientPreface))
	if _, err := io.ReadFull(nc, preface); err != nil {
		return
	}
	c := &H2Conn{Conn: nc, fr: http2.NewFramer(nc, nil)}
	c.enc = hpack.NewEncoder(&c.buf)
	if c.fr.WriteSettings(s.settings...) != nil {
		return
	}
	ids := make(chan uint32, 1024)
	var writer sync.WaitGroup
	writer.Go(func() {
		n := 0
		for id := range ids {
			n++
			s.script(c, id, n)
		}
	})
	defer writer.Wait()
	defer close(ids)
	br := bufio.NewReaderSize(nc, 64<<10)
	rd := http2.NewFramer(nil, br)
	for {
		fh, err := rd.ReadFrameHeader()
		if err != nil {
			return
		}
		if fh.Type != http2.FrameHeaders {
			if _, err := br.Discard(int(fh.Length)); err != nil {
				return
			}
			continue
		}
		if _, err := rd.ReadFrameForHeader(fh); err != nil {
			return
		}
		s.requests.Add(1)
		select {
		case ids <- fh.StreamID:
		default: // the script is still flooding: the request stays unanswered
		}
	}
}

// H2Conn is one connection as an H2Script sees it.
type H2Conn struct {
	net.Conn
	fr  *http2.Framer // writes to the connection
	buf bytes.Buffer
	enc *hpack.Encoder
}

// Framer returns a Framer writing to the connection, for the frames a
// script sends one at a time.
func (c *H2Conn) Framer() *http2.Framer { return c.fr }

// Block encodes a response header block: :status, then name, value
// pairs (indexed in the encoder's dynamic table, as Go's server does).
func (c *H2Conn) Block(status int, fields ...string) []byte {
	c.buf.Reset()
	_ = c.enc.WriteField(hpack.HeaderField{Name: ":status", Value: strconv.Itoa(status)})
	for i := 0; i+1 < len(fields); i += 2 {
		_ = c.enc.WriteField(hpack.HeaderField{Name: fields[i], Value: fields[i+1]})
	}
	return bytes.Clone(c.buf.Bytes())
}

// Respond sends a whole response: status, the fields, and body (none
// when empty); false once a write fails.
func (c *H2Conn) Respond(id uint32, status int, body []byte, fields ...string) bool {
	err := c.fr.WriteHeaders(http2.HeadersFrameParam{StreamID: id, BlockFragment: c.Block(status, fields...),
		EndHeaders: true, EndStream: len(body) == 0})
	if err == nil && len(body) > 0 {
		err = c.fr.WriteData(id, true, body)
	}
	return err == nil
}

// Flood writes frames times times over (times < 0: until a write
// fails); false once a write fails.
func (c *H2Conn) Flood(frames []byte, times int) bool {
	for ; times != 0; times-- {
		if _, err := c.Write(frames); err != nil {
			return false
		}
	}
	return true
}

// Frames returns about size bytes of whole frames, each written by
// write with a Framer, for Flood.
func Frames(size int, write func(fr *http2.Framer)) []byte {
	var b bytes.Buffer
	fr := http2.NewFramer(&b, nil)
	for b.Len() < size {
		write(fr)
	}
	return b.Bytes()
}
