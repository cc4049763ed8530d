//go:build !race

package h2

// raceEnabled: the test binary runs without the race detector.
const raceEnabled = false
