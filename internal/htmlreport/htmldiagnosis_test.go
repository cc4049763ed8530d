package htmlreport

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/gb-bench/gb/internal/fakerun"
	"github.com/gb-bench/gb/internal/report"
	"github.com/gb-bench/gb/stats"
)

// diagnosisHTML is the diagnosis section of r's page, "" without one.
func diagnosisHTML(t *testing.T, r *stats.Result) string {
	t.Helper()
	return regexp.MustCompile(`(?s)<section id="diagnosis">.*?</section>\n`).FindString(htmlOf(t, r))
}

// TestHTMLDiagnosisGolden: the page's diagnosis section (the verdict,
// the CPU by cause, the facts, the profiles to open next, what is
// missing) is the golden one, and a hostile server's names are escaped
// and their control bytes gone.
func TestHTMLDiagnosisGolden(t *testing.T) {
	for file, name := range map[string]string{"htmlreport_diagnosis.html": "diagnosis", "htmlreport_diagnosis_hostile.html": "hostile diagnosis"} {
		sec := diagnosisHTML(t, fakerun.ProfileFixtures()[name])
		if sec == "" {
			t.Fatalf("%s: no diagnosis section", name)
		}
		if strings.ContainsAny(sec, "\x1b\r") {
			t.Errorf("%s: control bytes in the section:\n%q", name, sec)
		}
		golden(t, file, []byte(sec))
	}
}

// TestHTMLDiagnosisContent checks what the section says against the
// diagnosis: the verdict first, every cause with its number per request
// and share, every line of the text section, the commands that open the
// profiles behind the bound, and the missing lines; and that it sits
// after the server profile, and not at all without a diagnosis.
func TestHTMLDiagnosisContent(t *testing.T) {
	r := fakerun.ProfileFixtures()["diagnosis"]
	d := r.Profile.Diagnosis
	page := htmlOf(t, r)
	sec := diagnosisHTML(t, r)
	if !strings.HasPrefix(sec, `<section id="diagnosis">`+"\n<h2>Diagnosis</h2>\n"+`<p class="headline">GC and allocation: 2100us of CPU per request`) {
		t.Errorf("the verdict is not the section's first line:\n%s", sec)
	}
	if p, s := strings.Index(page, `<section id="profile">`), strings.Index(page, `<section id="diagnosis">`); p < 0 || s < p {
		t.Errorf("profile at %d, diagnosis at %d", p, s)
	}
	for _, c := range d.CPU.Classes {
		row := "<td class=\"text\">" + report.CPUCause(c.Class) + "</td><td>" + report.Micros(c.PerRequest) + "</td><td>" + pctShare(c.Share) + "</td>"
		if !strings.Contains(sec, row) {
			t.Errorf("no row %q", row)
		}
	}
	for _, l := range report.DiagnosisLines(r) {
		if l[0] != "bound by" && !strings.HasPrefix(l[0], "cpu ") && !strings.Contains(sec, escape(l[1])) {
			t.Errorf("the page lacks the text's line %s: %s", l[0], l[1])
		}
	}
	if n := strings.Count(sec, "<tr><td class=\"text\">cpu "); n != 0 {
		t.Errorf("%d CPU lines of the text among the facts: the CPU table has them", n)
	}
	for _, want := range []string{"Open next (saved in gb-profiles/20261121-135130)", "<td class=\"text\">allocs</td><td class=\"text\">go tool pprof -http=127.0.0.1:0 gb-profiles/20261121-135130/allocs.pb.gz</td>",
		"block: no blocking recorded", "<caption>Facts</caption>", "<td class=\"text\">wait mutex</td>"} {
		if !strings.Contains(sec, want) {
			t.Errorf("the section lacks %q:\n%s", want, sec)
		}
	}
	if strings.Contains(sec, "trace.out") {
		t.Errorf("a GC bound opens the trace:\n%s", sec)
	}
	if diagnosisHTML(t, fakerun.ProfileFixtures()["profile"]) != "" {
		t.Error("a diagnosis section without a diagnosis")
	}
}

// escape is s as html/template writes it in text.
func escape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&#34;", "'", "&#39;", "+", "&#43;").Replace(s)
}

// TestHTMLDiagnosisFromJSON: the section comes from the result alone, so
// the page of the result read back from its JSON (gb report --html) has
// the same section; an unknown bound (a part the diagnosis gains later)
// offers every saved profile.
func TestHTMLDiagnosisFromJSON(t *testing.T) {
	r := fakerun.ProfileFixtures()["diagnosis"]
	raw, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var back stats.Result
	if err := json.Unmarshal(raw, &back); err != nil {
		t.Fatal(err)
	}
	if a, b := diagnosisHTML(t, r), diagnosisHTML(t, &back); a == "" || a != b {
		t.Errorf("from JSON:\n%s\nlive:\n%s", b, a)
	}
	back.Profile.Diagnosis.Bound = "something_new"
	sec := diagnosisHTML(t, &back)
	for _, f := range back.Profile.Files {
		if !strings.Contains(sec, f.Open) {
			t.Errorf("unknown bound: %s is not offered", f.Open)
		}
	}
}
