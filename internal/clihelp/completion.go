package clihelp

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/spf13/pflag"
)

// Command is what a completion script knows of one command: its name (""
// for the analysis, which comes first), its one-line summary and its flags
// (a fresh set each call; nil: none).
type Command struct {
	Name    string
	Summary string
	Flags   func() *pflag.FlagSet
}

// FlagValues are the values completed after the flag --flag of the command
// cmd ("" the analysis); a flag without values (nil) completes file names.
type FlagValues func(cmd, flag string) []string

// commandNames are the subcommands' names (every command but the
// analysis), in order.
func commandNames(cmds []Command) []string {
	var out []string
	for _, c := range cmds {
		if c.Name != "" {
			out = append(out, c.Name)
		}
	}
	return out
}

// completionFlag is one visible flag of a command, as the shell sees it:
// "--name" and "-x", whether it takes a value, and the values completed
// after it.
type completionFlag struct {
	long, short, usage string
	takesValue         bool
	values             []string
}

// completionFlags is every visible flag of c, sorted by name.
func completionFlags(c Command, values FlagValues) []completionFlag {
	if c.Flags == nil {
		return nil
	}
	var out []completionFlag
	c.Flags().VisitAll(func(f *pflag.Flag) {
		if f.Hidden {
			return
		}
		_, usage := pflag.UnquoteUsage(f)
		out = append(out, completionFlag{long: f.Name, short: f.Shorthand, usage: usage,
			takesValue: f.Value.Type() != "bool", values: values(c.Name, f.Name)})
	})
	sort.Slice(out, func(i, j int) bool { return out[i].long < out[j].long })
	return out
}

// WriteBash writes the bash completion script of cmds; for zsh (zsh
// true) it is loaded through bashcompinit, which zsh ships for exactly
// this.
func WriteBash(w io.Writer, cmds []Command, values FlagValues, zsh bool) {
	if zsh {
		fmt.Fprint(w, "#compdef pipeline-analyze\n# pipeline-analyze completion for zsh (through bashcompinit)\nautoload -U +X bashcompinit && bashcompinit\n")
	} else {
		fmt.Fprint(w, "# pipeline-analyze completion for bash: source it, or put it in /etc/bash_completion.d/\n")
	}
	fmt.Fprint(w, `_pipeline_analyze() {
    local cur prev cmd w i opts
    cur="${COMP_WORDS[COMP_CWORD]}"
    prev="${COMP_WORDS[COMP_CWORD-1]}"
    cmd=""
    for ((i = 1; i < COMP_CWORD; i++)); do
        w="${COMP_WORDS[i]}"
        case "$w" in
            `+strings.Join(commandNames(cmds), "|")+`) cmd="$w"; break ;;
        esac
    done
    case "$cmd:$prev" in
`)
	for _, c := range cmds {
		for _, f := range completionFlags(c, values) {
			if len(f.values) == 0 {
				continue
			}
			pat := c.Name + ":--" + f.long
			if f.short != "" {
				pat += "|" + c.Name + ":-" + f.short
			}
			fmt.Fprintf(w, "        %s) COMPREPLY=($(compgen -W %q -- \"$cur\")); return ;;\n", pat, strings.Join(f.values, " "))
		}
	}
	fmt.Fprint(w, "        completion:*) COMPREPLY=($(compgen -W \"bash zsh fish\" -- \"$cur\")); return ;;\n")
	fmt.Fprint(w, "        help:*) COMPREPLY=($(compgen -W \""+strings.Join(commandNames(cmds), " ")+"\" -- \"$cur\")); return ;;\n")
	fmt.Fprint(w, "    esac\n    if [[ \"$cur\" == -* ]]; then\n        case \"$cmd\" in\n")
	for _, c := range cmds {
		var names []string
		for _, f := range completionFlags(c, values) {
			names = append(names, "--"+f.long)
			if f.short != "" {
				names = append(names, "-"+f.short)
			}
		}
		pat := c.Name
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
        COMPREPLY=($(compgen -W "`+strings.Join(commandNames(cmds), " ")+`" -- "$cur"))
    fi
    COMPREPLY+=($(compgen -f -- "$cur"))
}
complete -o filenames -F _pipeline_analyze pipeline-analyze
`)
}

// WriteFish writes the fish completion script of cmds: one complete line
// per command and flag.
func WriteFish(w io.Writer, cmds []Command, values FlagValues) {
	fmt.Fprintln(w, "# pipeline-analyze completion for fish: put it in ~/.config/fish/completions/")
	names := strings.Join(commandNames(cmds), " ")
	for _, c := range cmds {
		if c.Name != "" {
			fmt.Fprintf(w, "complete -c pipeline-analyze -n 'not __fish_seen_subcommand_from %s' -a %s -d %s\n", names, c.Name, fishQuote(c.Summary))
		}
	}
	for _, c := range cmds {
		cond := "'__fish_seen_subcommand_from " + c.Name + "'"
		if c.Name == "" {
			cond = "'not __fish_seen_subcommand_from " + names + "'"
		}
		for _, f := range completionFlags(c, values) {
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
