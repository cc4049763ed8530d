package h2

import (
	"bytes"
	"errors"
	"io"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

// scripted is a raw HTTP/2 server, written with x/net/http2's Framer,
// that misbehaves as each test scripts: every connection reads the client
// preface, sends settings (unless noSettings) and calls onRequest for each
// request's HEADERS. It counts what it saw.
type scripted struct {
	addr       string
	settings   []http2.Setting
	noSettings bool
	mu         sync.Mutex
	// onRequest answers request n (from 1, over all connections) on
	// stream id; nil answers 200 "ok". Set with handle.
	onRequest func(c *sconn, id uint32, n int64)
	// onReset is called for each RST_STREAM the client sends; nil = none.
	// Set it in the scripted value passed to startScripted: the serve
	// goroutines read it without a lock.
	onReset func(c *sconn, id uint32)

	requests atomic.Int64 // request HEADERS received
	resets   atomic.Int64 // RST_STREAM frames received
	bodyIn   atomic.Int64 // request DATA bytes received
	conns    atomic.Int64
}

// sconn is one connection of a scripted server.
type sconn struct {
	nc  net.Conn
	fr  *http2.Framer
	buf bytes.Buffer
	enc *hpack.Encoder
	s   *scripted
	n   int64 // requests on this connection
}

func startScripted(t *testing.T, s *scripted) *scripted {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s.addr = ln.Addr().String()
	var wg sync.WaitGroup
	var mu sync.Mutex
	var open []net.Conn
	t.Cleanup(func() {
		_ = ln.Close()
		mu.Lock()
		for _, nc := range open {
			_ = nc.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	wg.Go(func() {
		for {
			nc, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			open = append(open, nc)
			mu.Unlock()
			s.conns.Add(1)
			wg.Go(func() { s.serve(nc) })
		}
	})
	return s
}

// handle sets how the server answers requests (see onRequest).
func (s *scripted) handle(f func(c *sconn, id uint32, n int64)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.onRequest = f
}

func (s *scripted) serve(nc net.Conn) {
	s.mu.Lock()
	onRequest := s.onRequest
	s.mu.Unlock()
	defer nc.Close()
	c := &sconn{nc: nc, fr: http2.NewFramer(nc, nc), s: s}
	c.enc = hpack.NewEncoder(&c.buf)
	preface := make([]byte, len(http2.ClientPreface))
	if _, err := io.ReadFull(nc, preface); err != nil {
		return
	}
	if !s.noSettings {
		_ = c.fr.WriteSettings(s.settings...)
	}
	for {
		f, err := c.fr.ReadFrame()
		if err != nil {
			return
		}
		switch f := f.(type) {
		case *http2.HeadersFrame:
			n := s.requests.Add(1)
			c.n++
			if onRequest == nil {
				c.respond(f.StreamID, 200, []byte("ok"))
			} else {
				onRequest(c, f.StreamID, n)
			}
		case *http2.DataFrame:
			s.bodyIn.Add(int64(len(f.Data())))
		case *http2.RSTStreamFrame:
			s.resets.Add(1)
			if s.onReset != nil {
				s.onReset(c, f.StreamID)
			}
		case *http2.SettingsFrame:
			if !f.IsAck() {
				_ = c.fr.WriteSettingsAck()
			}
		}
	}
}

// headers encodes a response head: :status, then name, value pairs.
func (c *sconn) headers(status int, fields ...string) []byte {
	c.buf.Reset()
	_ = c.enc.WriteField(hpack.HeaderField{Name: ":status", Value: strconv.Itoa(status)})
	for i := 0; i+1 < len(fields); i += 2 {
		_ = c.enc.WriteField(hpack.HeaderField{Name: fields[i], Value: fields[i+1]})
	}
	return bytes.Clone(c.buf.Bytes())
}

// respond sends a whole response.
func (c *sconn) respond(id uint32, status int, body []byte) {
	_ = c.fr.WriteHeaders(http2.HeadersFrameParam{StreamID: id, BlockFragment: c.headers(status, "server", "scripted"),
		EndHeaders: true, EndStream: len(body) == 0})
	if len(body) > 0 {
		_ = c.fr.WriteData(id, true, body)
	}
}

// otherHeaders reads frames for d and reports whether a request HEADERS
// arrived among them (the client opened another stream).
func (c *sconn) otherHeaders(d time.Duration) bool {
	_ = c.nc.SetReadDeadline(time.Now().Add(d))
	defer c.nc.SetReadDeadline(time.Time{})
	for {
		f, err := c.fr.ReadFrame()
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			return false
		}
		if err != nil {
			return false
		}
		if _, ok := f.(*http2.HeadersFrame); ok {
			return true
		}
	}
}
