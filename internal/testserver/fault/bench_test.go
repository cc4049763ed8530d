package fault_test

import (
	"io"
	"net"
	"testing"

	"github.com/gb-bench/gb/internal/testserver"
	"github.com/gb-bench/gb/internal/testsupport"
)

func BenchmarkOKFault(b *testing.B) {
	s := testsupport.Server(b, testserver.Options{})
	b.RunParallel(func(pb *testing.PB) {
		c, err := net.Dial("tcp", testsupport.HostOf(s.FaultURL()))
		if err != nil {
			b.Error(err)
			return
		}
		defer c.Close()
		raw, buf := []byte(testsupport.GET("/ok")), make([]byte, len(ok))
		for pb.Next() {
			c.Write(raw)
			if _, err := io.ReadFull(c, buf); err != nil {
				b.Error(err)
				return
			}
		}
	})
}
