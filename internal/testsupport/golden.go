package testsupport

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// Golden compares got with the file testdata/name of the test's package.
// With update (the package's -update flag) it rewrites the file instead;
// on a mismatch it writes testdata/name.got beside it for diffing, and
// removes that file again once they match.
func Golden(t testing.TB, name string, got []byte, update bool) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if bytes.Equal(got, want) {
		_ = os.Remove(path + ".got")
		return
	}
	if err := os.WriteFile(path+".got", got, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Errorf("%s differs from the golden file; see %s.got (go test -update accepts it)", path, path)
}
