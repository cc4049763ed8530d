package shape

import (
	"math/rand/v2"
	"net/url"
	"testing"
	"time"
)

func TestParseSize(t *testing.T) {
	for s, want := range map[string]int64{
		"0": 0, "1024": 1024, "1e6": 1e6, "1.5k": 1536, "10KiB": 10240, "4m": 4 << 20, "2GB": 2 << 30, "1t": 1 << 40, "7b": 7,
	} {
		if got, err := ParseSize(s, MaxBodySize); got != want || err != nil {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", s, got, err, want)
		}
	}
	for _, s := range []string{"", "k", "-1", "1.5", "abc", "1x", "inf", "NaN", "2t", "1e400", "0x10"} {
		if _, err := ParseSize(s, MaxBodySize); err == nil {
			t.Errorf("ParseSize(%q) succeeded", s)
		}
	}
}

func TestParseDelay(t *testing.T) {
	for s, want := range map[string]time.Duration{"0": 0, "50": 50 * time.Millisecond, "2.5": 2500 * time.Microsecond, "250us": 250 * time.Microsecond, "1s": time.Second} {
		if got, err := ParseDelay(s); got != want || err != nil {
			t.Errorf("ParseDelay(%q) = %v, %v", s, got, err)
		}
	}
	for _, s := range []string{"", "-1ms", "2h", "soon"} {
		if _, err := ParseDelay(s); err == nil {
			t.Errorf("ParseDelay(%q) succeeded", s)
		}
	}
}

func TestWeighted(t *testing.T) {
	w, err := parseWeighted("10ms:90,200ms:10", ParseDelay)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(7, 7))
	slow := 0
	for range 10000 {
		if w.pick(r) == 200*time.Millisecond {
			slow++
		}
	}
	if slow < 910 || slow > 1090 { // 10% ± 3σ (σ = 30); fixed by the seed
		t.Errorf("%d of 10000 slow, want about 1000", slow)
	}
	single, _ := parseWeighted("503", ParseStatus)
	if single.random() || single.pick(nil) != 503 {
		t.Error("a single value is not constant")
	}
	zero, _ := parseWeighted("200:0,503:1", ParseStatus)
	for range 100 {
		if zero.pick(r) != 503 {
			t.Fatal("a zero weight was picked")
		}
	}
	for _, s := range []string{"", "200:", "200:-1", "200:0", "abc:1", "200:1:2", "200:NaN"} {
		if _, err := parseWeighted(s, ParseStatus); err == nil {
			t.Errorf("parseWeighted(%q) succeeded", s)
		}
	}
}

// TestDrawShapeDeterministic checks the seeded draw of the common
// parameters: proportions, and the same sequence for the same seed.
func TestDrawShapeDeterministic(t *testing.T) {
	q, _ := url.ParseQuery("status=200:95,503:5&delay=1ms:50,2ms:50&size=1:1,2:3&seed=7")
	draw := func(d *Dice, n int) []Shape {
		out := make([]Shape, n)
		for i := range out {
			sh, err := d.Draw(q, Shape{}, Keys{})
			if err != nil {
				t.Fatal(err)
			}
			out[i] = sh
		}
		return out
	}
	a, b := draw(&Dice{}, 4000), draw(&Dice{}, 4000)
	var n503, nSlow, nBig int
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("draw %d differs: %+v / %+v", i, a[i], b[i])
		}
		n503 += btoi(a[i].Code == 503)
		nSlow += btoi(a[i].Delay == 2*time.Millisecond)
		nBig += btoi(a[i].Size == 2)
	}
	// Expected 200 ± 41, 2000 ± 95, 3000 ± 82 (3σ).
	if n503 < 159 || n503 > 241 || nSlow < 1905 || nSlow > 2095 || nBig < 2918 || nBig > 3082 {
		t.Errorf("503: %d, 2ms: %d, size 2: %d", n503, nSlow, nBig)
	}
	// Requests with another seed do not shift this seed's sequence.
	other, _ := url.ParseQuery("status=200:95,503:5&seed=8")
	d := &Dice{}
	for i := range 100 {
		sh, _ := d.Draw(q, Shape{}, Keys{})
		d.Draw(other, Shape{}, Keys{})
		if sh != a[i] {
			t.Fatalf("draw %d shifted by seed 8: %+v, want %+v", i, sh, a[i])
		}
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
