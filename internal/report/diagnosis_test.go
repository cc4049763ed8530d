package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/gb-bench/gb/internal/fakerun"
)

func TestDiagnosisGolden(t *testing.T) {
	for file, name := range map[string]string{"text_diagnosis.txt": "diagnosis", "text_diagnosis_hostile.txt": "hostile diagnosis"} {
		var b bytes.Buffer
		if err := Text(&b, fakerun.ProfileFixtures()[name], Options{}); err != nil {
			t.Fatal(err)
		}
		_, sec, ok := strings.Cut(b.String(), "\ngb diagnosis:\n")
		if !ok {
			t.Fatalf("no diagnosis section:\n%s", b.String())
		}
		if strings.ContainsAny(sec, "\x1b\r") {
			t.Errorf("control bytes in the section:\n%q", sec)
		}
		golden(t, file, []byte(sec))
	}
}

// TestDiagnosisAfterProfile: the section follows the server profile, and
// a profile without a diagnosis writes none.
func TestDiagnosisAfterProfile(t *testing.T) {
	var b bytes.Buffer
	if err := Text(&b, fakerun.ProfileFixtures()["diagnosis"], Options{}); err != nil {
		t.Fatal(err)
	}
	p, d := strings.Index(b.String(), "\ngb server profile:\n"), strings.Index(b.String(), "\ngb diagnosis:\n")
	if p < 0 || d < p {
		t.Errorf("profile at %d, diagnosis at %d", p, d)
	}
	b.Reset()
	if err := Text(&b, fakerun.ProfileFixtures()["profile"], Options{}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "gb diagnosis:") {
		t.Errorf("a diagnosis section without a diagnosis")
	}
}
