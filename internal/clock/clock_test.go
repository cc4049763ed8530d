package clock

import (
	"testing"
	"time"
)

// TestNowFollowsTimeNow: Now moves with time.Now, within the time between
// the readings, on both its monotonic and its wall reading.
func TestNowFollowsTimeNow(t *testing.T) {
	for range 1000 {
		before := time.Now()
		now := Now()
		after := time.Now()
		if now.Before(before) || now.After(after) {
			t.Fatalf("Now %v is outside [%v, %v] on the monotonic clock", now, before, after)
		}
		// Round(0) strips the monotonic reading: compare the wall times.
		if d := now.Round(0).Sub(before.Round(0)); d < -time.Millisecond || d > time.Millisecond+after.Sub(before) {
			t.Fatalf("Now's wall time is %v from time.Now's", d)
		}
	}
	time.Sleep(10 * time.Millisecond)
	a := Now()
	time.Sleep(10 * time.Millisecond)
	if d := Now().Sub(a); d < 10*time.Millisecond || d > time.Second {
		t.Errorf("10 ms of sleep measured %v with Now", d)
	}
}

func BenchmarkNow(b *testing.B) {
	for range b.N {
		_ = Now()
	}
}

func BenchmarkTimeNow(b *testing.B) {
	for range b.N {
		_ = time.Now()
	}
}
