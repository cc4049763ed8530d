// Package profile captures a Go server's pprof profiles while gb loads it,
// and summarises them.
//
// [Start] runs beside the load engine, never inside it: its own
// http.Client and connections, its own goroutines. The CPU profile covers
// the load with back-to-back windows of the target's
// /debug/pprof/profile?seconds=N (a Go process has one CPU profiler, so
// windows cannot overlap; the gap between two is one profile encoding and
// one round trip), merged with [profile.Merge]. The heap, allocs, block
// and mutex profiles are deltas between a snapshot taken just before the
// load and one just after, as `go tool pprof -base` computes them; the
// goroutine profile is one snapshot during the load; the runtime trace
// covers a bounded window from the load's start. /debug/vars (expvar)
// gives the exact allocation and GC counters of the same window.
//
// Everything the target sends is untrusted: bodies are size-capped,
// gzip is decompressed with a cap, redirects to other hosts are refused,
// profiles are parsed in process (never symbolised, no source fetched),
// and files are saved with names gb chooses, mode 0600.
//
// [Top] computes the flat and cumulative values of `go tool pprof -top`.
package profile
