//go:build !race

package record

// raceEnabled: the test binary runs without the race detector.
const raceEnabled = false
