package testsupport

import (
	"os"
	"testing"
)

// SocketDir returns a new short temporary directory for unix sockets,
// removed when the test ends: a socket's path must fit in 108 bytes, and
// t.TempDir's, named for the test, may not.
func SocketDir(t testing.TB) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "gbsock")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}
