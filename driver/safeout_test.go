package driver

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOutputIsInputRefused: --export or --dot naming an input (directly,
// through a symlink or a hard link, or inside an input directory) is a
// usage error and the input is untouched.
func TestOutputIsInputRefused(t *testing.T) {
	dir := copyCase(t)
	in := filepath.Join(dir, "alert.json")
	before, err := os.ReadFile(in)
	if err != nil {
		t.Skipf("case has no alert.json: %v", err)
	}
	link := filepath.Join(t.TempDir(), "link.json")
	os.Symlink(in, link)
	hard := filepath.Join(t.TempDir(), "hard.json")
	if err := os.Link(in, hard); err != nil {
		hard = in
	}
	for _, args := range [][]string{
		{"--export", in, in, dir},
		{"--export", link, dir},
		{"--export", hard, dir},
		{"--dot", filepath.Join(dir, "..", filepath.Base(dir), ".", "alert.json"), dir},
	} {
		var so, se bytes.Buffer
		if code := Run(append([]string{"-q"}, args...), nil, &so, &se); code != 2 || !strings.Contains(se.String(), "refusing to overwrite an input") {
			t.Errorf("%q: exit %d, stderr %q", args, code, se.String())
		}
	}
	if after, _ := os.ReadFile(in); !bytes.Equal(before, after) {
		t.Error("the input was modified")
	}
}
