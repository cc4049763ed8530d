// Package stats records what happened to every request of a run and turns
// it into an immutable Result.
//
// Each load worker owns one Recorder: outcome counters, byte counters,
// status-code counts and exact latency sums, written by that worker only.
// Latency samples are batched per worker and flushed into a shared Shard of
// HdrHistograms (one mutex acquisition per batch, never per request), so a
// run with ten thousand connections does not hold ten thousand dense
// histograms. After the workers stop, Merge folds recorders and shards into
// a Result exactly once.
//
// All latencies are integer microseconds (the unit of ab's report and of the
// histograms); byte counts are bytes.
package stats
