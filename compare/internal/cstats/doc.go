// Package cstats holds the statistics both of compare's modes use, below
// them both: before/after mode (package compare) and canary mode (package
// compare/canary) import it, and it imports neither. It is the rule of "a
// ratio that should stay near 1" (NearOne, NearOneValues): a success or
// availability ratio, whose shortfall from 1 is what a relative change is
// measured on.
package cstats
