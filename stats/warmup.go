package stats

import "time"

// Warmup is what a run's warm-up did (gb --warmup): the load ran for
// Duration before measuring began, and its requests are counted here
// alone, never in the run's Counts or Latency, so every request sent is
// accounted for once. Counts.Dispatched equals the sum of its outcomes.
type Warmup struct {
	Duration time.Duration `json:"duration_ns"`
	Counts   Counts        `json:"counts"`
}
