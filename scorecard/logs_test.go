package scorecard

import (
	"strings"
	"testing"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
)

func TestLogEvidence(t *testing.T) {
	l := ingest.LogTemplateEvidence{Pattern: "Get Route <*> Failed", Example: "ERROR Get Route 42 Failed \x1b[31mred", Severity: ingest.SeverityError,
		BaselinePerMin: 0.2, WindowPerMin: 17.5, New: false, FirstInWindow: 5,
		Traces: []ingest.LogTraceLink{{TraceID: ingest.TraceID{Low: 0xabc}}}}
	ev := logEvidence(l)
	if ev.Kind != EvidenceLog || ev.Baseline != 0.2 || ev.Incident != 17.5 || ev.Unit != "1/min" || ev.At != 5 {
		t.Fatalf("evidence %+v", ev)
	}
	for _, want := range []string{"error log template", `"Get Route <*> Failed"`, "changed rate", "0.20 → 17.50 per minute", `\x1b[31m`} {
		if !strings.Contains(ev.Text, want) {
			t.Errorf("text %q lacks %q", ev.Text, want)
		}
	}
	if strings.ContainsRune(ev.Text, 0x1b) {
		t.Errorf("raw escape in %q", ev.Text)
	}
	if len(ev.TraceIDs) != 1 || ev.TraceIDs[0] != "0000000000000abc" {
		t.Errorf("trace IDs %v", ev.TraceIDs)
	}
	l.New, l.Missing = true, false
	if !strings.Contains(logEvidence(l).Text, "new in the window") {
		t.Error("a new template is not called new")
	}
	l.New, l.Missing = false, true
	if !strings.Contains(logEvidence(l).Text, "stopped in the window") {
		t.Error("a vanished template is not called stopped")
	}
}
