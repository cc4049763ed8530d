package pace

import (
	"errors"
	"testing"
	"time"
)

func TestConstantDue(t *testing.T) {
	for _, tc := range []struct {
		c    Constant
		i    int64
		want time.Duration
	}{
		{Constant{1000, time.Second}, 0, 0},
		{Constant{1000, time.Second}, 1, time.Millisecond},
		{Constant{1000, time.Second}, 1500, 1500 * time.Millisecond},
		{Constant{3, time.Second}, 1, 333333333},
		{Constant{3, time.Second}, 2, 666666666},
		{Constant{3, time.Second}, 3, time.Second},
		{Constant{3, time.Second}, 3000001, 1000000*time.Second + 333333333},
		{Constant{50, time.Second}, 50 * 86400 * 365, 86400 * 365 * time.Second},
		{Constant{1, 100 * time.Millisecond}, 7, 700 * time.Millisecond},
		{Constant{7, 3 * time.Second}, 7*1e9 + 1, 3e9*time.Second + 428571428},
	} {
		if got := tc.c.Due(tc.i); got != tc.want {
			t.Errorf("%v.Due(%d) = %v, want %v", tc.c, tc.i, got, tc.want)
		}
	}
}

func TestScheduledInvertsDue(t *testing.T) {
	for _, c := range []Constant{{1000, time.Second}, {3, time.Second}, {7, 3 * time.Second}, {5000, time.Second}} {
		for i := int64(0); i < 20000; i += 37 {
			d := c.Due(i)
			// Request i is due at d: at d it is scheduled, just before it is not.
			if got := c.Scheduled(d); got < i+1 {
				t.Fatalf("%v: Scheduled(Due(%d)=%v) = %d, want >= %d", c, i, d, got, i+1)
			}
			if i > 0 && d > 0 {
				if got := c.Scheduled(d - 1); got > i {
					t.Fatalf("%v: Scheduled(%v) = %d, want <= %d", c, d-1, got, i)
				}
			}
		}
	}
	if got := (Constant{1000, time.Second}).Scheduled(-time.Second); got != 0 {
		t.Errorf("Scheduled before start = %d", got)
	}
}

func TestPace(t *testing.T) {
	c := Constant{100, time.Second}
	for _, tc := range []struct {
		elapsed time.Duration
		hits    int64
		want    time.Duration
	}{
		{0, 0, 0},
		{0, 1, 10 * time.Millisecond},
		{5 * time.Millisecond, 1, 5 * time.Millisecond},
		{time.Second, 50, 0}, // behind schedule: send now
		{time.Second, 150, 500 * time.Millisecond},
	} {
		if got := c.Pace(tc.elapsed, tc.hits); got != tc.want {
			t.Errorf("Pace(%v, %d) = %v, want %v", tc.elapsed, tc.hits, got, tc.want)
		}
	}
}

func TestParseRate(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Constant
		rate float64
	}{
		{"2000", Constant{2000, time.Second}, 2000},
		{"50/1s", Constant{50, time.Second}, 50},
		{"50/s", Constant{50, time.Second}, 50},
		{"1/100ms", Constant{1, 100 * time.Millisecond}, 10},
		{"30/1m", Constant{30, time.Minute}, 0.5},
	} {
		got, err := ParseRate(tc.in)
		if err != nil || got != tc.want || got.Rate() != tc.rate {
			t.Errorf("ParseRate(%q) = %v (%v/s), %v; want %v", tc.in, got, got.Rate(), err, tc.want)
		}
		if back, _ := ParseRate(got.String()); back != got {
			t.Errorf("String round trip of %v: %v", got, back)
		}
	}
	for _, bad := range []string{"", "0", "-5", "abc", "10/", "10/0s", "10/-1s", "1.5", "2000000000/1s"} {
		if _, err := ParseRate(bad); !errors.Is(err, ErrRate) {
			t.Errorf("ParseRate(%q) accepted", bad)
		}
	}
}

// TestWithinEndsTheSchedule drives each schedule with a scripted clock,
// as a sender would: it sends request hits after waiting what Pace says,
// for as long as Within(d) allows. A run of length d at rate R sends
// floor(R·d) requests, at 0, 1/R, ..., all before d, and the next one
// would not be due before d (vegeta sends as many, from 1/R to d).
func TestWithinEndsTheSchedule(t *testing.T) {
	for _, tc := range []struct {
		c    Constant
		d    time.Duration
		want int64
	}{
		{Constant{200, time.Second}, 2 * time.Second, 400}, // -R 200 -t 2
		{Constant{200, time.Second}, 2*time.Second - 1, 399},
		{Constant{3, time.Second}, 1500 * time.Millisecond, 4}, // floor(4.5)
		{Constant{1, 100 * time.Millisecond}, 250 * time.Millisecond, 2},
		{Constant{7, 3 * time.Second}, 3 * time.Second, 7},
		{Constant{50, time.Second}, 0, 0},
		{Constant{1, 10 * time.Second}, 2 * time.Second, 0},
		{Constant{3_000_000, time.Hour}, time.Hour - 1, 2_999_999}, // r·Freq overflows int64
		{Constant{1_000_000, time.Second}, 3 * time.Hour, 3 * 3600 * 1_000_000},
	} {
		if got := tc.c.Within(tc.d); got != tc.want {
			t.Errorf("%v.Within(%v) = %d, want %d", tc.c, tc.d, got, tc.want)
			continue
		}
		if tc.want > 100_000 {
			continue // too long to script
		}
		var now time.Duration // the scripted clock
		var sent int64
		for ; sent < tc.c.Within(tc.d); sent++ {
			now += tc.c.Pace(now, sent)
			if now != tc.c.Due(sent) || now >= tc.d {
				t.Fatalf("%v over %v: request %d sent at %v, want %v (before the end)", tc.c, tc.d, sent, now, tc.c.Due(sent))
			}
		}
		if next := tc.c.Due(sent + 1); next <= tc.d {
			t.Errorf("%v over %v: request %d's interval ends at %v, inside the run, but it was not sent", tc.c, tc.d, sent, next)
		}
	}
}
