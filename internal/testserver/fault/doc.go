// Package fault is the raw-TCP fault listener of gb's test server: a
// minimal HTTP/1.1 request reader and endpoints that write exact response
// bytes and misbehave on purpose (reliability.md §4): stall, drip,
// truncate, lie about lengths, send garbage, close with FIN or abort with
// RST before, inside or right after a response. gb's reliability tests
// (the fault cases F01..F40) load it and compare gb's result with what it
// recorded.
//
// [Serve] runs it on any net.Listener. It keeps one [Exchange] row per
// request read, in arrival order, saying how the exchange ended ([End]);
// [Server.Exchanges] copies them out. Package testserver runs one beside
// its net/http listeners, sharing its connection ledger ([Counter]), its
// seeded generators and its server-wide stall ([Options]); `gb serve`
// prints its address and [Routes].
//
// Query parameters mean what they mean on the main listener (package
// shape): sizes in bytes, durations as Go durations or bare milliseconds,
// fortio-style weighted lists with seed=.
package fault
