package loki

import (
	"fmt"
	"strings"
	"testing"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/ingest/internal/bundletest"
)

func TestLokiStreamBound(t *testing.T) {
	stream := func(n int) string {
		var vals []string
		for i := 0; i < n; i++ {
			vals = append(vals, fmt.Sprintf(`["17960083%02d000000000","INFO line %d"]`, i%100, i))
		}
		return `{"stream":{"service_name":"cart"},"values":[` + strings.Join(vals, ",") + `]}`
	}
	body := func(streams ...string) string {
		return `{"status":"success","data":{"resultType":"streams","result":[` + strings.Join(streams, ",") + `]}}`
	}
	lim := ingest.Limits{MaxDocumentBytes: 2000}
	// Many small streams: more than the bound in all, each within it.
	small := body(stream(10), stream(10), stream(10), stream(10), stream(10), stream(10), stream(10), stream(10))
	if len(small) <= 2000 {
		t.Fatalf("the small streams hold only %d bytes", len(small))
	}
	b, err := ingest.Decoder(ingest.FormatLokiStreams)("loki.json", strings.NewReader(small), lim)
	if err != nil || len(b.Logs) != 80 {
		t.Fatalf("small streams: %v, %v records", err, b)
	}
	// One stream over the bound: refused, naming the flag.
	_, err = ingest.Decoder(ingest.FormatLokiStreams)("loki.json", strings.NewReader(body(stream(200))), lim)
	if err == nil || !strings.Contains(err.Error(), "Loki stream larger than 2000 bytes (--max-document-size)") || !strings.Contains(err.Error(), "loki.json") {
		t.Errorf("err = %v, want the stream bound with the file", err)
	}
}
func TestLokiResultsWithoutStreams(t *testing.T) {
	// A Prometheus matrix under a Loki push body's key: "metric", not "stream".
	body := `{"streams":[{"metric":{"streams":"a","stream":"b"},"values":[["1796008320000000000","1"]]},{"metric":{"values":"c"},"values":[]}]}`
	for _, name := range []string{"loki.json", "loki-slow.json"} {
		p := bundletest.WriteTemp(t, t.TempDir(), name, body)
		var b *ingest.Bundle
		var err error
		if strings.Contains(name, "slow") {
			b, err = decodeLoki(p, strings.NewReader(body), ingest.Limits{})
		} else {
			b, err = ingest.ReadFile(p, nil, ingest.Limits{})
		}
		if err != nil {
			t.Fatal(err)
		}
		if !bundletest.HasWarning(b, ingest.ErrPartialInput, `2 results without "stream" labels`) {
			t.Errorf("%s: no warning: %v", name, b.Warnings)
		}
	}
}

// TestLokiBackward: a stream returned newest first (Loki's default
// direction) is read oldest first, so its stack trace folds into the line
// before it; forward gives the same records.
func TestLokiBackward(t *testing.T) {
	dir := t.TempDir()
	entries := [][2]string{{"1700000000000000000", "INFO ok"}, {"1700000000000000001", "ERROR boom"}, {"1700000000000000002", "\tat x.y(Z.java:1)"}}
	body := func(rev bool) string {
		var vals []string
		for i := range entries {
			e := entries[i]
			if rev {
				e = entries[len(entries)-1-i]
			}
			vals = append(vals, fmt.Sprintf("[%q,%q]", e[0], e[1]))
		}
		return `{"status":"success","data":{"resultType":"streams","result":[{"stream":{"app":"a"},"values":[` + strings.Join(vals, ",") + `]}]}}`
	}
	var got [2]string
	for k, rev := range []bool{true, false} {
		p := bundletest.WriteTemp(t, dir, fmt.Sprintf("l%d.json", k), body(rev))
		b, err := ingest.Read([]string{p}, nil, ingest.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if len(b.Logs) != 2 || b.Logs[1].Severity != ingest.SeverityError {
			t.Fatalf("backward=%v: %d records %+v, want INFO and a folded ERROR", rev, len(b.Logs), b.Logs)
		}
		got[k] = b.LogTemplates[b.Logs[1].Template].Example
	}
	if got[0] != "ERROR boom\n\tat x.y(Z.java:1)" || got[0] != got[1] {
		t.Errorf("examples %q (backward) and %q (forward): want the frame folded into the ERROR line", got[0], got[1])
	}
}
