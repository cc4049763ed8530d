// Package testsupport holds the helpers gb's tests share: gb's own test
// server started for one test, a private nginx, and small loopback TCP
// servers (a line echo, a server running a given handler, an address
// nothing listens on).
//
// Every helper takes the test's testing.TB, fails it when a server cannot
// start, and stops what it started in tb.Cleanup. The package imports
// testing: only tests (and test tools) may import it, never a product
// binary; CI checks that ./cmd/gb does not link testing.
package testsupport
