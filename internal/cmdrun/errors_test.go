package cmdrun

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/pipeline-analyze/pipeline-analyze/analysis"
	"github.com/pipeline-analyze/pipeline-analyze/internal/cliio"
	"github.com/pipeline-analyze/pipeline-analyze/live"
)

// TestToolText checks that a tool error is the line the MCP server made
// of a command's stderr when it ran the commands through their stderr:
// the error's lines (Exit) through the command's safe stderr (redacted,
// escaped, cut to cliio.MaxErrLine), program prefixes and help hints
// dropped, lines joined by "; ".
func TestToolText(t *testing.T) {
	red := &cliio.Redactor{}
	red.Add("hunter2-secret")
	long := strings.Repeat("x", 400)
	for name, err := range map[string]error{
		"usage":             Usage("", errors.New(`--target "x": no such service`)),
		"usage of compare":  Usagef("compare", "--fail-on %q: want regressed, unchanged or never", "x"),
		"usage, ErrUsage":   Usage("", fmt.Errorf("%w: --window: want a positive duration", analysis.ErrUsage)),
		"usage cut":         Usage("", errors.New("a long one "+long)), // cut before its help hint
		"failed, two lines": Failed("", errors.New("read a.json: bad\nsecond line with hunter2-secret")),
		"escapes":           Failed("render: ", errors.New("\x1b[31mred\x1b[0m\r")),
		"compare":           compareFailed(errors.New("BEFORE: a.json: bad\nand a second line " + long)),
		"nothing said":      &Error{Code: 1},
		"not an *Error":     errors.New("plain " + long),
		"nothing fetched":   sourceError(&live.NothingFetchedError{Failures: []string{"prometheus: 401 hunter2-secret", "jaeger: refused"}}),
		"source usage":      sourceError(fmt.Errorf("%w: --log-selector \"x\": want a stream selector", analysis.ErrUsage)),
	} {
		var stderr strings.Builder
		se := cliio.NewSafeWriter(&stderr, red, cliio.MaxErrLine)
		Exit(se, err)
		se.Flush()
		if got, want := ToolText(err, red), stderrLine(stderr.String()); got != want {
			t.Errorf("%s: ToolText =\n%q, the command's stderr made\n%q", name, got, want)
		}
	}
	if got, want := PlainText(errors.New("pipeline-analyze: bad --x (see pipeline-analyze --help)\nmore")), "bad --x; more"; got != want {
		t.Errorf("PlainText = %q, want %q", got, want)
	}
}

// runErrorHint is the help hint the MCP server dropped from a run's
// stderr before package cmdrun.
var runErrorHint = regexp.MustCompile(` \(see pipeline-analyze[a-z -]* --help\)$`)

// stderrLine is how the MCP server read a run's stderr before package
// cmdrun (driver's runError): program prefixes and help hints dropped,
// lines joined.
func stderrLine(stderr string) string {
	var parts []string
	for _, l := range strings.Split(stderr, "\n") {
		l = strings.TrimSpace(l)
		for _, p := range []string{"pipeline-analyze compare: ", "pipeline-analyze: "} {
			l = strings.TrimPrefix(l, p)
		}
		if l = runErrorHint.ReplaceAllString(l, ""); l != "" {
			parts = append(parts, l)
		}
	}
	if len(parts) == 0 {
		return "the run failed without saying why"
	}
	return strings.Join(parts, "; ")
}
