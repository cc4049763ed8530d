// Package stats is the data model of a run that a user reads: the
// immutable Result (what was asked, who answered, what happened to every
// request, how long the responses took), its latency distributions (Dist:
// exact moments beside an HdrHistogram), the outcome taxonomy, the time
// series, per-target and per-check accounts, the server profile's summary
// and the client's own cost. It reads and writes Result's JSON (versioned:
// FormatVersion) and combines the results of several processes of one load
// (Merge).
//
// The recording side, which fills a Result from the load's workers without
// a lock or an allocation per request, is internal to gb
// (internal/record).
//
// All latencies are integer microseconds (the unit of ab's report and of the
// histograms); byte counts are bytes.
package stats
