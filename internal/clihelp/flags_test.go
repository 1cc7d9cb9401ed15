package clihelp

import (
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

// TestPrintFlags: flags are printed by group, with placeholders, wrapped
// descriptions and non-zero defaults (byte counts also in binary units);
// an unknown flag gets the nearest name.
func TestPrintFlags(t *testing.T) {
	fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
	fs.StringP("output-format", "o", "text", "the report's `FORMAT`")
	fs.Int64("max-file-size", 512<<20, "the largest input file in bytes")
	fs.Bool("quiet", false, "no progress on stderr")
	SetGroup(fs, GroupOutput, "output-format", "quiet")
	var sb strings.Builder
	PrintFlags(&sb, fs, 60)
	want := "\nOutput flags:\n" +
		"  -o, --output-format FORMAT  the report's FORMAT (default\n" +
		"                              text)\n" +
		"      --quiet                 no progress on stderr\n" +
		"\nOther flags:\n" +
		"      --max-file-size N       the largest input file in\n" +
		"                              bytes (default 536870912 = 512\n" +
		"                              MiB)\n"
	if sb.String() != want {
		t.Errorf("PrintFlags:\n%s\nwant:\n%s", sb.String(), want)
	}
	if got := WrapWords("a bb ccc dddd", 6); strings.Join(got, "|") != "a bb|ccc|dddd" {
		t.Errorf("WrapWords = %q", got)
	}
	err := fs.Parse([]string{"--quiett"})
	if got := FlagSuggestion(fs, err); !strings.Contains(got, "--quiet") {
		t.Errorf("FlagSuggestion(%v) = %q", err, got)
	}
}
