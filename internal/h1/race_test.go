//go:build race

package h1

// raceEnabled: the test binary runs under the race detector, which makes
// sync.Pool drop items at random.
const raceEnabled = true
