// Package gb runs HTTP benchmarks: the engine behind the gb command, for
// Go programs and tests.
//
// A Config says what to load and how hard; Run drives it and returns a
// Result, the complete record of the run (the same value `gb --json`
// writes). A Plan is a Config checked and prepared once, for callers that
// want to show the request before the load, size GOMAXPROCS, or run
// several loads on one target (gb ramp's steps).
//
//	res, err := gb.Run(ctx, gb.Config{URL: "http://127.0.0.1:8080/", Concurrency: 50, Requests: 100000, KeepAlive: true})
//	if err != nil { ... }
//	fmt.Println(res.RPS(), res.Percentile(stats.Total, 99))
//
// Latency is recorded per phase in HdrHistograms (microseconds, 3
// significant digits) beside exact sums; in rate mode (Config.Rate) it is
// also measured from each request's intended send time, so coordinated
// omission is corrected. Every request ends in exactly one stats.Outcome.
package gb

import (
	"github.com/gb-bench/gb/stats"
)

// Version is gb's version, sent in User-Agent and recorded in every Result.
const Version = "0.1.0"

// Result is the record of one run: what was asked (Target), who answered
// (Server), what happened to every request (Counts), how long the
// responses took (Latency, per phase), what gb itself spent (Client) and,
// when asked, the server's profile. It is the Go form of the JSON result
// (docs/json.md); renderers, gb report, compare and merge all
// read it. It is filled in one place, Plan.Run, and not changed after.
type Result = stats.Result

// Merge returns one Result of several runs of the same load, such as the
// shards of one test run by several processes: counts are sums, latency
// histograms are HdrHistogram sums (lossless: every run uses the same
// geometry) and exact moments combine without loss. Runs of different
// targets or settings (other than their share of concurrency, requests
// and rate) are refused with an error naming the difference, as are one
// result given twice, one shard twice, and some but not all shards of a
// split load (a *MissingShardsError naming the missing indexes).
func Merge(results ...*Result) (*Result, error) { return stats.Merge(results...) }

// MergePartial is Merge that also merges some of the shards of a split
// load; the result's Partial names the shards it holds.
func MergePartial(results ...*Result) (*Result, error) { return stats.MergePartial(results...) }

// MissingShardsError is Merge's error for some, not all, of the shards of
// a split load.
type MissingShardsError = stats.MissingShardsError
