package driver

import (
	"fmt"
	"io"
	"strings"
)

// writeCLIReference writes docs/cli.md: every command's help, exactly as
// --help prints it, under one heading per command. The page is generated
// from the same tables as --help (commands, their usage texts and flag
// sets), so the two cannot drift; TestCLIReference checks it is current
// (go test ./driver -run TestCLIReference -update rewrites it).
func writeCLIReference(w io.Writer) error {
	var sb strings.Builder
	sb.WriteString("# Command-line reference\n\n")
	sb.WriteString("<!-- Generated from the commands' help tables by `go test ./driver -run TestCLIReference -update`; do not edit. -->\n\n")
	sb.WriteString("Every command's `--help`, as the binary prints it. Flags are grouped as in the help: analysis,\n")
	sb.WriteString("inputs and limits, live sources, output.\n\n")
	for _, c := range commands() {
		name := strings.TrimSpace("pipeline-analyze " + c.name)
		fmt.Fprintf(&sb, "- [`%s`](#%s): %s\n", name, anchor(name), c.summary)
	}
	for _, c := range commands() {
		name := strings.TrimSpace("pipeline-analyze " + c.name)
		fmt.Fprintf(&sb, "\n## %s\n\n", name)
		var help strings.Builder
		writeHelp(&help, &c)
		sb.WriteString("```text\n")
		sb.WriteString(strings.TrimRight(help.String(), "\n"))
		sb.WriteString("\n```\n")
	}
	_, err := io.WriteString(w, sb.String())
	return err
}

// anchor is the GitHub heading anchor of a heading's text.
func anchor(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
			b.WriteRune(r)
		}
	}
	return b.String()
}
