package testsupport

import (
	"testing"

	"github.com/gb-bench/gb/internal/testserver"
)

// Server starts gb's test server for a test and closes it when the test
// ends; it fails the test if the server cannot start or does not close
// cleanly.
func Server(tb testing.TB, o testserver.Options) *testserver.Server {
	tb.Helper()
	srv, err := testserver.Start(o)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		if err := srv.Close(); err != nil {
			tb.Errorf("closing the test server: %v", err)
		}
	})
	return srv
}
