// Package testsupport holds the helpers gb's tests share: gb's own test
// server started for one test ([Server]), a private nginx ([StartNginx]:
// TCP, a unix socket, TLS with h2; an access log by path and protocol),
// small loopback TCP servers and addresses ([Serve], [EchoLines],
// [FreePort], [ClosedAddr]), and raw HTTP/1.1 exchanges that say how a
// connection ended, FIN or RST ([Dial], [RoundTrip], [Expect],
// [LastExchange]), and headless Chromium driven over its DevTools pipe
// ([StartChromium]).
//
// Every helper takes the test's testing.TB, fails it when something cannot
// start, and stops what it started in tb.Cleanup. The package imports
// testing: only tests (and test tools) may import it, never a product
// binary; CI checks that ./cmd/gb does not link testing. Because it
// imports testserver, the tests of testserver and its subpackages that use
// it are external test packages (package testserver_test, fault_test).
package testsupport
