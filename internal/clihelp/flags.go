package clihelp

import (
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/pipeline-analyze/pipeline-analyze/internal/cliio"
	"github.com/pipeline-analyze/pipeline-analyze/internal/suggest"
	"github.com/spf13/pflag"
)

// Width is the width every help text fits in.
const Width = 100

// Flag groups of the help texts, in the order they are printed. A flag's
// group is its "group" annotation (SetGroup); flags without one are
// printed under "other".
const (
	GroupAnalysis = "analysis"          // what the analysis does
	GroupInputs   = "inputs and limits" // what is read, and its bounds
	GroupLive     = "live sources"      // the servers a live fetch asks
	GroupOutput   = "output"            // what is written, and where
	GroupOther    = "other"             // a flag without a group
)

var groupOrder = []string{GroupAnalysis, GroupInputs, GroupLive, GroupOutput, GroupOther}

// SetGroup files the named flags of fs under group in the help text.
func SetGroup(fs *pflag.FlagSet, group string, names ...string) {
	for _, n := range names {
		if fs.Lookup(n) == nil {
			panic("SetGroup: no flag --" + n) // a programmer error: the list names a flag that is not defined
		}
		_ = fs.SetAnnotation(n, "group", []string{group})
	}
}

// flagGroup is the flag's help group.
func flagGroup(f *pflag.Flag) string {
	if g := f.Annotations["group"]; len(g) > 0 {
		return g[0]
	}
	return GroupOther
}

// PrintFlags writes fs's visible flags grouped (groupOrder), each as
// "  -o, --output-format FORMAT  what it does (default text)" with the
// description wrapped to width under itself. Bool flags show no value
// placeholder, and zero defaults are not shown.
func PrintFlags(w io.Writer, fs *pflag.FlagSet, width int) {
	byGroup := map[string][]*pflag.Flag{}
	fs.VisitAll(func(f *pflag.Flag) {
		if !f.Hidden {
			byGroup[flagGroup(f)] = append(byGroup[flagGroup(f)], f)
		}
	})
	const col = 30 // where descriptions start
	for _, g := range groupOrder {
		flags := byGroup[g]
		if len(flags) == 0 {
			continue
		}
		fmt.Fprintf(w, "\n%s%s flags:\n", strings.ToUpper(g[:1]), g[1:])
		for _, f := range flags {
			name, usage := flagNameAndUsage(f)
			if d := flagDefault(f); d != "" {
				usage += " (default " + d + ")"
			}
			lines := WrapWords(usage, width-col)
			if len(name) > col-2 {
				fmt.Fprintln(w, name)
				for _, l := range lines {
					fmt.Fprintf(w, "%s%s\n", strings.Repeat(" ", col), l)
				}
				continue
			}
			for i, l := range lines {
				lead := strings.Repeat(" ", col)
				if i == 0 {
					lead = name + strings.Repeat(" ", col-len(name))
				}
				fmt.Fprintf(w, "%s%s\n", lead, l)
			}
		}
	}
}

// flagNameAndUsage is "  -o, --output-format FORMAT" and the usage text
// without its backquotes.
func flagNameAndUsage(f *pflag.Flag) (string, string) {
	varname, usage := pflag.UnquoteUsage(f)
	switch varname {
	case "bool", "boolean":
		varname = ""
	case "duration":
		varname = "DURATION"
	case "int", "int64", "uint64":
		varname = "N"
	case "float", "float64":
		varname = "X"
	case "string", "stringArray", "strings":
		varname = "VALUE"
	}
	name := "      --" + f.Name
	if f.Shorthand != "" {
		name = "  -" + f.Shorthand + ", --" + f.Name
	}
	if varname != "" {
		name += " " + varname
	}
	return name, usage
}

// flagDefault is the default worth showing ("" for a zero value), with byte
// counts also in binary units.
func flagDefault(f *pflag.Flag) string {
	switch f.DefValue {
	case "", "0", "0s", "false", "[]":
		return ""
	}
	if f.Value.Type() == "string" {
		return f.DefValue
	}
	if strings.Contains(f.Usage, "bytes") {
		var n int64
		if _, err := fmt.Sscan(f.DefValue, &n); err == nil && n >= 1<<20 {
			return fmt.Sprintf("%s = %s", f.DefValue, cliio.BinaryBytes(n))
		}
	}
	return f.DefValue
}

// WrapWords splits text at spaces into lines of at most width runes (a
// word longer than a line stays whole).
func WrapWords(text string, width int) []string {
	var lines []string
	cur := ""
	for _, w := range strings.Fields(text) {
		if cur != "" && len([]rune(cur))+1+len([]rune(w)) > width {
			lines = append(lines, cur)
			cur = ""
		}
		if cur != "" {
			cur += " "
		}
		cur += w
	}
	if cur != "" || len(lines) == 0 {
		lines = append(lines, cur)
	}
	return lines
}

var unknownFlagRE = regexp.MustCompile(`^unknown flag: --([^ =]+)|^unknown shorthand flag: '(.)'`)

// FlagSuggestion is "; did you mean --method?" for fs's parse error err
// when it names an unknown flag, else "".
func FlagSuggestion(fs *pflag.FlagSet, err error) string {
	m := unknownFlagRE.FindStringSubmatch(err.Error())
	if m == nil {
		return ""
	}
	typed := m[1]
	if typed == "" {
		typed = m[2]
	}
	var names []string
	fs.VisitAll(func(f *pflag.Flag) {
		if !f.Hidden {
			names = append(names, f.Name)
		}
	})
	return suggest.DidYouMean(typed, names, func(s string) string { return "--" + s })
}
