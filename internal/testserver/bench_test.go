package testserver

import (
	"bufio"
	"io"
	"net"
	"testing"
)

// benchHello drives GET /hello over keep-alive connections with raw
// requests, one connection per parallel goroutine.
func benchHello(b *testing.B, url string) {
	b.RunParallel(func(pb *testing.PB) {
		c, err := net.Dial("tcp", hostOf(url))
		if err != nil {
			b.Error(err)
			return
		}
		defer c.Close()
		br := bufio.NewReader(c)
		raw := []byte(req("/hello"))
		for pb.Next() {
			if _, err := c.Write(raw); err != nil {
				b.Error(err)
				return
			}
			// The reply is a fixed-size head (with a fixed-width Date) plus 13 bytes.
			if _, err := br.ReadSlice('!'); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

func BenchmarkHelloMain(b *testing.B) {
	s, err := Start(Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	benchHello(b, s.URL())
}

func BenchmarkOKFault(b *testing.B) {
	s, err := Start(Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	b.RunParallel(func(pb *testing.PB) {
		c, err := net.Dial("tcp", hostOf(s.FaultURL()))
		if err != nil {
			b.Error(err)
			return
		}
		defer c.Close()
		raw, buf := []byte(req("/ok")), make([]byte, len(ok))
		for pb.Next() {
			c.Write(raw)
			if _, err := io.ReadFull(c, buf); err != nil {
				b.Error(err)
				return
			}
		}
	})
}
