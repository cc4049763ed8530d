package h3

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/gb-bench/gb/stats"
	"github.com/quic-go/quic-go"
)

// TestStreams: 300 requests, 8 streams in flight on one connection: every
// one is ok, the server served exactly as many, one connection opened and
// closed.
func TestStreams(t *testing.T) {
	s := startServer(t, nil, hello)
	c := New(context.Background(), newConfig(t, s.addr, 8, 30*time.Second, nil))
	tl := drive(t, c, 300)
	if tl.outcomes[stats.OK] != 300 || s.served.Load() != 300 || tl.opened != 1 || tl.closed != 1 {
		t.Errorf("%+v %v, served %d", tl, tl.errs, s.served.Load())
	}
}

// TestStreamLimitOne: the server allows one stream at a time
// (MaxIncomingStreams 1) and the client asks for 8: requests wait for the
// stream, none is lost.
func TestStreamLimitOne(t *testing.T) {
	s := startServer(t, &quic.Config{MaxIncomingStreams: 1}, hello)
	c := New(context.Background(), newConfig(t, s.addr, 8, 30*time.Second, nil))
	tl := drive(t, c, 60)
	if tl.outcomes[stats.OK] != 60 || s.served.Load() != 60 || tl.total() != 60 {
		t.Errorf("%+v %v, served %d", tl, tl.errs, s.served.Load())
	}
}

// TestStatuses: a non-2xx status is non2xx with its body read; 1xx interim
// responses are skipped.
func TestStatuses(t *testing.T) {
	s := startServer(t, nil, func(_ *server, w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusEarlyHints)
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte("nope"))
	})
	c := New(context.Background(), newConfig(t, s.addr, 2, 30*time.Second, nil))
	tl := drive(t, c, 10)
	if tl.outcomes[stats.Non2xx] != 10 {
		t.Errorf("%+v", tl)
	}
}

// TestZeroTimeout: Client.Timeout 0 is the documented 30 s, not an
// immediate deadline.
func TestZeroTimeout(t *testing.T) {
	s := startServer(t, nil, hello)
	c := New(context.Background(), newConfig(t, s.addr, 2, 0, nil))
	if tl := drive(t, c, 10); tl.outcomes[stats.OK] != 10 {
		t.Errorf("%+v %v", tl, tl.errs)
	}
}
