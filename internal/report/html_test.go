package report

import (
	"bytes"
	"html"
	"strings"
	"testing"

	"github.com/gb-bench/gb/internal/fakerun"
)

func TestHTMLGolden(t *testing.T) {
	fx := fakerun.Fixtures()
	fx["failures"].Server.Software = `<b>"gb&co"</b>` // escaped in the golden file
	fx["failures"].Load.Host = "<host>"
	for _, tc := range []struct {
		file, fixture string
		o             Options
	}{
		{"html_plain.html", "plain", Options{}},
		{"html_failures.html", "failures", Options{TableAttrs: `border="1"`, RowAttrs: `class="r"`, CellAttrs: `align=left`}},
		{"html_post.html", "post", Options{}},
		{"html_zero.html", "zero", Options{}},
		{"html_variable.html", "variable", Options{}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			var b bytes.Buffer
			if err := HTML(&b, fx[tc.fixture], tc.o); err != nil {
				t.Fatal(err)
			}
			golden(t, tc.file, b.Bytes())
		})
	}
}

// TestHTMLEscapes checks that strings from the server cannot inject markup.
func TestHTMLEscapes(t *testing.T) {
	r := fakerun.Fixtures()["plain"]
	r.Server.Software = `<script>alert(1)</script>`
	r.Load.Path = `/?a=<b>&c="d"`
	var b bytes.Buffer
	if err := HTML(&b, r, Options{}); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"<script>", "<b>", `"d"`} {
		if strings.Contains(b.String(), bad) {
			t.Errorf("HTML contains unescaped %q:\n%s", bad, b.String())
		}
	}
	if !strings.Contains(b.String(), "&lt;script&gt;alert(1)&lt;/script&gt;") {
		t.Errorf("server software not escaped:\n%s", b.String())
	}
}

func TestBannerGolden(t *testing.T) {
	var b bytes.Buffer
	for _, step := range []func() error{
		func() error { return Banner(&b, "1.0.0", false) },
		func() error { return Benchmarking(&b, "127.0.0.1", "", true) },
		func() error { return Banner(&b, "1.0.0", false) },
		func() error { return Benchmarking(&b, "example.com", "proxy.local:3128", false) },
		func() error { return Done(&b) },
	} {
		if err := step(); err != nil {
			t.Fatal(err)
		}
	}
	golden(t, "banner.txt", b.Bytes())

	b.Reset()
	if err := Banner(&b, "1.0.0<dev>", true); err != nil {
		t.Fatal(err)
	}
	if err := Done(&b); err != nil {
		t.Fatal(err)
	}
	golden(t, "banner.html", b.Bytes())
}

// TestHTMLTablesMatchText checks -w's added tables: the percentile rows
// carry the text report's values, and gb's section has the text's keys
// and values (escaped), rate-mode keys included.
func TestHTMLTablesMatchText(t *testing.T) {
	r := fakerun.Fixtures()["rate"]
	var text, page bytes.Buffer
	if err := Text(&text, r, Options{}); err != nil {
		t.Fatal(err)
	}
	if err := HTML(&page, r, Options{}); err != nil {
		t.Fatal(err)
	}
	_, table, _ := strings.Cut(text.String(), "Percentage of the requests served within a certain time (ms)\n")
	for _, l := range strings.Split(table, "\n")[:9] {
		f := strings.Fields(l)
		want := "<th colspan=2 bgcolor=white>" + f[0] + "</th><td colspan=2 bgcolor=white>" + strings.Join(f[1:], " ") + "</td>"
		if !strings.Contains(page.String(), want) {
			t.Errorf("no percentile row %q in:\n%s", want, page.String())
		}
	}
	_, gb, _ := strings.Cut(text.String(), "\ngb:\n")
	for _, l := range strings.Split(strings.TrimSpace(gb), "\n") {
		key, value, _ := strings.Cut(strings.TrimSpace(l), ":")
		want := "<th colspan=2 bgcolor=white>" + key + ":</th><td colspan=2 bgcolor=white>" + html.EscapeString(strings.TrimSpace(value)) + "</td>"
		if !strings.Contains(page.String(), want) {
			t.Errorf("no gb row %q", want)
		}
	}
}
