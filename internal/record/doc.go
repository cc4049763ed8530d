// Package record fills a stats.Result from a load's workers: it is the
// hot path's recording side of the public data model in package stats.
//
// Each load worker owns one Recorder: outcome counters, byte counters,
// status-code counts and exact latency sums, written by that worker only.
// Latency samples are batched per worker and flushed into a shared Group of
// HdrHistograms (one mutex acquisition per batch, never per request), so a
// run with ten thousand connections does not hold ten thousand dense
// histograms. The groups of one run (NewGroups) share a timeline that
// keeps the run's time series. After the workers stop, Collect folds
// recorders and groups into a Result exactly once. Watchers read the
// recorders' atomics (AddLive) and the timeline's closed intervals
// (ClosedLatency, CopyClosed), never a histogram being written.
//
// Per request a Recorder takes no lock, sends on no channel, writes no map,
// arms no timer and allocates nothing (tests with testing.AllocsPerRun).
package record
