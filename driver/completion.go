package driver

import (
	"fmt"

	"github.com/pipeline-analyze/pipeline-analyze/causal"
	"github.com/pipeline-analyze/pipeline-analyze/fixtures"
	"github.com/pipeline-analyze/pipeline-analyze/internal/clihelp"
	"github.com/pipeline-analyze/pipeline-analyze/internal/suggest"
	"github.com/pipeline-analyze/pipeline-analyze/scorecard"
)

const completionUsage = `pipeline-analyze completion prints a shell completion script: commands,
each command's flags, the values of -o, --method, --fail-on and --fault, and
file names for the rest.

Usage:
  pipeline-analyze completion bash|zsh|fish

Examples:
  pipeline-analyze completion bash > /etc/bash_completion.d/pipeline-analyze
  pipeline-analyze completion zsh > "${fpath[1]}/_pipeline-analyze"
  pipeline-analyze completion fish > ~/.config/fish/completions/pipeline-analyze.fish
`

// flagValues are the values completed after a flag, per command ("" the
// analysis).
func flagValues(cmd, flag string) []string {
	switch flag {
	case "output-format":
		return scorecard.Formats()
	case "method":
		return causal.Methods()
	case "methods":
		return causal.Methods()
	case "fault":
		var out []string
		for _, f := range fixtures.Faults() {
			out = append(out, f.Name)
		}
		return append(out, "none")
	case "fail-on":
		if cmd == "compare" {
			return []string{"regressed", "unchanged", "never"}
		}
		return []string{"critical", "warning", "never"}
	}
	return nil
}

// completionCommands are the commands as the completion scripts see them.
func completionCommands() []clihelp.Command {
	var out []clihelp.Command
	for _, c := range commands() {
		out = append(out, clihelp.Command{Name: c.name, Summary: c.summary, Flags: c.flags})
	}
	return out
}

func runCompletion(args []string, env cmdEnv) int {
	if len(args) != 1 {
		return usageErrorFor(env.stderr, "completion", fmt.Errorf("want one shell: bash, zsh or fish"))
	}
	switch args[0] {
	case "bash":
		clihelp.WriteBash(env.stdout, completionCommands(), flagValues, false)
	case "zsh":
		clihelp.WriteBash(env.stdout, completionCommands(), flagValues, true)
	case "fish":
		clihelp.WriteFish(env.stdout, completionCommands(), flagValues)
	case "-h", "--help":
		writeHelp(env.stdout, commandByName("completion"))
	default:
		return usageErrorFor(env.stderr, "completion", fmt.Errorf("unknown shell %q: want bash, zsh or fish%s", args[0],
			suggest.DidYouMean(args[0], []string{"bash", "zsh", "fish"}, nil)))
	}
	return 0
}
