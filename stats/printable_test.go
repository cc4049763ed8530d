package stats

import "testing"

// TestPrintable: control sequences a server could send (ESC, CSI, OSC to
// retitle a window, CR to overwrite a line, C1 controls, broken UTF-8)
// come out as visible escapes; printable text, non-ASCII included, is
// kept as is and costs no allocation.
func TestPrintable(t *testing.T) {
	for in, want := range map[string]string{
		"Proxy Authentication Required":          "Proxy Authentication Required",
		`invalid URL "http://" (naïve, 日本)`:      `invalid URL "http://" (naïve, 日本)`,
		"Denied\x1b]2;pwned\x07\x1b[2J":          `Denied\x1b]2;pwned\x07\x1b[2J`,
		"a\rb\nc\x00d\x7f":                       `a\x0db\x0ac\x00d\x7f`,
		"c1 \u009b31m csi":                       `c1 \xc2\x9b31m csi`,
		"bad \xff\xfe utf8":                      `bad \xff\xfe utf8`,
		"zero width \u200b and bidi \u202e flip": `zero width \u200b and bidi \u202e flip`,
	} {
		if got := Printable(in); got != want {
			t.Errorf("Printable(%q) = %q, want %q", in, got, want)
		}
	}
	clean := "connection reset by peer"
	if n := testing.AllocsPerRun(100, func() { _ = Printable(clean) }); n != 0 {
		t.Errorf("%.0f allocations for a clean message", n)
	}
}
