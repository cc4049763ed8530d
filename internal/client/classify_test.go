package client

import (
	"context"
	"errors"
	"net"
	"os"
	"syscall"
	"testing"

	"github.com/gb-bench/gb/stats"
)

// TestClassifyDial covers the dial failures no test can cause on demand
// (F38: EADDRNOTAVAIL), plus the common ones.
func TestClassifyDial(t *testing.T) {
	op := func(err error) error {
		return &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", err)}
	}
	for _, tc := range []struct {
		err  error
		want stats.Outcome
	}{
		{op(syscall.EADDRNOTAVAIL), stats.FailLocal},
		{op(syscall.EMFILE), stats.FailLocal},
		{op(syscall.ENFILE), stats.FailLocal},
		{op(syscall.ENOBUFS), stats.FailLocal},
		{op(syscall.ECONNREFUSED), stats.FailConnect},
		{op(syscall.EHOSTUNREACH), stats.FailConnect},
		{&net.DNSError{Err: "no such host", Name: "nx.invalid", IsNotFound: true}, stats.FailDNS},
		{&net.OpError{Op: "dial", Err: context.DeadlineExceeded}, stats.TimeoutConnect},
		{&net.OpError{Op: "dial", Err: context.Canceled}, stats.FailConnect},
		{&net.OpError{Op: "dial", Err: timeoutErr{}}, stats.TimeoutConnect},
		{errors.New("something else"), stats.FailConnect},
	} {
		if got := classifyDial(tc.err); got != tc.want {
			t.Errorf("classifyDial(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
}

type timeoutErr struct{}

func (timeoutErr) Error() string   { return "i/o timeout" }
func (timeoutErr) Timeout() bool   { return true }
func (timeoutErr) Temporary() bool { return true }
