//go:build !race

package driver

// raceEnabled: this test binary is built with -race.
const raceEnabled = false
