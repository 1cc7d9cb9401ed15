package compare

import (
	"encoding/json"
	"math"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/features"
	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/internal/llmgen"
	"github.com/pipeline-analyze/pipeline-analyze/scorecard/reporttest"
)

// TestShapeChange: BEFORE's long prompts slowed ×3 (llmgen), AFTER is the
// fixed service: the request-shape section shows the long prompts' cells
// faster by about a third (each interval holds 1/3), the short ones
// without a clear change, in every format; the JSON validates.
func TestShapeChange(t *testing.T) {
	dir := t.TempDir()
	bc := llmgen.Config{Scenario: llmgen.Prefill, Rate: 6, Seed: 3}
	ac := llmgen.Config{Scenario: llmgen.None, Rate: 6, Seed: 4, Start: time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)}
	read := func(name string, c llmgen.Config) *ingest.Bundle {
		p := filepath.Join(dir, name)
		if err := llmgen.WriteCase(p, c, false, true); err != nil {
			t.Fatal(err)
		}
		b, err := features.Read([]string{p}, nil, ingest.Options{}, features.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	before, after := read("before", bc), read("after", ac)
	ws := ingest.FromTime(bc.WindowStart())
	aw := ingest.FromTime(ac.WindowStart())
	o := DefaultOptions()
	o.Target.Service = "gateway"
	rep, err := Run(Side{Bundle: before, Start: ws, End: ws.Add(5 * time.Minute)}, Side{Bundle: after, Start: aw, End: aw.Add(5 * time.Minute)}, o)
	if err != nil {
		t.Fatal(err)
	}
	s := rep.RequestShape
	if s == nil {
		t.Fatal("no request_shape")
	}
	if s.Compared != "AFTER ÷ BEFORE" || !strings.Contains(s.Reading, "cells faster") {
		t.Errorf("compared %q, reading %q", s.Compared, s.Reading)
	}
	for _, c := range s.InputMargin {
		ch := c.TTFT
		switch {
		case c.InputLo >= 4096:
			if !(ch.Lo < 1.0/3 && 1.0/3 < ch.Hi) || !ch.Sped(0.25) {
				t.Errorf("%s prompts: TTFT %+v, want faster with an interval holding ×1/3", c.Input, ch)
			}
		case c.InputHi > 0 && c.InputHi <= 4096:
			if ch.Sped(0.25) || ch.Slowed(0.25) || math.Abs(ch.Ratio-1) > 0.3 {
				t.Errorf("%s prompts: TTFT %+v, want no clear change", c.Input, ch)
			}
		}
	}
	for _, f := range Formats() {
		var sb strings.Builder
		if err := Render(&sb, rep, f, RenderOptions{Width: 100}); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(sb.String(), "Request shape") && f != "json" || f == "json" && !strings.Contains(sb.String(), `"request_shape"`) {
			t.Errorf("%s lacks the section", f)
		}
		if f == "json" {
			var doc any
			if err := json.Unmarshal([]byte(sb.String()), &doc); err != nil {
				t.Fatal(err)
			}
			for _, e := range reporttest.Validate(reporttest.LoadSchema(t, schemaPath), doc) {
				t.Error(e)
			}
		}
	}
}
