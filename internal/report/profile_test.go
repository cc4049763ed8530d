package report

import (
	"bytes"
	"regexp"
	"testing"

	"github.com/gb-bench/gb/internal/fakerun"
)

// profileLine matches the lines of the server profile section that are
// not "key: value" lines: its blank line and title, and table rows.
var profileLine = regexp.MustCompile(`^$|^gb server profile:$|^gb diagnosis:$|^ {4,}\S`)

func TestProfileGolden(t *testing.T) {
	for file, name := range map[string]string{"text_profile.txt": "profile", "text_profile_hostile.txt": "hostile profile"} {
		var b bytes.Buffer
		if err := Text(&b, fakerun.ProfileFixtures()[name], Options{}); err != nil {
			t.Fatal(err)
		}
		golden(t, file, b.Bytes())
	}
}

func TestFormatValue(t *testing.T) {
	for _, tc := range []struct {
		v    int64
		unit string
		want string
	}{
		{0, "nanoseconds", "0"},
		{150_000_000, "nanoseconds", "150ms"},
		{1_350_000_000, "nanoseconds", "1.35s"},
		{2_000_000_000, "nanoseconds", "2s"},
		{1500, "nanoseconds", "1.5us"},
		{-10_000_000, "nanoseconds", "-10ms"},
		{512, "bytes", "512B"},
		{1536, "bytes", "1.5kB"},
		{1945650714, "bytes", "1.81GB"},
		{42, "count", "42"},
	} {
		if got := formatValue(tc.v, tc.unit); got != tc.want {
			t.Errorf("formatValue(%d, %s) = %q, want %q", tc.v, tc.unit, got, tc.want)
		}
	}
}
