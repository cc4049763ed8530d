package testserver_test

import (
	"sync"
	"testing"
	"time"

	"github.com/gb-bench/gb/internal/testserver"
	"github.com/gb-bench/gb/internal/testsupport"
)

// TestLimitedQueues checks that /limited lets at most max requests work at
// once: six concurrent requests of 30 ms through two slots cannot all end
// in less than three delays (a lower bound, not a speed threshold).
func TestLimitedQueues(t *testing.T) {
	s := testsupport.Server(t, testserver.Options{})
	c := client()
	const d, n, max = 30 * time.Millisecond, 6, 2
	begin := time.Now()
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			resp, body := get(t, c, s.URL()+"/limited?d=30ms&max=2&size=3")
			if resp.StatusCode != 200 || body != "abc" {
				t.Errorf("/limited: %d %q", resp.StatusCode, body)
			}
		})
	}
	wg.Wait()
	if took := time.Since(begin); took < n/max*d {
		t.Errorf("%d requests through %d slots of %v took %v: the limit did not hold", n, max, d, took)
	}
	for _, path := range []string{"/limited?max=0", "/limited?max=x", "/limited?max=10001", "/limited?d=x"} {
		if resp, _ := get(t, c, s.URL()+path); resp.StatusCode != 400 {
			t.Errorf("%s: %d, want 400", path, resp.StatusCode)
		}
	}
}
