package scorecard

import (
	"strings"
	"testing"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/tcg"
)

func TestOperationShares(t *testing.T) {
	t0 := ingest.Time(1_700_000_000e9)
	var b ingest.Bundle
	add := func(op string, at time.Duration, n int) {
		for range n {
			b.Spans = append(b.Spans, ingest.Span{Service: "ad", Operation: op, Start: t0.Add(at)})
		}
	}
	add("get", time.Minute, 60)
	add("random", time.Minute, 40)
	add("get", 11*time.Minute, 99)
	add("random", 11*time.Minute, 1)
	add("other-service-op", 11*time.Minute, 0)
	b.Spans = append(b.Spans, ingest.Span{Service: "cart", Operation: "x", Start: t0.Add(11 * time.Minute)})
	inc := tcg.Incident{BaselineStart: t0, WindowStart: t0.Add(10 * time.Minute), WindowEnd: t0.Add(15 * time.Minute)}
	ev, ok := operationShares(&b, "ad", inc, 1)
	if !ok {
		t.Fatal("no evidence")
	}
	want := "share of ad's spans by operation, baseline (100 spans) → window (100): get 60% → 99%"
	if ev.Text != want || ev.Kind != EvidenceSpans {
		t.Errorf("evidence = %q (%s), want %q", ev.Text, ev.Kind, want)
	}
	ev, _ = operationShares(&b, "ad", inc, 3)
	if !strings.HasSuffix(ev.Text, "get 60% → 99%; random 40% → 1.0%") {
		t.Errorf("evidence = %q: want both operations, largest change first (ties by name)", ev.Text)
	}
	if _, ok := operationShares(&b, "cart", inc, 3); ok {
		t.Error("evidence for a service with no baseline spans")
	}
}
