// Package compare compares saved gb runs the way benchstat compares Go
// benchmarks: each input is a file of one or more runs of one
// configuration (a stats.Result or stats.Runs as gb writes them), each
// metric of a run is one measurement, and golang.org/x/perf/benchmath
// summarises each input (the median with its confidence interval) and tests
// every later input against the first (the Mann-Whitney U test, α = 0.05).
//
// Compare builds a Table (one Row per metric) that WriteText renders;
// ParseLimit and Table.Check are the regression gate of gb compare
// --max-regression; DiffProfiles subtracts the server profiles of two
// inputs per request. BenchFormat writes runs as Go benchmark lines
// (--bench-out) over the same Metrics, so benchstat and gb compare read
// the same rows. Nothing here prints on its own or exits.
package compare
