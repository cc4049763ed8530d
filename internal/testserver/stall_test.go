package testserver_test

import (
	"crypto/tls"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/gb-bench/gb/internal/testserver"
	"github.com/gb-bench/gb/internal/testserver/fault"
	"github.com/gb-bench/gb/internal/testsupport"
)

// pending starts a GET of url and returns the channel of its status code.
func pending(c *http.Client, url string) <-chan int {
	ch := make(chan int, 1)
	go func() {
		resp, err := c.Get(url)
		if err != nil {
			ch <- -1
			return
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		ch <- resp.StatusCode
	}()
	return ch
}

// stillPending asserts that ch has no value yet.
func stillPending(t *testing.T, ch <-chan int, what string) {
	t.Helper()
	select {
	case code := <-ch:
		t.Fatalf("%s answered (%d) during a stall", what, code)
	default:
	}
}

func TestStall(t *testing.T) {
	s := testsupport.Server(t, testserver.Options{})
	c := client()
	s.Stall(time.Hour)
	main := pending(c, s.URL()+"/hello")
	fault := pending(c, s.FaultURL()+"/ok")
	testsupport.WaitFor(t, "both requests to arrive", func() bool {
		l := s.Ledger()
		return l.HTTP.Requests == 1 && l.Fault.Requests == 1
	})
	if _, body := get(t, c, s.URL()+"/__ledger"); body == "" { // control requests are not stalled
		t.Error("empty ledger")
	}
	stillPending(t, main, "main listener")
	stillPending(t, fault, "fault listener")
	s.Stall(2 * time.Hour) // a new setting keeps them waiting
	stillPending(t, main, "main listener")
	s.Stall(0)
	if <-main != 200 || <-fault != 200 {
		t.Error("stalled requests failed after Stall(0)")
	}
}

func TestCtlStall(t *testing.T) {
	s := testsupport.Server(t, testserver.Options{})
	c := client()
	post := func(q string) int {
		resp, err := c.Post(s.URL()+"/__ctl?"+q, "", nil)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if code := post("stall=1h"); code != 200 {
		t.Fatalf("stall=1h: %d", code)
	}
	ch := pending(c, s.URL()+"/hello")
	testsupport.WaitFor(t, "the request to arrive", func() bool { return s.Ledger().HTTP.Requests == 1 })
	stillPending(t, ch, "/hello")
	if code := post("stall=0"); code != 200 || <-ch != 200 {
		t.Error("stall=0 did not release the request")
	}
	for _, q := range []string{"", "stall=x", "stall=1s&at=y", "mode=1"} {
		if code := post(q); code != 400 {
			t.Errorf("/__ctl?%s: %d, want 400", q, code)
		}
	}
	if resp, _ := get(t, c, s.URL()+"/__ctl?stall=0"); resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("GET /__ctl: %d", resp.StatusCode)
	}
	if code := post("stall=1h&at=1ms"); code != 200 {
		t.Fatalf("at=: %d", code)
	}
	testsupport.WaitFor(t, "the scheduled stall", func() bool { return testserver.StallPending(s) })
	if l := s.Ledger().HTTP; l.Requests != 1 {
		t.Errorf("control requests counted: %+v", l)
	}
}

// TestCloseEndsStalls closes a server while requests of every kind wait,
// and checks that Close returns and every waiting exchange is marked.
func TestCloseEndsStalls(t *testing.T) {
	s, err := testserver.Start(testserver.Options{TLS: true})
	if err != nil {
		t.Fatal(err)
	}
	c := client()
	waits := []<-chan int{pending(c, s.URL()+"/delay?d=1h")}
	io.WriteString(testsupport.Dial(t, s.URL()), testsupport.GET("/bytes/1g")) // a client that never reads
	for _, target := range []string{"/stall?ms=inf", "/stall", "/drip?interval=1h", "/delay?ms=1h", "/stall-body", "/length-mismatch?declared=99", "/slow-headers?interval=1h&bytes=500"} {
		conn := testsupport.Dial(t, s.FaultURL())
		io.WriteString(conn, testsupport.GET(target))
	}
	testsupport.WaitFor(t, "every request to arrive", func() bool {
		l := s.Ledger()
		return l.HTTP.Requests == 2 && l.Ends()[fault.EndOpen] == 7
	})
	s.Stall(time.Hour)
	tc := &http.Client{Timeout: testsupport.Guard, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: s.CertPool()}}}
	waits = append(waits, pending(c, s.URL()+"/hello"), pending(tc, s.TLSURL()+"/hello"))
	testsupport.WaitFor(t, "the stalled requests", func() bool {
		l := s.Ledger()
		return l.HTTP.Requests == 3 && l.TLS.Requests == 1
	})

	done := make(chan error, 1)
	go func() { done <- s.Close() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Close: %v", err)
		}
	case <-time.After(testsupport.Guard):
		t.Fatal("Close did not return")
	}
	for _, ch := range waits {
		<-ch
	}
	if e := s.Ledger().Ends(); e[fault.EndStalled] != 7 {
		t.Errorf("ends after Close: %v", e)
	}
}

func TestCloseTwice(t *testing.T) {
	s, err := testserver.Start(testserver.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := testserver.Start(testserver.Options{Addr: "256.0.0.1:0"}); err == nil {
		t.Error("Start on a bad address succeeded")
	}
}
