package getopt

import (
	"errors"
	"slices"
	"testing"
)

type opts struct {
	json, html string
	quiet      bool
}

var testSpecs = []Spec[opts]{
	New(0, "json", "file", "", func(o *opts, v string) error { o.json = v; return nil }),
	New(0, "html", "file", "", func(o *opts, v string) error { o.html = v; return nil }),
	New(0, "hgrm", "file", "", func(o *opts, v string) error { return nil }),
	New('q', "quiet", "", "", func(o *opts, _ string) error { o.quiet = true; return nil }),
}

// TestParseAnywhere: options before, between and after the arguments;
// "--" ends them; "-" is an argument.
func TestParseAnywhere(t *testing.T) {
	var o opts
	args, err := ParseAnywhere([]string{"a.json", "--json", "out.json", "b.json", "-q", "-", "--", "--html", "x"}, testSpecs, &o)
	if err != nil || !slices.Equal(args, []string{"a.json", "b.json", "-", "--html", "x"}) || o.json != "out.json" || !o.quiet || o.html != "" {
		t.Errorf("args %q, opts %+v, err %v", args, o, err)
	}
	args, err = Parse([]string{"a.json", "--json", "out.json"}, testSpecs, &opts{})
	if err != nil || !slices.Equal(args, []string{"a.json", "--json", "out.json"}) {
		t.Errorf("Parse stops at the first argument: %q %v", args, err)
	}
}

// TestDidYouMean: an unknown long option near a known one names it in a
// one-line error (no usage); one near none gets the usage as before.
func TestDidYouMean(t *testing.T) {
	for _, tc := range []struct {
		arg, msg string
		usage    bool
	}{
		{"--jsn", "unknown option --jsn; did you mean --json?", false},
		{"--jsonn=x", "unknown option --jsonn; did you mean --json?", false},
		{"--qiuet", "unknown option --qiuet; did you mean --quiet?", false},
		{"--hgr", "unknown option --hgr; did you mean --hgrm?", false},
		{"--zz", "unknown option --zz", true},
		{"--bogus", "unknown option --bogus", true},
	} {
		_, err := Parse([]string{tc.arg, "v"}, testSpecs, &opts{})
		var e *Error
		if !errors.As(err, &e) || e.Msg != tc.msg || e.Usage != tc.usage {
			t.Errorf("%s: %#v, want %q usage=%v", tc.arg, err, tc.msg, tc.usage)
		}
	}
}

func TestEditDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		d    int
	}{{"", "", 0}, {"json", "jsn", 1}, {"kitten", "sitting", 3}, {"", "abc", 3}} {
		if d := EditDistance(tc.a, tc.b); d != tc.d {
			t.Errorf("EditDistance(%q, %q) = %d, want %d", tc.a, tc.b, d, tc.d)
		}
	}
}
