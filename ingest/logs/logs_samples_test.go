package logs

import (
	"errors"
	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/internal/testkit"
	"path/filepath"
	"strings"
	"testing"
)

// readLogSample reads one real sample (../shared/samples/logs/...) and
// finalizes it.
func readLogSample(t *testing.T, rel string) *ingest.Bundle {
	t.Helper()
	p := filepath.Join(testkit.SharedDir(t), "samples", "logs", rel)
	b, err := ingest.ReadFile(p, nil, ingest.Limits{})
	if err != nil {
		t.Fatalf("read %s: %v", rel, err)
	}
	ingest.Finalize(b, ingest.Options{})
	if err := b.Validate(); err != nil {
		t.Fatalf("Validate: %v", err)
	}
	return b
}

// TestLogSamples reads every real log sample (see the samples README for
// the quirks each carries) and checks what came out.
func TestLogSamples(t *testing.T) {
	for _, tc := range []struct {
		file      string
		format    ingest.Format
		records   int
		streams   int // entity streams (Loki streams with the same entity are one)
		templates int
		warnings  int
		check     func(t *testing.T, b *ingest.Bundle)
	}{
		{"loki-netobserv/flow_records.json", ingest.FormatLokiStreams, 50, 1, 7, 0, func(t *testing.T, b *ingest.Bundle) {
			if s := b.LogStreams[0]; s.Service != "netobserv-flowcollector" || s.EntityFrom != "labels" {
				t.Errorf("stream %+v: want service from the app label", s)
			}
			// JSON lines without a message field are templated by their key set.
			for _, tp := range b.LogTemplates {
				if !strings.HasPrefix(tp.Pattern, "{") {
					t.Errorf("template %q: want the key set of a JSON line", tp.Pattern)
				}
			}
			if b.Logs[0].Time != 1708011867087000064 && b.Logs[0].Time > b.Logs[len(b.Logs)-1].Time {
				t.Errorf("records not in time order")
			}
		}},
		{"loki-netobserv/flow_records_dropped.json", ingest.FormatLokiStreams, 0, 0, 0, 0, nil},
		{"loki-netobserv/flow_metrics_dropped_cause.json", ingest.FormatPromQueryRange, 0, 0, 0, 0, func(t *testing.T, b *ingest.Bundle) {
			if len(b.Series) != 4 {
				t.Errorf("%d series, want the matrix's 4", len(b.Series))
			}
		}},
		{"otlp/logs.json", ingest.FormatOTLPLogs, 1, 1, 1, 0, func(t *testing.T, b *ingest.Bundle) {
			r := b.Logs[0]
			if r.TraceID.String() != "5b8efff798038103d269b633813fc60c" || r.SpanID.String() != "eee19b7ec3c1b174" {
				t.Errorf("ids %v/%v: want the uppercase hex IDs decoded", r.TraceID, r.SpanID)
			}
			if r.Severity != ingest.SeverityInfo || r.Time != 1544712660300000000 || b.LogStreams[0].Service != "my.service" {
				t.Errorf("record %+v stream %+v", r, b.LogStreams[0])
			}
		}},
		{"otlp/events.json", ingest.FormatOTLPLogs, 1, 1, 1, 0, func(t *testing.T, b *ingest.Bundle) {
			if p := b.LogTemplates[0].Pattern; p != "{referrer title type url}" {
				t.Errorf("kvlist body templated as %q, want its key set", p)
			}
		}},
		{"otlp/collector-sink.log", ingest.FormatOTLPLogs, 5, 1, 1, 1, func(t *testing.T, b *ingest.Bundle) {
			if b.Logs[0].Time != ingest.Time(1753292536)*1e9 {
				t.Errorf("time %d: timeUnixNano holds seconds", b.Logs[0].Time)
			}
			if !errors.Is(b.Warnings[0], ingest.ErrSourceWarning) || b.Warnings[0].Count != 5 {
				t.Errorf("warning %v: want the seconds noted for 5 records", b.Warnings[0])
			}
			if b.LogStreams[0].Service != "" || b.Logs[0].TraceID != (ingest.TraceID{}) {
				t.Errorf("empty service.name and traceId must stay empty: %+v %+v", b.LogStreams[0], b.Logs[0])
			}
			sev := map[ingest.Severity]int{}
			for _, r := range b.Logs {
				sev[r.Severity]++
			}
			if sev[ingest.SeverityDebug] != 2 || sev[ingest.SeverityWarn] != 2 || sev[ingest.SeverityError] != 1 {
				t.Errorf("severities %v", sev)
			}
		}},
		{"container/docker_corrupted.log", ingest.FormatDockerJSONLog, 21, 1, 11, 1, func(t *testing.T, b *ingest.Bundle) {
			if w := b.Warnings[0].Message; !strings.Contains(w, "docker_corrupted.log:7:") || !strings.Contains(w, "opening brace") {
				t.Errorf("warning %q: want line 7's missing brace", w)
			}
			if s := b.LogStreams[0]; s.Service != "docker_corrupted" || s.EntityFrom != "file name" {
				t.Errorf("stream %+v: want the file name rule", s)
			}
			found := false
			for _, r := range b.Logs {
				found = found || r.Line == 7
			}
			if !found {
				t.Error("line 7 was not read")
			}
		}},
		{"container/socks_session-db-fdd649d68-cq5sp_istio-proxy.log", ingest.FormatDockerJSONLog, 1, 1, 1, 0, func(t *testing.T, b *ingest.Bundle) {
			s := b.LogStreams[0]
			if s.Pod != "session-db-fdd649d68-cq5sp" || s.Namespace != "socks" || s.Container != "istio-proxy" {
				t.Errorf("stream %+v: want pod, namespace and container from the file name", s)
			}
			if b.Logs[0].Severity != ingest.SeverityInfo {
				t.Errorf("severity %v: want the level of the escaped JSON", b.Logs[0].Severity)
			}
		}},
		{"container/core_unescaping_json.log", ingest.FormatDockerJSONLog, 1, 1, 1, 0, func(t *testing.T, b *ingest.Bundle) {
			if p := b.LogTemplates[0].Pattern; !strings.HasPrefix(p, "quoted") {
				t.Errorf("pattern %q: want the text field of the nested JSON", p)
			}
		}},
		{"container/multiline.json", ingest.FormatDockerJSONLog, 1, 1, 1, 0, func(t *testing.T, b *ingest.Bundle) {
			s := b.LogStreams[0]
			if s.Pod != "rrrr-bert-completion-tb1-6786c9c8-wj25m" || s.Namespace != "k8s-fgg" || s.Service != "customized-tb1" {
				t.Errorf("stream %+v: want the kubernetes metadata", s)
			}
			tp := b.LogTemplates[0]
			if !strings.Contains(tp.Example, "\n\tat org.apache.hadoop.ipc.Client.call") || !strings.Contains(tp.Pattern, "RemoteException") {
				t.Errorf("the 19 CRI lines must fold into one record naming its exception: %q / %q", tp.Pattern, tp.Example)
			}
		}},
		{"captured/victorialogs-v1.52.2/query_all.jsonl", ingest.FormatVictoriaLogs, 250, 7, 55, 0, func(t *testing.T, b *ingest.Bundle) {
			n := 0
			for _, r := range b.Logs {
				if r.TraceID != (ingest.TraceID{}) && r.SpanID != 0 {
					n++
				}
			}
			if n != 250 {
				t.Errorf("%d records with trace and span IDs", n)
			}
		}},
		{"captured/victorialogs-v1.52.2/query_errors.jsonl", ingest.FormatVictoriaLogs, 36, 4, 5, 0, func(t *testing.T, b *ingest.Bundle) {
			for _, r := range b.Logs {
				if r.Severity != ingest.SeverityError {
					t.Fatalf("severity %v in an error query", r.Severity)
				}
			}
		}},
		{"captured/victorialogs-v1.52.2/query_stream_filter_fields.jsonl", ingest.FormatVictoriaLogs, 5, 1, 1, 0, nil},
		{"captured/victorialogs-v1.52.2/query_otlp_ingested.jsonl", ingest.FormatVictoriaLogs, 1, 1, 1, 0, func(t *testing.T, b *ingest.Bundle) {
			if s := b.LogStreams[0]; s.Service != "ts-preserve-service" || s.Pod != "ts-preserve-service-b5ccf8557-j4txs" {
				t.Errorf("stream %+v: want the dotted OTLP labels of _stream", s)
			}
		}},
		{"captured/victorialogs-v1.52.2/loki-push.json", ingest.FormatLokiStreams, 200, 5, 29, 0, nil},
		{"captured/victorialogs-v1.52.2/otlp-logs.json", ingest.FormatOTLPLogs, 50, 2, 26, 0, nil},
	} {
		t.Run(tc.file, func(t *testing.T) {
			b := readLogSample(t, tc.file)
			in := b.Inputs[0]
			if in.Format != tc.format {
				t.Fatalf("format %v, want %v", in.Format, tc.format)
			}
			if in.Counts.Logs != tc.records || len(b.Logs) != tc.records {
				t.Errorf("%d records (input count %d), want %d", len(b.Logs), in.Counts.Logs, tc.records)
			}
			if len(b.LogStreams) != tc.streams || len(b.LogTemplates) != tc.templates {
				t.Errorf("%d streams, %d templates; want %d, %d", len(b.LogStreams), len(b.LogTemplates), tc.streams, tc.templates)
			}
			if len(b.Warnings) != tc.warnings {
				t.Errorf("%d warnings, want %d: %v", len(b.Warnings), tc.warnings, b.Warnings)
			}
			if tc.check != nil {
				tc.check(t, b)
			}
		})
	}
}

