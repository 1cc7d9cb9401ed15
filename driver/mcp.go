package driver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/scorecard"
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
	setGroup(fs, groupInputs, "root")
	registerLimitFlags(fs, &o.lim)
	o.lf.register(fs)
	_ = fs.MarkHidden("save-bundle") // the tools write no files
	return fs, o
}

// runMCP is the mcp command: it checks the roots and serves the tools on
// the command's stdin and stdout until the client closes the connection.
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
	case len(o.roots) == 0 && !o.lf.active():
		return usage(errors.New("want --root DIR (the incidents the tools may read), or live source flags"))
	}
	if o.lf.ListQueries {
		return o.lf.list(env.stdout, env.stderr, 0)
	}
	s := &mcpServer{live: o.lf.active(), lim: o.lim, lf: o.lf, red: env.red, stderr: env.stderr}
	for _, k := range [][2]string{{"jaeger", o.lf.JaegerURL}, {"prometheus", o.lf.PromURL}, {"loki", o.lf.LokiURL}, {"victorialogs", o.lf.VlogsURL}} {
		if k[1] != "" {
			s.liveKinds = append(s.liveKinds, k[0])
		}
	}
	for _, r := range o.roots {
		real, err := realDir(r)
		if err != nil {
			return usage(fmt.Errorf("--root %s: %w", r, err))
		}
		s.roots = append(s.roots, real)
	}
	// The server's own flags (limits, live sources), in the CLI's own
	// syntax, for the rerun line of the cards the tools return.
	fs.Visit(func(f *pflag.Flag) {
		if f.Name == "root" {
			return
		}
		if sv, ok := f.Value.(pflag.SliceValue); ok {
			for _, v := range sv.GetSlice() {
				s.flagArgs = append(s.flagArgs, "--"+f.Name+"="+v)
			}
			return
		}
		s.flagArgs = append(s.flagArgs, "--"+f.Name+"="+f.Value.String())
	})
	srv := mcp.NewServer(&mcp.Implementation{Name: "pipeline-analyze", Version: version}, &mcp.ServerOptions{
		Instructions: mcpInstructions,
	})
	s.addTools(srv)
	t := &mcp.IOTransport{Reader: io.NopCloser(env.stdin), Writer: nopWriteCloser{env.stdout}}
	if err := srv.Run(context.Background(), t); err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, context.Canceled) {
		sayErr(env.stderr, "mcp: ", err)
		return 1
	}
	return 0
}

// mcpInstructions tell the assistant how to use the tools.
const mcpInstructions = `Root-cause analysis of incidents in LLM-serving and microservice systems.
Start with list_inputs (no paths: what the roots hold), then analyze on an incident's directory;
explain_cause gives a cause of the last analysis in depth (evidence, path, counterfactual, trace IDs);
compare tells whether a fix worked (BEFORE AFTER) or judges a canary. detail=summary keeps results
small; ask for detail=full only when needed.`

// nopWriteCloser is stdout for the transport: closing the connection does
// not close the command's stdout.
type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// mcpServer is the state of one MCP server: what its flags fixed, and the
// last analysis (for explain_cause). Tool calls run one at a time.
type mcpServer struct {
	roots     []string // real absolute directories
	flagArgs  []string // the server's limit and live flags, for the rerun lines
	live      bool     // live sources configured
	lf        liveFlags
	liveKinds []string // their kinds: jaeger, prometheus, loki, victorialogs
	lim       ingest.Limits
	red       *redactor
	stderr    io.Writer

	mu   sync.Mutex // one tool call at a time: runs are large, and last is shared
	last *scorecard.Card
}

// realDir is dir's real absolute path (symlinks resolved); it must be a
// directory.
func realDir(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", err
	}
	st, err := os.Stat(real)
	if err != nil {
		return "", err
	}
	if !st.IsDir() {
		return "", errors.New("not a directory")
	}
	return real, nil
}

