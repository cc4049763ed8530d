package testserver

import "testing"

// ForTest starts a Server for a test and closes it when the test ends; it
// fails the test if the server cannot start.
func ForTest(tb testing.TB, o Options) *Server {
	tb.Helper()
	srv, err := Start(o)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { srv.Close() })
	return srv
}
