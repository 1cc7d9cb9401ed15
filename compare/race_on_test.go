//go:build race

package compare

// raceEnabled is true under the race detector, which makes reading the
// development data ~10× slower: the acceptance tests then run a fixed
// subset unless PA_COMPARE_FULL is set.
const raceEnabled = true
