// Package testserver is gb's built-in target: the server behind `gb serve`
// and `gb demo`, and the loopback peer of every package's tests.
//
// A [Server] runs up to four listeners:
//
//   - the main listener ([Server.URL]): net/http with HTTP/1.1 and h2c,
//     serving well-formed endpoints (/bytes/N, /json, /leftpad, /ok, /delay,
//     /status, /chunked, /close), net/http/pprof and expvar, and the control
//     endpoints /__ctl, /__ledger and /__reset;
//   - an optional HTTPS listener ([Server.TLSURL]) with the same handlers,
//     HTTP/1.1 and h2 offered by ALPN, and a certificate signed by a CA
//     generated at start;
//   - an optional unix domain socket listener ([Server.UnixPath]) with the
//     same handlers, HTTP/1.1 and h2c;
//   - the fault listener ([Server.FaultURL]): package fault's raw TCP
//     listener with its own minimal HTTP/1.1 request reader, which writes
//     exact response bytes and can stall, drip, truncate, FIN or RST on
//     purpose (reliability.md §4).
//
// Every listener counts what it sees in a [Ledger]: requests, connections,
// requests per connection, requests per protocol (HTTP/1.1 and HTTP/2
// alike), and bytes in and out as they cross a wrapping net.Conn; the fault listener also keeps one fault.Exchange row per
// request with how it ended. Tests compare gb's report with the ledger.
//
// Query parameters are parsed by package shape, the same way on every
// listener. Randomness is deterministic: weighted lists such as
// status=200:95,503:5&seed=7 draw from one generator per seed value, so the
// same seed and the same request order give the same sequence (since Start
// or the last [Server.ResetLedger]).
//
// Sizes are bytes, durations are time.Duration (a bare number in a query is
// milliseconds). All methods of Server are safe for concurrent use.
package testserver
