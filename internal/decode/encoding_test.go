package decode

import "testing"

func TestEncodingAdd(t *testing.T) {
	cases := []struct {
		fields []string
		want   Encoding
	}{
		{nil, Identity},
		{[]string{"gzip"}, Gzip},
		{[]string{" X-GZip "}, Gzip},
		{[]string{"BR"}, Brotli},
		{[]string{"zstd"}, Zstd},
		{[]string{"identity"}, Identity},
		{[]string{"identity, gzip"}, Gzip},
		{[]string{"deflate"}, Unknown},
		{[]string{"gzip, br"}, Stacked},
		{[]string{"gzip", "zstd"}, Stacked},
		{[]string{"gzip,"}, Gzip},
	}
	for _, c := range cases {
		e := Identity
		for _, f := range c.fields {
			e = e.Add([]byte(f))
		}
		if e != c.want {
			t.Errorf("%q: %v, want %v", c.fields, e, c.want)
		}
	}
}

func TestAccepted(t *testing.T) {
	cases := []struct {
		v    string
		want Set
	}{
		{AcceptEncoding, All},
		{"gzip", 1 << Gzip},
		{"gzip;q=0.5, br;q=0", 1 << Gzip},
		{"deflate, identity", 0},
		{"*", All},
		{"zstd;q=0, *", 1<<Gzip | 1<<Brotli},
		{"*;q=0", 0},
		{"", 0},
	}
	for _, c := range cases {
		if got := Accepted(c.v); got != c.want {
			t.Errorf("Accepted(%q) = %b, want %b", c.v, got, c.want)
		}
	}
	if !Set(0).Has(Identity) || Set(0).Has(Gzip) || All.Has(Unknown) {
		t.Error("Has")
	}
}
