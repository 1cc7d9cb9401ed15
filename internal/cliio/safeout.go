package cliio

import (
	"bytes"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/pipeline-analyze/pipeline-analyze/live"
)

// MaxErrLine is the longest line (in characters) written to stderr; longer
// ones (a 10,000-character server error) are cut with "…".
const MaxErrLine = 300

// Redactor replaces every configured secret, and its base64 and URL-escaped
// forms, by "[REDACTED]". The zero value redacts nothing. Safe for
// concurrent use.
type Redactor struct {
	mu    sync.RWMutex
	forms []string // longest first
}

// Add registers secrets (a bearer token, a password, a header value) and
// user:password pairs given as pairs[i][0], pairs[i][1].
func (r *Redactor) Add(secrets ...string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	seen := map[string]bool{}
	for _, f := range r.forms {
		seen[f] = true
	}
	for _, s := range secrets {
		for _, f := range live.SecretForms(s) { // none for a secret shorter than live.MinSecret
			if !seen[f] {
				seen[f] = true
				r.forms = append(r.forms, f)
			}
		}
	}
	sort.SliceStable(r.forms, func(i, j int) bool { return len(r.forms[i]) > len(r.forms[j]) })
}

// AddBasic registers a basic-auth password and the user:password pair (the
// form the Authorization header carries, base64-encoded).
func (r *Redactor) AddBasic(user, pass string) {
	if pass == "" {
		return
	}
	r.Add(pass, user+":"+pass)
}

// Secrets returns the raw forms registered (for the live client, which
// redacts server text at the source too).
func (r *Redactor) Secrets() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return append([]string(nil), r.forms...)
}

// Replace redacts s.
func (r *Redactor) Replace(s string) string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	for _, f := range r.forms {
		if strings.Contains(s, f) {
			s = strings.ReplaceAll(s, f, "[REDACTED]")
		}
	}
	return s
}

// EscapeText shows every control character of s (ESC, CR, LF, DEL, C1
// controls), bidirectional overrides and invalid UTF-8 as Go-style escapes
// (\x1b, \r, \n, \u202e), so that text from files and servers can never
// move the cursor, rewrite a line or forge one. max > 0 cuts the result to
// at most max characters, ending in "…".
func EscapeText(s string, max int) string {
	clean := true
	for _, r := range s {
		if needsEscape(r) {
			clean = false
			break
		}
	}
	if clean && (max <= 0 || utf8.RuneCountInString(s) <= max) {
		return s
	}
	var sb strings.Builder
	n := 0
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		var tok string
		switch {
		case r == utf8.RuneError && size == 1:
			tok = fmt.Sprintf(`\x%02x`, s[i])
		case r == '\n':
			tok = `\n`
		case r == '\r':
			tok = `\r`
		case r == '\t':
			tok = `\t`
		case needsEscape(r) && r < 0x100:
			tok = fmt.Sprintf(`\x%02x`, r)
		case needsEscape(r):
			tok = fmt.Sprintf(`\u%04x`, r)
		default:
			tok = s[i : i+size]
		}
		tn := utf8.RuneCountInString(tok)
		if max > 0 && n+tn > max-1 && i+size < len(s) {
			sb.WriteString("…")
			return sb.String()
		}
		sb.WriteString(tok)
		n += tn
		i += size
	}
	return sb.String()
}

func needsEscape(r rune) bool {
	return unicode.IsControl(r) || r == utf8.RuneError || (r >= '\u202A' && r <= '\u202E') || (r >= '\u2066' && r <= '\u2069') ||
		r == '\u200E' || r == '\u200F'
}

// SafeWriter is stderr as the command writes it: line by line, each line
// redacted, escaped and cut to maxLine characters (0 = not cut). Partial
// lines wait for their newline (or Flush). Safe for concurrent use.
type SafeWriter struct {
	mu      sync.Mutex
	w       io.Writer
	red     *Redactor
	maxLine int
	buf     []byte
}

// NewSafeWriter returns a SafeWriter onto w that redacts with red and cuts
// lines to maxLine characters (0: not cut; the command's stderr uses
// MaxErrLine, --explain's 0).
func NewSafeWriter(w io.Writer, red *Redactor, maxLine int) *SafeWriter {
	return &SafeWriter{w: w, red: red, maxLine: maxLine}
}

// Write implements io.Writer.
func (s *SafeWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.buf = append(s.buf, p...)
	for {
		i := bytes.IndexByte(s.buf, '\n')
		if i < 0 {
			break
		}
		if err := s.emit(s.buf[:i]); err != nil {
			return len(p), err
		}
		s.buf = s.buf[i+1:]
	}
	if len(s.buf) > 64<<10 { // an endless line: show what fits
		err := s.emit(s.buf)
		s.buf = s.buf[:0]
		return len(p), err
	}
	return len(p), nil
}

// Flush writes a pending partial line.
func (s *SafeWriter) Flush() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.buf) == 0 {
		return nil
	}
	err := s.emit(s.buf)
	s.buf = nil
	return err
}

func (s *SafeWriter) emit(line []byte) error {
	text := s.red.Replace(string(line))
	_, err := io.WriteString(s.w, EscapeText(text, s.maxLine)+"\n")
	return err
}

// lineBreaks are escaped inside one message, so that it stays one line
// (the SafeWriter splits its input at newlines).
var lineBreaks = strings.NewReplacer("\r\n", `\r\n`, "\n", `\n`, "\r", `\r`)

// OneLine escapes the line breaks of a message.
func OneLine(s string) string { return lineBreaks.Replace(s) }

// SayErr writes "pipeline-analyze: <what><err>" as one line.
func SayErr(w io.Writer, what string, err error) {
	fmt.Fprintf(w, "pipeline-analyze: %s%s\n", what, OneLine(err.Error()))
}