// within reports whether the real path p is a root or under one.
func (s *mcpServer) within(p string) bool {
	for _, r := range s.roots {
		if rel, err := filepath.Rel(r, p); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

// resolve turns a tool's path argument into the real path it names under a
// root: a relative path is tried under each root in turn, an absolute one
// must lie inside one. ".." is refused outright, and the path, once its
// symlinks are resolved, must still be under a root; so must every file a
// directory holds (a symlink inside it is read as the file it points to).
func (s *mcpServer) resolve(p string) (string, error) {
	switch {
	case p == "":
		return "", errors.New("an empty path")
	case strings.ContainsRune(p, 0):
		return "", fmt.Errorf("path %q: contains a NUL byte", p)
	case len(s.roots) == 0:
		return "", fmt.Errorf("path %q: the server has no --root: it reads only its live sources", p)
	}
	for _, part := range strings.Split(filepath.ToSlash(p), "/") {
		if part == ".." {
			return "", fmt.Errorf("path %q: \"..\" is refused: name a path under a root", p)
		}
	}
	cands := []string{filepath.Clean(p)}
	if !filepath.IsAbs(p) {
		cands = cands[:0]
		for _, r := range s.roots {
			cands = append(cands, filepath.Join(r, p))
		}
	}
	for _, c := range cands {
		real, err := filepath.EvalSymlinks(c)
		switch {
		case errors.Is(err, os.ErrNotExist):
			continue
		case err != nil:
			return "", fmt.Errorf("path %q: %w", p, unwrapPathError(err))
		case !s.within(real):
			return "", fmt.Errorf("path %q: outside the roots (it resolves to a path no --root holds): refused", p)
		}
		if err := s.checkTree(p, real); err != nil {
			return "", err
		}
		return real, nil
	}
	if filepath.IsAbs(p) {
		if real, err := filepath.EvalSymlinks(filepath.Dir(p)); err == nil && !s.within(real) {
			return "", fmt.Errorf("path %q: outside the roots: refused", p)
		}
	}
	return "", fmt.Errorf("path %q: no such file or directory under the roots", p)
}

// checkTree refuses a directory that holds a symlink out of the roots.
func (s *mcpServer) checkTree(p, real string) error {
	st, err := os.Stat(real)
	if err != nil || !st.IsDir() {
		return nil // a file: resolve checked it; a stat error: the reader reports it
	}
	files, _ := ingest.ExpandPaths([]string{real})
	for _, f := range files {
		fr, err := filepath.EvalSymlinks(f)
		if err == nil && !s.within(fr) {
			rel, _ := filepath.Rel(real, f)
			return fmt.Errorf("path %q: %s is a symlink out of the roots: refused", p, filepath.Join(p, rel))
		}
	}
	return nil
}

// resolveAll resolves every path argument (see resolve).
func (s *mcpServer) resolveAll(paths []string) ([]string, error) {
	var out []string
	for _, p := range paths {
		r, err := s.resolve(p)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// unwrapPathError drops the *os.PathError's repetition of the path.
func unwrapPathError(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// checkNoURLs refuses an argument that holds a URL: endpoints (and their
// credentials) come only from the server's own flags.
func checkNoURLs(in any) error {
	v := reflect.ValueOf(in)
	if v.Kind() != reflect.Struct {
		return nil
	}
	for i := range v.NumField() {
		name, _, _ := strings.Cut(v.Type().Field(i).Tag.Get("json"), ",")
		var vals []string
		switch f := v.Field(i); f.Kind() {
		case reflect.String:
			vals = []string{f.String()}
		case reflect.Slice:
			if f.Type().Elem().Kind() == reflect.String {
				for j := range f.Len() {
					vals = append(vals, f.Index(j).String())
				}
			}
		}
		for _, s := range vals {
			if strings.Contains(s, "://") {
				return fmt.Errorf("argument %s: a URL is refused: live endpoints come only from the server's flags", name)
			}
		}
	}
	return nil
}

// helpHintRE is the "(see pipeline-analyze ... --help)" a usage error ends with.
var helpHintRE = regexp.MustCompile(` \(see pipeline-analyze[a-z -]* --help\)$`)

// runError turns what a run wrote on stderr (its error lines) into one line
// for a tool error: program prefixes and help hints dropped, lines joined.
func runError(stderr string) error {
	var parts []string
	for _, l := range strings.Split(stderr, "\n") {
		l = strings.TrimSpace(l)
		for _, p := range []string{"pipeline-analyze compare: ", "pipeline-analyze: "} {
			l = strings.TrimPrefix(l, p)
		}
		if l = helpHintRE.ReplaceAllString(l, ""); l != "" {
			parts = append(parts, l)
		}
	}
	if len(parts) == 0 {
		return errors.New("the run failed without saying why")
	}
	return errors.New(strings.Join(parts, "; "))
}