// TestLokiNeverPrometheus: a streams response is logs, a matrix one series,
// however their keys are laid out.
func TestLokiNeverPrometheus(t *testing.T) {
	for _, tc := range []struct {
		head string
		want ingest.Format
	}{
		{`{"status":"success","data":{"resultType":"streams","result":[]}}`, ingest.FormatLokiStreams},
		{"{\n  \"status\": \"success\",\n  \"data\": {\n    \"resultType\" : \"streams\",", ingest.FormatLokiStreams},
		{`{"status":"success","data":{"resultType":"matrix","result":[]}}`, ingest.FormatPromQueryRange},
		{`{"streams":[{"stream":{"app":"a"},"values":[["1","x"]]}]}`, ingest.FormatLokiStreams},
		{`{"resourceLogs":[]}`, ingest.FormatOTLPLogs},
		{`{"_time":"2023-01-29T08:42:09Z","_msg":"x","_stream":"{}"}`, ingest.FormatVictoriaLogs},
		{`{"log":"x\n","stream":"stdout","time":"2016-03-02T22:58:51.338462311Z"}`, ingest.FormatDockerJSONLog},
		{"2026-11-30T03:12:00.123456789Z stdout F hello\n", ingest.FormatCRILog},
		{"2026-11-30T03:12:00.123456789Z 16:42:10.175 INFO started\n\tat x\n", ingest.FormatTextLog},
		{"2023-01-29 16:42:10,175 ERROR boom\n", ingest.FormatTextLog},
		{"timestamp, index, uuid\n2024/05/01 10:00:00.000, 0, GPU-1\n", ingest.FormatNvidiaSmiCSV},
	} {
		if got := ingest.Sniff([]byte(tc.head)); got != tc.want {
			t.Errorf("Sniff(%.50q) = %v, want %v", tc.head, got, tc.want)
		}
	}
}
