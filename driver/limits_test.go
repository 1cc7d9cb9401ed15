package driver

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/spf13/pflag"
)

// hostileTrace writes a Jaeger file whose service, operation and tag strings
// carry HTML, Markdown-link, backtick and pipe payloads; "back" slows down
// and fails in the last quarter so the report names it.
func hostileTrace(t *testing.T, dir string) string {
	t.Helper()
	var sb strings.Builder
	sb.WriteString(`{"data":[{"traceID":"1","processes":{"p1":{"serviceName":"front<script>alert(1)</script>","tags":[{"key":"hostname","type":"string","value":"h|1` + "`x`" + `"}]},"p2":{"serviceName":"back](javascript:alert(1))"}},"spans":[`)
	const t0 = 1700000000000000
	for i := 0; i < 200; i++ {
		slow, bad := 0, false
		if i > 150 {
			slow, bad = 50000, true
		}
		if i > 0 {
			sb.WriteByte(',')
		}
		fmt.Fprintf(&sb, `{"traceID":"%x","spanID":"1","operationName":"GET /a|b `+"`c`"+` <img src=x onerror=alert(1)>","startTime":%d,"duration":%d,"processID":"p1","tags":[{"key":"span.kind","type":"string","value":"server"}]},`, i+1, t0+i*3000000, 1000+slow)
		fmt.Fprintf(&sb, `{"traceID":"%x","spanID":"2","operationName":"call](javascript:x)","startTime":%d,"duration":%d,"processID":"p2","references":[{"refType":"CHILD_OF","traceID":"%x","spanID":"1"}],"tags":[{"key":"error","type":"bool","value":%v}]}`, i+1, t0+i*3000000+10, 500+slow, i+1, bad)
	}
	sb.WriteString(`]}]}`)
	p := filepath.Join(dir, "hostile.json")
	if err := os.WriteFile(p, []byte(sb.String()), 0o444); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestHostileInputEscaped runs the command on the hostile trace with -o html
// and -o markdown (--export, written atomically) and checks that no payload
// survives unescaped, that the input file is unchanged, and that no temporary
// file is left beside the export.
func TestHostileInputEscaped(t *testing.T) {
	dir := t.TempDir()
	in := hostileTrace(t, dir)
	before, _ := os.ReadFile(in)
	out := t.TempDir()
	for _, format := range []string{"html", "markdown"} {
		t.Run(format, func(t *testing.T) {
			dst := filepath.Join(out, "report."+format)
			var so, se bytes.Buffer
			if code := Run([]string{"-q", "-o", format, "--export", dst, in}, nil, &so, &se); code != 0 {
				t.Fatalf("exit %d: %s", code, se.String())
			}
			got, err := os.ReadFile(dst)
			if err != nil {
				t.Fatal(err)
			}
			s := string(got)
			if !strings.Contains(s, "alert(1)") {
				t.Fatalf("the hostile names are not in the report at all")
			}
			if format == "markdown" {
				// Text inside fenced code blocks is literal, not markup.
				s = regexp.MustCompile("(?s)\n```text\n.*?\n```").ReplaceAllString(s, "")
			}
			for _, bad := range []string{"<script>alert", "<img src=x", "onerror=alert(1)>"} {
				if strings.Contains(s, bad) {
					t.Errorf("%s output contains unescaped %q", format, bad)
				}
			}
			if format == "markdown" {
				if regexp.MustCompile(`[^\\]\]\(javascript:`).MatchString(s) {
					t.Errorf("markdown contains a live javascript: link")
				}
				if strings.Contains(s, "a|b") {
					t.Errorf("markdown contains an unescaped pipe from a span name")
				}
			} else if !strings.Contains(s, "Content-Security-Policy") {
				t.Errorf("html has no Content-Security-Policy")
			}
		})
	}
	after, _ := os.ReadFile(in)
	if sha256.Sum256(before) != sha256.Sum256(after) {
		t.Error("input file modified")
	}
	ents, _ := os.ReadDir(out)
	if len(ents) != 2 {
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		t.Errorf("export dir holds %v, want just the two reports", names)
	}
}

// TestMalformedAndLimitFlags: a malformed lone input exits 1 with a one-line
// positioned error; the limit flags reach the readers.
func TestMalformedAndLimitFlags(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte("{\"traceID\":\"1\",\n\"spans\":[{\"spanID\":\"1\" \"x\":1}]}"), 0o644)
	var so, se bytes.Buffer
	if code := Run([]string{"-q", bad}, nil, &so, &se); code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	if msg := strings.TrimSpace(se.String()); !strings.Contains(msg, "bad.json:2:") || strings.Count(msg, "\n") != 0 {
		t.Errorf("stderr = %q, want one line with bad.json:2:col", msg)
	}
	// The flags fill ingest.Limits (a run with --max-spans 300 on the hostile
	// trace currently panics in tcg.detect: reported to the lead).
	var lim ingest.Limits
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	registerLimitFlags(fs, &lim)
	if err := fs.Parse([]string{"--max-spans", "10", "--max-depth", "8"}); err != nil {
		t.Fatal(err)
	}
	if d := ingest.DefaultLimits(); lim.MaxSpans != 10 || lim.MaxDepth != 8 || lim.MaxSeries != d.MaxSeries || lim.MaxFileBytes != d.MaxFileBytes {
		t.Errorf("limits = %+v", lim)
	}
	in := hostileTrace(t, dir)
	se.Reset()
	if code := Run([]string{"-q", "--max-file-size", "100", in}, nil, &so, &se); code != 1 || !strings.Contains(se.String(), "maximum file size") {
		t.Errorf("--max-file-size 100: exit %d, stderr %q", code, se.String())
	}
}
