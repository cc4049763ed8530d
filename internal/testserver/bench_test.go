package testserver_test

import (
	"bufio"
	"net"
	"testing"

	"github.com/gb-bench/gb/internal/testserver"
	"github.com/gb-bench/gb/internal/testsupport"
)

// benchHello drives GET /hello over keep-alive connections with raw
// requests, one connection per parallel goroutine.
func benchHello(b *testing.B, url string) {
	b.RunParallel(func(pb *testing.PB) {
		c, err := net.Dial("tcp", testsupport.HostOf(url))
		if err != nil {
			b.Error(err)
			return
		}
		defer c.Close()
		br := bufio.NewReader(c)
		raw := []byte(testsupport.GET("/hello"))
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
	s, err := testserver.Start(testserver.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	benchHello(b, s.URL())
}
