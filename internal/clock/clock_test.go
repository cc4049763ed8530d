package clock

import (
	"testing"
	"time"
)

// TestMonoFollowsTimeNow: a Mono read between two time.Now readings lies
// between them once converted, converts back to itself, and the zero Mono
// stands for the zero Time both ways.
func TestMonoFollowsTimeNow(t *testing.T) {
	for range 1000 {
		before := time.Now()
		m := Read()
		after := time.Now()
		if m.IsZero() || m.Time().Before(before) || m.Time().After(after) {
			t.Fatalf("Read %d (%v) is outside [%v, %v]", m, m.Time(), before, after)
		}
		if Of(before) > m || Of(after) < m || Of(m.Time()) != m {
			t.Fatalf("Of(%v) = %d, Of(%v) = %d, Of(Read().Time()) = %d: want %d between and equal", before, Of(before), after, Of(after), Of(m.Time()), m)
		}
	}
	if !Of(time.Time{}).IsZero() || !Mono(0).Time().IsZero() {
		t.Errorf("the zero Mono and the zero Time do not convert to each other")
	}
	// Read measures what the runtime's monotonic clock measures around it:
	// at least the sleep, at most the time.Now difference that brackets it
	// (no bound in seconds: a busy machine may sleep much longer).
	before := time.Now()
	a := Read()
	time.Sleep(10 * time.Millisecond)
	b := Read()
	outer := time.Since(before)
	if d := b.Sub(a); d < 10*time.Millisecond || d > outer {
		t.Errorf("10 ms of sleep measured %v with Read, %v with time.Since around it", d, outer)
	}
}

func BenchmarkRead(b *testing.B) {
	for range b.N {
		_ = Read()
	}
}

func BenchmarkTimeNow(b *testing.B) {
	for range b.N {
		_ = time.Now()
	}
}
