package client

import (
	"bufio"
	"io"
	"net"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gb-bench/gb/internal/h1"
	"github.com/gb-bench/gb/internal/load"
	"github.com/gb-bench/gb/stats"
)

// countServer reads requests (header and Content-Length body) one at a
// time on each connection, counts them, and lets answer reply to the i-th
// request of the connection (from 0); answer returns false to close the
// connection at once, without reading on.
type countServer struct {
	addr  string
	reads atomic.Int64
}

func newCountServer(t *testing.T, answer func(c net.Conn, i int) bool) *countServer {
	s := &countServer{}
	s.addr = serveConns(t, func(c net.Conn) {
		br := bufio.NewReaderSize(c, 64<<10)
		for i := 0; readRequest(br); i++ {
			s.reads.Add(1)
			if !answer(c, i) {
				return
			}
		}
	})
	return s
}

// readRequest reads one request's header section and body; false at EOF.
func readRequest(br *bufio.Reader) bool {
	length := 0
	for {
		line, err := br.ReadSlice('\n')
		for err == bufio.ErrBufferFull {
			_, err = br.ReadSlice('\n') // a long header line
		}
		if err != nil {
			return false
		}
		s := strings.TrimSpace(string(line))
		if s == "" {
			break
		}
		if name, v, ok := strings.Cut(s, ":"); ok && strings.EqualFold(name, "content-length") {
			length, _ = strconv.Atoi(strings.TrimSpace(v))
		}
	}
	_, err := br.Discard(length)
	return err == nil
}

const okResponse = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"

func batch(f *Fast, n int) ([]load.Exchange, []stats.Outcome) {
	xs, outs := make([]load.Exchange, n), make([]stats.Outcome, n)
	f.DoBatch(xs, outs)
	return xs, outs
}

// TestPipelineBatchBytesBounded: requests of 300 KiB pipelined 16 deep
// go out in writes of at most MaxBatchBytes, and all are answered.
func TestPipelineBatchBytesBounded(t *testing.T) {
	srv := newCountServer(t, func(c net.Conn, _ int) bool {
		_, err := io.WriteString(c, okResponse)
		return err == nil
	})
	big := strings.Repeat("a", 300<<10)
	req := h1.Request{Host: srv.addr, Headers: []h1.Header{{Name: "X-Big", Value: big}}}
	newCfg := func() *Config {
		return &Config{Addr: srv.addr, Request: req.Append(nil), KeepAlive: true, Idempotent: true, Timeout: 5 * time.Second}
	}
	forEachEngine(t, newCfg, func(t *testing.T, f *Fast) {
		_, outs := batch(f, 16)
		for i, o := range outs {
			if o != stats.OK {
				t.Errorf("request %d: %v", i, o)
			}
		}
		if b := f.cfg.batchBytes.Load(); b == nil || len(*b) > MaxBatchBytes {
			t.Errorf("batch buffer of %d bytes, want at most %d", len(*b), MaxBatchBytes)
		}
	})
}
