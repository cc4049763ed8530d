package testsupport

import (
	"bufio"
	"bytes"
	"crypto/tls"
	"encoding/base64"
	"errors"
	"io"
	"net"
	"net/http"
	"sync"
	"testing"
	"time"
)

// Relay is a test's man in the middle on loopback: an HTTP CONNECT proxy
// (Connect) or a plain TCP forwarder to a fixed address. Either way it
// reads the TLS ClientHello that passes through and notes its server name.
type Relay struct {
	Addr    string // where it listens: host:port, or the Socket's path
	Connect bool   // answer CONNECT, then tunnel; false = forward to To
	To      string // forwarder's destination host:port
	Auth    string // CONNECT must carry Proxy-Authorization: Basic of this; "" = none asked
	Socket  string // listen on this unix socket; "" = a free loopback TCP port
	HangUp  bool   // close each connection right after reading CONNECT

	mu      sync.Mutex
	open    map[net.Conn]bool // connections to close when the test ends
	targets []string          // CONNECT request targets, in order
	names   []string          // ClientHello server names, in order ("" = none sent)
}

// StartRelay starts r on a free loopback port (or r.Socket) until the
// test ends, and returns it with Addr set.
func StartRelay(t testing.TB, r *Relay) *Relay {
	t.Helper()
	network, addr := "tcp", "127.0.0.1:0"
	if r.Socket != "" {
		network, addr = "unix", r.Socket
	}
	ln, err := net.Listen(network, addr)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	r.open = map[net.Conn]bool{}
	t.Cleanup(func() {
		ln.Close()
		r.mu.Lock()
		for c := range r.open {
			c.Close()
		}
		r.mu.Unlock()
		wg.Wait()
	})
	r.Addr = ln.Addr().String()
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Add(1)
			go func() { defer wg.Done(); r.serve(c) }()
		}
	}()
	return r
}

// serve handles one client connection.
func (r *Relay) serve(c net.Conn) {
	r.track(c)
	defer c.Close()
	br := bufio.NewReader(c)
	to := r.To
	if r.Connect {
		req, err := http.ReadRequest(br)
		if err != nil {
			return
		}
		r.mu.Lock()
		r.targets = append(r.targets, req.RequestURI)
		r.mu.Unlock()
		switch {
		case r.HangUp:
			return
		case req.Method != http.MethodConnect:
			io.WriteString(c, "HTTP/1.1 405 Method Not Allowed\r\nContent-Length: 0\r\n\r\n")
			return
		case r.Auth != "" && req.Header.Get("Proxy-Authorization") != "Basic "+base64.StdEncoding.EncodeToString([]byte(r.Auth)):
			io.WriteString(c, "HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm=\"t\"\r\nContent-Length: 14\r\n\r\nauth required\n")
			return
		}
		to = req.RequestURI
	}
	up, err := net.Dial("tcp", to)
	if err != nil {
		io.WriteString(c, "HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n")
		return
	}
	r.track(up)
	defer up.Close()
	if r.Connect {
		io.WriteString(c, "HTTP/1.1 200 Connection established\r\n\r\n")
	}
	name, hello := serverName(br)
	r.mu.Lock()
	r.names = append(r.names, name)
	r.mu.Unlock()
	if _, err := up.Write(hello); err != nil {
		return
	}
	go func() { io.Copy(up, br); up.(*net.TCPConn).CloseWrite() }()
	io.Copy(c, up)
}

// track notes an open connection, for the cleanup.
func (r *Relay) track(c net.Conn) {
	r.mu.Lock()
	r.open[c] = true
	r.mu.Unlock()
}

// Seen returns copies of what the relay saw so far.
func (r *Relay) Seen() (targets, names []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.targets...), append([]string(nil), r.names...)
}

// serverName reads the TLS ClientHello from rd, with crypto/tls's own
// parser, and returns its server name and the bytes it read.
func serverName(rd io.Reader) (string, []byte) {
	var got bytes.Buffer
	var name string
	stop := errors.New("hello read")
	srv := tls.Server(helloConn{r: io.TeeReader(rd, &got)}, &tls.Config{
		GetConfigForClient: func(h *tls.ClientHelloInfo) (*tls.Config, error) { name = h.ServerName; return nil, stop },
	})
	_ = srv.Handshake()
	return name, got.Bytes()
}

// helloConn is the read side of a connection; what is written to it is
// dropped (the aborted handshake's alert).
type helloConn struct {
	net.Conn
	r io.Reader
}

func (c helloConn) Read(p []byte) (int, error)       { return c.r.Read(p) }
func (c helloConn) Write(p []byte) (int, error)      { return len(p), nil }
func (c helloConn) SetDeadline(time.Time) error      { return nil }
func (c helloConn) SetReadDeadline(time.Time) error  { return nil }
func (c helloConn) SetWriteDeadline(time.Time) error { return nil }
