package driver

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/pipeline-analyze/pipeline-analyze/internal/clihelp"
	"github.com/pipeline-analyze/pipeline-analyze/internal/cliio"
	"github.com/spf13/pflag"
)

// parseFlags parses args for the command cmd ("" for the analysis). On
// --help it prints help to stdout and returns (0, false); on a parse error
// it prints one line with a suggestion to stderr and returns (2, false).
func parseFlags(fs *pflag.FlagSet, args []string, cmd string, help func(io.Writer), stdout, stderr io.Writer) (int, bool) {
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	err := fs.Parse(args)
	switch {
	case err == nil:
		return 0, true
	case errors.Is(err, pflag.ErrHelp):
		help(stdout)
		return 0, false
	}
	msg := err.Error() + clihelp.FlagSuggestion(fs, err)
	return usageErrorFor(stderr, cmd, errors.New(msg)), false
}

// usageErrorFor writes one line "pipeline-analyze[ cmd]: msg (see
// pipeline-analyze[ cmd] --help)" and returns 2.
func usageErrorFor(stderr io.Writer, cmd string, err error) int {
	prog := "pipeline-analyze"
	if cmd != "" {
		prog += " " + cmd
	}
	msg := strings.TrimPrefix(err.Error(), errUsage.Error()+": ")
	fmt.Fprintf(stderr, "%s: %s (see %s --help)\n", prog, cliio.OneLine(msg), prog)
	return 2
}

// usageError writes a usage error of the analysis command in one line and
// returns 2.
func usageError(stderr io.Writer, err error) int { return usageErrorFor(stderr, "", err) }
