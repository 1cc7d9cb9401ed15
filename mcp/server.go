// Package mcp serves the analysis to AI assistants over the Model Context
// Protocol (the go-sdk): the tools analyze, explain_cause, compare and
// list_inputs, their arguments and results typed Go values whose JSON
// schemas the SDK derives. A tool resolves its paths under the server's
// roots and asks the Runner — CommandRunner: the commands' own runs
// (internal/cmdrun) with the server's flags, which the command (driver)
// fills — for an *analysis.Run, a comparison's report or a bundle, and
// builds its result from those typed values: never argv for a flag parser,
// never output the process rendered and read back.
package mcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/pipeline-analyze/pipeline-analyze/analysis"
	"github.com/pipeline-analyze/pipeline-analyze/compare/model"
	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/profdiff"
	"github.com/pipeline-analyze/pipeline-analyze/scorecard"
)

// Runner runs what the tools ask for, as the CLI runs it: CommandRunner
// implements it with the commands' runs (internal/cmdrun), the server's
// limits and live sources. paths are real paths under the roots (none: the live sources).
// An error is the tool's error, in one line.
type Runner interface {
	// Analyze runs the analysis with the call's options.
	Analyze(ctx context.Context, paths []string, in AnalyzeInput) (*analysis.Run, error)
	// Compare runs a before/after or (in.Canary) canary comparison.
	Compare(ctx context.Context, paths []string, in CompareInput) (*model.Report, error)
	// Profile runs a profiler A/B of the two captures BASE CAND.
	Profile(ctx context.Context, paths []string) (*profdiff.Report, error)
	// Read reads the inputs as the analysis would.
	Read(paths []string) (*ingest.Bundle, error)
}

// Server is the state of one MCP server: what its flags fixed, and the
// last analysis (for explain_cause). Tool calls run one at a time.
type Server struct {
	Roots     []string // real absolute directories (RealDir)
	Live      bool     // live sources configured
	LiveKinds []string // their kinds: jaeger, prometheus, loki, victorialogs
	Runner    Runner
	Version   string                      // the server's version, as it introduces itself
	Redact    func(s string) string       // every result passes it (the live sources' secrets)
	Clean     func(message string) string // what a tool error says: redacted, escaped, bounded
	Stderr    io.Writer                   // why a tool call failed inside the server

	mu   sync.Mutex // one tool call at a time: runs are large, and last is shared
	last *scorecard.Card
}

// Instructions tell the assistant how to use the tools.
const Instructions = `Root-cause analysis of incidents in LLM-serving and microservice systems.
Start with list_inputs (no paths: what the roots hold), then analyze on an incident's directory;
explain_cause gives a cause of the last analysis in depth (evidence, path, counterfactual, trace IDs);
compare tells whether a fix worked (BEFORE AFTER) or judges a canary. detail=summary keeps results
small; ask for detail=full only when needed.`

// Serve serves the tools on in and out until the client closes the
// connection (nil) or the transport fails.
func (s *Server) Serve(ctx context.Context, in io.Reader, out io.Writer) error {
	srv := sdk.NewServer(&sdk.Implementation{Name: "pipeline-analyze", Version: s.Version}, &sdk.ServerOptions{
		Instructions: Instructions,
	})
	s.addTools(srv)
	t := &sdk.IOTransport{Reader: io.NopCloser(in), Writer: nopWriteCloser{out}}
	if err := srv.Run(ctx, t); err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, context.Canceled) {
		return err
	}
	return nil
}

// nopWriteCloser is stdout for the transport: closing the connection does
// not close the command's stdout.
type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// RealDir is dir's real absolute path (symlinks resolved); it must be a
// directory.
func RealDir(dir string) (string, error) {
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
func (s *Server) within(p string) bool {
	for _, r := range s.Roots {
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
func (s *Server) resolve(p string) (string, error) {
	switch {
	case p == "":
		return "", errors.New("an empty path")
	case strings.ContainsRune(p, 0):
		return "", fmt.Errorf("path %q: contains a NUL byte", p)
	case len(s.Roots) == 0:
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
		for _, r := range s.Roots {
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
func (s *Server) checkTree(p, real string) error {
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
func (s *Server) resolveAll(paths []string) ([]string, error) {
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
