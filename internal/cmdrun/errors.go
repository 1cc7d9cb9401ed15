package cmdrun

import (
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/pipeline-analyze/pipeline-analyze/analysis"
	"github.com/pipeline-analyze/pipeline-analyze/internal/cliio"
	"github.com/pipeline-analyze/pipeline-analyze/live"
)

// Error is a command's failure as the command line reports it: the lines
// it writes on stderr (a line may hold a newline of the error it quotes,
// as "pipeline-analyze compare: %v" does) and its exit status. A Code of 0
// with no lines is a run that ended with nothing to report (--list-queries).
type Error struct {
	Code  int
	Lines []string
}

// Error joins the lines.
func (e *Error) Error() string { return strings.Join(e.Lines, "\n") }

// Prog is the program's name on every stderr line.
const Prog = "pipeline-analyze"

// Usage is a usage error of the command cmd ("" for the analysis): one
// line ending in the help hint, exit status 2. A leading analysis.ErrUsage
// is dropped from the message.
func Usage(cmd string, err error) *Error {
	prog := Prog
	if cmd != "" {
		prog += " " + cmd
	}
	msg := strings.TrimPrefix(err.Error(), analysis.ErrUsage.Error()+": ")
	return &Error{Code: 2, Lines: []string{fmt.Sprintf("%s: %s (see %s --help)", prog, cliio.OneLine(msg), prog)}}
}

// Usagef is Usage of a formatted message.
func Usagef(cmd, format string, a ...any) *Error { return Usage(cmd, fmt.Errorf(format, a...)) }

// Failed is a runtime error of the analysis in one line
// ("pipeline-analyze: <prefix><err>", cliio.SayErr), exit status 1.
func Failed(prefix string, err error) *Error {
	return &Error{Code: 1, Lines: []string{Prog + ": " + prefix + cliio.OneLine(err.Error())}}
}

// compareFailed is a runtime error of compare as it says them
// ("pipeline-analyze compare: %v", the error's line breaks kept), exit
// status 1.
func compareFailed(err error) *Error {
	return &Error{Code: 1, Lines: []string{Prog + " compare: " + err.Error()}}
}

// sourceError is the failure of a source's Open: a usage error (exit 2)
// for analysis.ErrUsage; when no source delivered anything, each source's
// cause on a line of its own (one line for all would be cut at
// cliio.MaxErrLine), then "nothing fetched"; else the error in one line.
func sourceError(err error) *Error {
	if errors.Is(err, analysis.ErrUsage) {
		return Usage("", err)
	}
	var nf *live.NothingFetchedError
	if errors.As(err, &nf) {
		e := &Error{Code: 1}
		for _, f := range nf.Failures {
			e.Lines = append(e.Lines, Prog+": live: "+cliio.OneLine(f))
		}
		e.Lines = append(e.Lines, Prog+": live: nothing fetched")
		return e
	}
	return Failed("", err)
}

// Exit writes err's lines to stderr and returns its exit status; an error
// that is no *Error is a runtime error (Failed). nil is 0.
func Exit(stderr io.Writer, err error) int {
	if err == nil {
		return 0
	}
	var e *Error
	if !errors.As(err, &e) {
		e = Failed("", err)
	}
	for _, l := range e.Lines {
		fmt.Fprintf(stderr, "%s\n", l)
	}
	return e.Code
}

// helpHintRE is the "(see pipeline-analyze ... --help)" a usage error ends with.
var helpHintRE = regexp.MustCompile(` \(see pipeline-analyze[a-z -]* --help\)$`)

// ToolText is what a tool of the MCP server says of a command's failure:
// its stderr lines as the command's stderr writes them (each redacted by
// red, escaped and cut to cliio.MaxErrLine characters, as
// cliio.SafeWriter does), then the program prefixes and help hints
// dropped and the lines joined by "; ".
func ToolText(err error, red *cliio.Redactor) string {
	var e *Error
	if !errors.As(err, &e) {
		e = Failed("", err)
	}
	var segs []string
	for _, l := range e.Lines {
		for _, seg := range strings.Split(l, "\n") {
			segs = append(segs, cliio.EscapeText(red.Replace(seg), cliio.MaxErrLine))
		}
	}
	return oneLine(segs)
}

// PlainText is ToolText of an error's own text (not written as a
// command's stderr lines: neither redacted, escaped nor cut here).
func PlainText(err error) string { return oneLine(strings.Split(err.Error(), "\n")) }

// oneLine drops each line's program prefix and help hint and joins the
// lines that are left by "; ".
func oneLine(lines []string) string {
	var parts []string
	for _, l := range lines {
		l = strings.TrimSpace(l)
		for _, p := range []string{Prog + " compare: ", Prog + ": "} {
			l = strings.TrimPrefix(l, p)
		}
		if l = helpHintRE.ReplaceAllString(l, ""); l != "" {
			parts = append(parts, l)
		}
	}
	if len(parts) == 0 {
		return "the run failed without saying why"
	}
	return strings.Join(parts, "; ")
}
