package driver

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/pipeline-analyze/pipeline-analyze/internal/clihelp"
	"github.com/pipeline-analyze/pipeline-analyze/internal/suggest"
	"github.com/spf13/pflag"
)

// command is one subcommand: its name, one-line summary, help text (the
// part before the flags; a %s in the analysis's is the command list), its
// flags (a fresh set, for help and completion) and how it runs.
type command struct {
	name    string
	args    string // argument synopsis, e.g. "[flags] DIR..."
	summary string
	usage   string
	flags   func() *pflag.FlagSet // nil: none
	run     func(args []string, env cmdEnv) int
}

// commands lists the subcommands; the analysis (name "") comes first.
// It is a function, not a table variable, so that commands can refer to it.
func commands() []command {
	return []command{
		{name: "", args: "[flags] PATH...", summary: "analyse an incident", usage: analyzeUsage,
			flags: func() *pflag.FlagSet { fs, _ := newAnalyzeFlags(); return fs }, run: runAnalyze},
		{name: "explain", args: "N [flags] PATH...", summary: "one row of the card in detail", usage: explainUsage,
			flags: func() *pflag.FlagSet { fs, _ := newAnalyzeFlags(); return fs }, run: runExplain},
		{name: "eval", args: "[flags] DIR...", summary: "accuracy on labelled cases (label.json)", usage: evalUsage,
			flags: func() *pflag.FlagSet { fs, _ := newEvalFlags(); return fs },
			run:   func(a []string, e cmdEnv) int { return runEval(a, e.stdout, e.stderr) }},
		{name: "simulate", args: "[flags]", summary: "write simulated incidents with ground truth", usage: simulateUsage,
			flags: func() *pflag.FlagSet { fs, _ := newSimulateFlags(); return fs },
			run:   func(a []string, e cmdEnv) int { return runSimulate(a, e.stdout, e.stderr) }},
		{name: "compare", args: "[flags] BEFORE AFTER", summary: "did the fix work? verdicts before vs after", usage: compareUsage,
			flags: func() *pflag.FlagSet { fs, _ := newCompareFlags(); return fs },
			run:   func(a []string, e cmdEnv) int { return runCompare(a, e.stdin, e.stdout, e.stderr) }},
		{name: "mcp", args: "[flags]", summary: "serve the analysis to AI assistants (Model Context Protocol, stdio)", usage: mcpUsage,
			flags: func() *pflag.FlagSet { fs, _ := newMCPFlags(); return fs }, run: runMCP},
		{name: "record-gpu", args: "[flags]", summary: "record NVML samples of every GPU", usage: recordGPUUsage,
			flags: func() *pflag.FlagSet { fs, _ := newRecordGPUFlags(); return fs },
			run:   func(a []string, e cmdEnv) int { return runRecordGPU(a, e.stdout, e.stderr) }},
		{name: "version", args: "", summary: "print the version", usage: versionUsage, run: runVersion},
		{name: "help", args: "[COMMAND]", summary: "show the help of a command", usage: helpUsage, run: runHelp},
		{name: "completion", args: "bash|zsh|fish", summary: "print a shell completion script", usage: completionUsage, run: runCompletion},
	}
}

const versionUsage = `pipeline-analyze version prints the version (as pipeline-analyze --version does).

Usage:
  pipeline-analyze version

Examples:
  pipeline-analyze version
`

const helpUsage = `pipeline-analyze help shows the help of the analysis or of a command.

Usage:
  pipeline-analyze help [COMMAND]

Examples:
  pipeline-analyze help
  pipeline-analyze help eval
`

// commandByName returns the command named name ("" for the analysis), or nil.
func commandByName(name string) *command {
	for _, c := range commands() {
		if c.name == name {
			return &c
		}
	}
	return nil
}

// commandNames are the subcommands' names.
func commandNames() []string {
	var out []string
	for _, c := range commands() {
		if c.name != "" {
			out = append(out, c.name)
		}
	}
	return out
}

// dispatch runs the command args name, or the analysis. A first argument
// that is no command, no flag and no existing path but is close to a
// command's name is refused with a suggestion ("evals": did you mean eval?).
func dispatch(args []string, env cmdEnv) int {
	if len(args) > 0 {
		if c := commandByName(args[0]); c != nil && c.name != "" {
			return c.run(args[1:], env)
		}
		if a := args[0]; looksLikeCommand(a) {
			if hint := suggest.DidYouMean(a, commandNames(), nil); hint != "" {
				return usageError(env.stderr, fmt.Errorf("unknown command %s (and no file or directory of that name)%s", a, hint))
			}
		}
	}
	return runAnalyze(args, env)
}

// looksLikeCommand reports whether a first argument could be a mistyped
// command: a bare word that names no existing path.
func looksLikeCommand(a string) bool {
	if a == "" || a == "-" || strings.HasPrefix(a, "-") || strings.ContainsAny(a, `/\.`) {
		return false
	}
	_, err := os.Lstat(a)
	return err != nil
}

// writeHelp writes a command's help: its usage text, then its flags in
// groups.
func writeHelp(w io.Writer, c *command) {
	usage := c.usage
	if c.name == "" {
		var sb strings.Builder
		sb.WriteString("\nCommands:\n")
		for _, sc := range commands() {
			if sc.name != "" {
				fmt.Fprintf(&sb, "  %-12s %s\n", sc.name, sc.summary)
			}
		}
		usage = fmt.Sprintf(usage, sb.String())
	}
	io.WriteString(w, usage)
	if c.flags != nil {
		clihelp.PrintFlags(w, c.flags(), clihelp.Width)
	}
}

func runVersion(args []string, env cmdEnv) int {
	if len(args) > 0 {
		if args[0] == "-h" || args[0] == "--help" {
			writeHelp(env.stdout, commandByName("version"))
			return 0
		}
		return usageErrorFor(env.stderr, "version", fmt.Errorf("takes no arguments, got %q", args))
	}
	fmt.Fprintf(env.stdout, "pipeline-analyze %s\n", version)
	return 0
}

func runHelp(args []string, env cmdEnv) int {
	switch {
	case len(args) == 1 && (args[0] == "-h" || args[0] == "--help"):
		writeHelp(env.stdout, commandByName("help"))
		return 0
	case len(args) == 0:
		writeHelp(env.stdout, commandByName(""))
		return 0
	case len(args) > 1:
		return usageErrorFor(env.stderr, "help", fmt.Errorf("want at most one command, got %q", args))
	}
	c := commandByName(args[0])
	if c == nil || args[0] == "" {
		return usageErrorFor(env.stderr, "help", fmt.Errorf("unknown command %s%s commands: %s", args[0],
			suggest.OrPeriod(suggest.DidYouMean(args[0], commandNames(), nil)), strings.Join(commandNames(), ", ")))
	}
	writeHelp(env.stdout, c)
	return 0
}
