//go:build !race

package h3

// raceEnabled: the test binary runs without the race detector.
const raceEnabled = false
