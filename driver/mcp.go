package driver

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/internal/clihelp"
	"github.com/pipeline-analyze/pipeline-analyze/internal/cliio"
	"github.com/pipeline-analyze/pipeline-analyze/internal/cmdrun"
	"github.com/pipeline-analyze/pipeline-analyze/mcp"
	"github.com/spf13/pflag"
)

const mcpUsage = `pipeline-analyze mcp serves the analysis to an AI assistant (Claude Code,
Cursor, Copilot agents, ...) over the Model Context Protocol on stdin and
stdout: the tools analyze, explain_cause, compare and list_inputs, each with
a JSON schema. Tool paths name files and directories under a --root (relative
to a root, or absolute inside one; symlinks are resolved and ".." is refused);
with live source flags, analyze without paths fetches from them. The tools
write no files, take no URLs, and every input limit below applies. Progress
is off; stderr only says why a tool call failed inside the server.

Usage:
  pipeline-analyze mcp --root DIR [--root DIR]... [flags]
  pipeline-analyze mcp [--root DIR]... --prometheus-url URL [live flags]

Examples:
  pipeline-analyze mcp --root incident
  pipeline-analyze mcp --root incident --root fixed --max-file-size 268435456
  pipeline-analyze mcp --prometheus-url http://prometheus:9090 --jaeger-url http://jaeger:16686
(In an assistant: claude mcp add pipeline-analyze -- pipeline-analyze mcp --root /srv/incidents;
see docs/mcp.md.)

Exit status: 0 when the client closes the connection; 1 runtime error; 2 usage error.
`

// mcpOpts are the mcp command's flags: the roots, the input limits and the
// live sources, all fixed for the server's life (tools cannot change them).
type mcpOpts struct {
	roots []string
	lim   ingest.Limits
	lf    liveFlags
}

// newMCPFlags defines the mcp command's flags.
func newMCPFlags() (*pflag.FlagSet, *mcpOpts) {
	fs := pflag.NewFlagSet("mcp", pflag.ContinueOnError)
	fs.SortFlags = false
	o := &mcpOpts{}
	fs.StringArrayVar(&o.roots, "root", nil, "serve the files and directories under `DIR` to the tools (repeatable)")
	clihelp.SetGroup(fs, clihelp.GroupInputs, "root")
	registerLimitFlags(fs, &o.lim)
	registerLiveFlags(fs, &o.lf)
	_ = fs.MarkHidden("save-bundle") // the tools write no files
	return fs, o
}

// runMCP is the mcp command: it checks the roots and serves the tools
// (package mcp) on the command's stdin and stdout until the client closes
// the connection; the tools run through an mcp.CommandRunner (the
// commands' runs of package cmdrun, with the server's flags).
func runMCP(args []string, env cmdEnv) int {
	fs, o := newMCPFlags()
	if code, ok := parseFlags(fs, args, "mcp", func(w io.Writer) { writeHelp(w, commandByName("mcp")) }, env.stdout, env.stderr); !ok {
		return code
	}
	usage := func(err error) int { return usageErrorFor(env.stderr, "mcp", err) }
	switch {
	case fs.NArg() > 0:
		return usage(fmt.Errorf("takes no arguments, got %q (name directories with --root)", fs.Args()))
	case o.lf.SaveBundle != "":
		return usage(errors.New("--save-bundle: the MCP server writes no files"))
	case len(o.roots) == 0 && !o.lf.Active():
		return usage(errors.New("want --root DIR (the incidents the tools may read), or live source flags"))
	}
	if o.lf.ListQueries {
		return cmdrun.Exit(env.stderr, o.lf.List(env.stdout, 0))
	}
	r := &mcp.CommandRunner{Limits: o.lim, Live: o.lf, Red: env.red, Version: version}
	s := mcp.NewServer(r, version, env.stderr)
	for _, root := range o.roots {
		real, err := mcp.RealDir(root)
		if err != nil {
			return usage(fmt.Errorf("--root %s: %w", root, err))
		}
		s.Roots = append(s.Roots, real)
	}
	// The server's own flags (limits, live sources), in the CLI's own
	// syntax, for the rerun line of the cards the tools return.
	fs.Visit(func(f *pflag.Flag) {
		if f.Name == "root" {
			return
		}
		if sv, ok := f.Value.(pflag.SliceValue); ok {
			for _, v := range sv.GetSlice() {
				r.FlagArgs = append(r.FlagArgs, "--"+f.Name+"="+v)
			}
			return
		}
		r.FlagArgs = append(r.FlagArgs, "--"+f.Name+"="+f.Value.String())
	})
	if err := s.Serve(context.Background(), env.stdin, env.stdout); err != nil {
		cliio.SayErr(env.stderr, "mcp: ", err)
		return 1
	}
	return 0
}
