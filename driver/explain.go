package driver

import (
	"fmt"
	"strconv"
)

const explainUsage = `pipeline-analyze explain N runs the analysis as pipeline-analyze does, with
the same flags and inputs, and prints row N of the card's ranked components in
detail: each of its causes' evidence, propagation path, counterfactual and next
steps, and its heatmap.

Usage:
  pipeline-analyze explain N [flags] PATH...

Examples:
  pipeline-analyze explain 1 incident/
  pipeline-analyze explain 2 --at 2026-11-30T02:12:00Z incident/
  pipeline-analyze explain 1 -o markdown --export row1.md incident/

Exit status: as pipeline-analyze's; 2 also when the card has no row N.
`

// runExplain is the explain command: the row number, then the analysis's
// flags and inputs.
func runExplain(args []string, env cmdEnv) int {
	if len(args) > 0 && (args[0] == "-h" || args[0] == "--help") {
		writeHelp(env.stdout, commandByName("explain"))
		return 0
	}
	if len(args) == 0 {
		return usageErrorFor(env.stderr, "explain", fmt.Errorf("want the row number first: pipeline-analyze explain N PATH... (N as the card's first screen numbers its rows)"))
	}
	n, err := strconv.Atoi(args[0])
	if err != nil || n < 1 {
		return usageErrorFor(env.stderr, "explain", fmt.Errorf("%q: want a row number (1, 2, ...) first: pipeline-analyze explain N PATH...", args[0]))
	}
	return runAnalyzeRow(args[1:], env, n)
}
