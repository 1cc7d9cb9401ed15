package otlplogs

import (
	"fmt"
	"strings"
	"testing"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/ingest/internal/bundletest"
)

func TestOTLPLogsDocumentBound(t *testing.T) {
	rec := func(i int) string {
		return fmt.Sprintf(`{"resourceLogs":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"cart"}}]},"scopeLogs":[{"logRecords":[{"timeUnixNano":"17960083%02d000000000","body":{"stringValue":"%s"}}]}]}]}`, i, strings.Repeat("x", 100*i))
	}
	dir := t.TempDir()
	// A small document, then one over the bound: the first is kept, the
	// second named.
	p := bundletest.WriteTemp(t, dir, "otlp-logs.jsonl", rec(1)+"\n"+rec(40)+"\n")
	b := bundletest.ReadLimited(t, p, ingest.Limits{MaxDocumentBytes: 2000})
	if len(b.Logs) != 1 || !bundletest.HasWarning(b, ingest.ErrPartialInput, "--max-document-size") {
		t.Errorf("%d records, warnings %v; want 1 and the document bound named", len(b.Logs), b.Warnings)
	}
	// One document over the bound: the input is refused, with the flag.
	q := bundletest.WriteTemp(t, dir, "big-otlp-logs.json", rec(40))
	_, err := ingest.ReadFile(q, nil, ingest.Limits{MaxDocumentBytes: 2000})
	if err == nil || !strings.Contains(err.Error(), "--max-document-size") {
		t.Errorf("err = %v, want the document bound", err)
	}
	// Within the bound: read.
	if b := bundletest.ReadLimited(t, q, ingest.Limits{MaxDocumentBytes: 1 << 20}); len(b.Logs) != 1 {
		t.Errorf("%d records within the bound", len(b.Logs))
	}
}

const otlpSpanDoc = `{"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"cart"}}]},"scopeSpans":[{"spans":[{"traceId":"5b8efff798038103d269b633813fc60c","spanId":"eee19b7ec3c1b174","name":"GET","kind":2,"startTimeUnixNano":"1796008320000000000","endTimeUnixNano":"1796008320100000000"}]}]}]}`

const otlpLogDoc = `{"resourceLogs":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"cart"}}]},"scopeLogs":[{"logRecords":[{"timeUnixNano":"1796008320050000000","body":{"stringValue":"ERROR boom"}}]}]}]}`

func TestOTLPSpansAmongLogs(t *testing.T) {
	// Spans within the sniffed head make it a span file (the test above);
	// here they come after it.
	logs := strings.Repeat(otlpLogDoc+"\n", ingest.SniffLen/len(otlpLogDoc)+1)
	p := bundletest.WriteTemp(t, t.TempDir(), "otlp-logs.jsonl", logs+otlpSpanDoc+"\n"+otlpLogDoc+"\n")
	b, err := ingest.ReadFile(p, nil, ingest.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if want := ingest.SniffLen/len(otlpLogDoc) + 2; len(b.Logs) != want {
		t.Errorf("%d log records, want %d", len(b.Logs), want)
	}
	if !bundletest.HasWarning(b, ingest.ErrPartialInput, "1 OTLP span documents among the logs documents skipped") {
		t.Errorf("no mixed-format warning: %v", b.Warnings)
	}
}
