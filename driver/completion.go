package driver

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/pipeline-analyze/pipeline-analyze/causal"
	"github.com/pipeline-analyze/pipeline-analyze/fixtures"
	"github.com/pipeline-analyze/pipeline-analyze/internal/suggest"
	"github.com/pipeline-analyze/pipeline-analyze/scorecard"
	"github.com/spf13/pflag"
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

// completionFlags is every visible flag of a command, as the shell sees
// them: "--name" and "-x".
type completionFlag struct {
	long, short, usage string
	takesValue         bool
	values             []string
}

func completionFlags(c command) []completionFlag {
	if c.flags == nil {
		return nil
	}
	var out []completionFlag
	c.flags().VisitAll(func(f *pflag.Flag) {
		if f.Hidden {
			return
		}
		_, usage := pflag.UnquoteUsage(f)
		out = append(out, completionFlag{long: f.Name, short: f.Shorthand, usage: usage,
			takesValue: f.Value.Type() != "bool", values: flagValues(c.name, f.Name)})
	})
	sort.Slice(out, func(i, j int) bool { return out[i].long < out[j].long })
	return out
}

func runCompletion(args []string, env cmdEnv) int {
	if len(args) != 1 {
		return usageErrorFor(env.stderr, "completion", fmt.Errorf("want one shell: bash, zsh or fish"))
	}
	switch args[0] {
	case "bash":
		writeBashCompletion(env.stdout, false)
	case "zsh":
		writeBashCompletion(env.stdout, true)
	case "fish":
		writeFishCompletion(env.stdout)
	case "-h", "--help":
		writeHelp(env.stdout, commandByName("completion"))
	default:
		return usageErrorFor(env.stderr, "completion", fmt.Errorf("unknown shell %q: want bash, zsh or fish%s", args[0],
			suggest.DidYouMean(args[0], []string{"bash", "zsh", "fish"}, nil)))
	}
	return 0
}

// writeBashCompletion writes the bash script; for zsh it is loaded through
// bashcompinit, which zsh ships for exactly this.
func writeBashCompletion(w io.Writer, zsh bool) {
	if zsh {
		fmt.Fprint(w, "#compdef pipeline-analyze\n# pipeline-analyze completion for zsh (through bashcompinit)\nautoload -U +X bashcompinit && bashcompinit\n")
	} else {
		fmt.Fprint(w, "# pipeline-analyze completion for bash: source it, or put it in /etc/bash_completion.d/\n")
	}
	cmds := commands()
	fmt.Fprint(w, `_pipeline_analyze() {
    local cur prev cmd w i opts
    cur="${COMP_WORDS[COMP_CWORD]}"
    prev="${COMP_WORDS[COMP_CWORD-1]}"
    cmd=""
    for ((i = 1; i < COMP_CWORD; i++)); do
        w="${COMP_WORDS[i]}"
        case "$w" in
            `+strings.Join(commandNames(), "|")+`) cmd="$w"; break ;;
        esac
    done
    case "$cmd:$prev" in
`)
	for _, c := range cmds {
		for _, f := range completionFlags(c) {
			if len(f.values) == 0 {
				continue
			}
			pat := c.name + ":--" + f.long
			if f.short != "" {
				pat += "|" + c.name + ":-" + f.short
			}
			fmt.Fprintf(w, "        %s) COMPREPLY=($(compgen -W %q -- \"$cur\")); return ;;\n", pat, strings.Join(f.values, " "))
		}
	}
	fmt.Fprint(w, "        completion:*) COMPREPLY=($(compgen -W \"bash zsh fish\" -- \"$cur\")); return ;;\n")
	fmt.Fprint(w, "        help:*) COMPREPLY=($(compgen -W \""+strings.Join(commandNames(), " ")+"\" -- \"$cur\")); return ;;\n")
	fmt.Fprint(w, "    esac\n    if [[ \"$cur\" == -* ]]; then\n        case \"$cmd\" in\n")
	for _, c := range cmds {
		var names []string
		for _, f := range completionFlags(c) {
			names = append(names, "--"+f.long)
			if f.short != "" {
				names = append(names, "-"+f.short)
			}
		}
		pat := c.name
		if pat == "" {
			pat = `""`
		}
		fmt.Fprintf(w, "            %s) opts=%q ;;\n", pat, strings.Join(names, " "))
	}
	fmt.Fprint(w, `        esac
        COMPREPLY=($(compgen -W "$opts" -- "$cur"))
        return
    fi
    if [[ -z "$cmd" && $COMP_CWORD -eq 1 ]]; then
        COMPREPLY=($(compgen -W "`+strings.Join(commandNames(), " ")+`" -- "$cur"))
    fi
    COMPREPLY+=($(compgen -f -- "$cur"))
}
complete -o filenames -F _pipeline_analyze pipeline-analyze
`)
}

// writeFishCompletion writes the fish script: one complete line per
// command and flag.
func writeFishCompletion(w io.Writer) {
	fmt.Fprintln(w, "# pipeline-analyze completion for fish: put it in ~/.config/fish/completions/")
	names := strings.Join(commandNames(), " ")
	for _, c := range commands() {
		if c.name != "" {
			fmt.Fprintf(w, "complete -c pipeline-analyze -n 'not __fish_seen_subcommand_from %s' -a %s -d %s\n", names, c.name, fishQuote(c.summary))
		}
	}
	for _, c := range commands() {
		cond := "'__fish_seen_subcommand_from " + c.name + "'"
		if c.name == "" {
			cond = "'not __fish_seen_subcommand_from " + names + "'"
		}
		for _, f := range completionFlags(c) {
			line := fmt.Sprintf("complete -c pipeline-analyze -n %s -l %s", cond, f.long)
			if f.short != "" {
				line += " -s " + f.short
			}
			if f.takesValue {
				line += " -r"
			}
			if len(f.values) > 0 {
				line += " -f -a " + fishQuote(strings.Join(f.values, " "))
			}
			fmt.Fprintln(w, line+" -d "+fishQuote(truncateRunes(f.usage, 70)))
		}
	}
	fmt.Fprintln(w, "complete -c pipeline-analyze -n '__fish_seen_subcommand_from completion' -f -a 'bash zsh fish'")
	fmt.Fprintln(w, "complete -c pipeline-analyze -n '__fish_seen_subcommand_from help' -f -a "+fishQuote(names))
}

// fishQuote single-quotes s for fish.
func fishQuote(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}

// truncateRunes cuts s to n runes, ending in "…".
func truncateRunes(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
