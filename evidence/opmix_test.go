package evidence

import (
	"reflect"
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
			b.Spans = append(b.Spans, ingest.Span{Service: ingest.Intern("ad"), Operation: ingest.Intern(op), Start: t0.Add(at)})
		}
	}
	add("get", time.Minute, 60)
	add("random", time.Minute, 40)
	add("get", 11*time.Minute, 99)
	add("random", 11*time.Minute, 1)
	add("other-service-op", 11*time.Minute, 0)
	b.Spans = append(b.Spans, ingest.Span{Service: ingest.Intern("cart"), Operation: ingest.Intern("x"), Start: t0.Add(11 * time.Minute)})
	inc := tcg.Incident{BaselineStart: t0, WindowStart: t0.Add(10 * time.Minute), WindowEnd: t0.Add(15 * time.Minute)}
	sh, ok := OperationShares(&b, "ad", inc, 1)
	if !ok {
		t.Fatal("no evidence")
	}
	want := Shares{Service: "ad", BaselineSpans: 100, WindowSpans: 100, Changes: []ShareChange{{"get", 0.6, 0.99}}}
	if !reflect.DeepEqual(sh, want) {
		t.Errorf("shares = %+v, want %+v", sh, want)
	}
	sh, _ = OperationShares(&b, "ad", inc, 3)
	if len(sh.Changes) != 2 || sh.Changes[1] != (ShareChange{"random", 0.4, 0.01}) {
		t.Errorf("shares = %+v: want both operations, largest change first (ties by name)", sh.Changes)
	}
	if _, ok := OperationShares(&b, "cart", inc, 3); ok {
		t.Error("evidence for a service with no baseline spans")
	}
}
