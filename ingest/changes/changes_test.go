package changes

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
)

// want is one expected event.
type want struct {
	time, service, reason, msg string
	kind                       ingest.EventKind
}

func checkEvents(t *testing.T, b *ingest.Bundle, source string, ws []want) {
	t.Helper()
	if len(b.Events) != len(ws) {
		t.Fatalf("%d events, want %d: %+v", len(b.Events), len(ws), b.Events)
	}
	for i, w := range ws {
		e := b.Events[i]
		ent := ingest.Entity{Kind: ingest.KindService, Name: w.service, Service: w.service}
		if e.Time.String() != w.time || e.Entity != ent || e.Kind != w.kind || e.Reason != w.reason || e.Message != w.msg || e.Count != 1 || e.Source != source {
			t.Errorf("event %d = {%s %+v %v %s %q %d %s},\n want {%s %s %v %s %q 1 %s}", i, e.Time, e.Entity, e.Kind, e.Reason, e.Message, e.Count, e.Source,
				w.time, w.service, w.kind, w.reason, w.msg, source)
		}
		if !e.Kind.ChangeLike() {
			t.Errorf("event %d: kind %v is not change-like", i, e.Kind)
		}
	}
}

// TestReadFiles reads the three shapes through ReadFile: sniffed by content,
// every synonym of every field, the kinds and their defaults.
func TestReadFiles(t *testing.T) {
	tests := []struct {
		file string
		want []want
		warn []error
	}{
		{"changes.json", []want{
			{"2026-11-12T09:14:03.000Z", "gateway", "Deploy", "deploy v3.2.0 by ci-bot", ingest.EventDeploy},
			{"2026-11-12T11:40:27.000Z", "vllm", "Config", "config: max_batch_tokens 8192→16384 by alice", ingest.EventConfig},
			{"2026-11-12T11:20:05.250Z", "router", "FeatureFlag", "routing policy prefix-affinity -> round-robin by bob", ingest.EventConfig},
			{"2026-11-12T12:36:46.000Z", "router", "Deploy", "deploy (version 1.9.0) by argocd", ingest.EventDeploy},
		}, nil},
		{"changes.csv", []want{
			{"2026-11-12T09:14:03.000Z", "gateway", "Deploy", "deploy v3.2.0 by ci-bot", ingest.EventDeploy},
			{"2026-11-12T11:40:27.000Z", "vllm", "Config", "config: max_batch_tokens 8192→16384 by alice", ingest.EventConfig},
			{"2026-11-12T12:20:05.000Z", "router", "FeatureFlag", "routing policy prefix-affinity -> round-robin by bob", ingest.EventConfig},
			{"2026-11-12T12:30:00.000Z", "embedding", "Scale", "scale 2→4 replicas by hpa", ingest.EventDeploy},
			{"2026-11-12T12:36:46.000Z", "router", "Deploy", "deploy (version 1.9.0) by argocd", ingest.EventDeploy},
		}, []error{ingest.ErrBadValue}}, // the last time has no zone
		{"changes.jsonl", []want{
			{"2026-11-12T09:14:03.000Z", "gateway", "Deploy", "rollout 3.2.0 by argocd", ingest.EventDeploy},
			{"2026-11-12T12:36:46.123Z", "router", "Deploy", "rollout 1.9.0 by argocd", ingest.EventDeploy},
			{"2026-11-12T12:55:00.000Z", "router", "Rollback", "rollback to 1.8.3 by oncall", ingest.EventDeploy},
		}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			path := filepath.Join("testdata", tt.file)
			b, err := ingest.ReadFile(path, nil, ingest.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			if f := b.Inputs[0].Format; f != ingest.FormatChangeRecords {
				t.Fatalf("sniffed as %v", f)
			}
			checkEvents(t, b, path, tt.want)
			checkWarnings(t, b, tt.warn)
		})
	}
}

func checkWarnings(t *testing.T, b *ingest.Bundle, want []error) {
	t.Helper()
	if len(b.Warnings) != len(want) {
		t.Fatalf("warnings %v, want kinds %v", b.Warnings, want)
	}
	for i, w := range want {
		if !errors.Is(b.Warnings[i], w) {
			t.Errorf("warning %d = %v, want %v", i, b.Warnings[i], w)
		}
	}
}

// TestRecords covers one record at a time: times, kinds, problems.
func TestRecords(t *testing.T) {
	tests := []struct {
		name string
		body string
		want []want
		warn []error
		msg  string // a warning's text must contain this
	}{
		{name: "epoch seconds", body: `[{"time":1794487006,"service":"a","what":"deploy 2"}]`,
			want: []want{{"2026-11-12T12:36:46.000Z", "a", "Deploy", "deploy 2", ingest.EventDeploy}}},
		{name: "epoch milliseconds as a string", body: `[{"time":"1794487006500","service":"a","what":"x","kind":"deploy"}]`,
			want: []want{{"2026-11-12T12:36:46.500Z", "a", "Deploy", "x", ingest.EventDeploy}}},
		{name: "epoch microseconds", body: `[{"time":1794487006000001,"service":"a","who":"ci"}]`,
			want: []want{{"2026-11-12T12:36:46.000Z", "a", "Deploy", "deploy by ci", ingest.EventDeploy}}},
		{name: "epoch nanoseconds", body: `[{"time":1794487006000000000,"service":"a","version":"v2"}]`,
			want: []want{{"2026-11-12T12:36:46.000Z", "a", "Deploy", "deploy (version v2)", ingest.EventDeploy}}},
		{name: "fractional seconds", body: `[{"time":1794487006.25,"service":"a","version":"v2"}]`,
			want: []want{{"2026-11-12T12:36:46.250Z", "a", "Deploy", "deploy (version v2)", ingest.EventDeploy}}},
		{name: "git's default date", body: `[{"date":"Thu Nov 12 13:36:46 2026 +0100","service":"a","commit":"9f2c1e7"}]`,
			want: []want{{"2026-11-12T12:36:46.000Z", "a", "Deploy", "deploy (version 9f2c1e7)", ingest.EventDeploy}}},
		{name: "kind from what", body: `[{"time":"2026-11-12T12:36:46Z","service":"a","what":"restart: rolling restart of all pods","who":"oncall"}]`,
			want: []want{{"2026-11-12T12:36:46.000Z", "a", "Restart", "restart: rolling restart of all pods by oncall", ingest.EventDeploy}}},
		{name: "feature flag spellings", body: `[{"time":"2026-11-12T12:36:46Z","service":"a","kind":"Feature_Flag","what":"new-ranker on"}]`,
			want: []want{{"2026-11-12T12:36:46.000Z", "a", "FeatureFlag", "new-ranker on", ingest.EventConfig}}},
		{name: "a diff object as what", body: `[{"time":"2026-11-12T12:36:46Z","service":"a","kind":"config","what":{"max_batch_tokens":[8192,16384]}}]`,
			want: []want{{"2026-11-12T12:36:46.000Z", "a", "Config", `{"max_batch_tokens":[8192,16384]}`, ingest.EventConfig}}},
		{name: "the preferred synonym wins", body: `[{"ts":"1","time":"2026-11-12T12:36:46Z","app":"b","service":"a","what":"x"}]`,
			want: []want{{"2026-11-12T12:36:46.000Z", "a", "Deploy", "x", ingest.EventDeploy}}},
		{name: "unknown kind", body: `[{"time":"2026-11-12T12:36:46Z","service":"a","kind":"migration","what":"schema v7"}]`,
			want: []want{{"2026-11-12T12:36:46.000Z", "a", "Deploy", "migration: schema v7", ingest.EventDeploy}}, warn: []error{ingest.ErrBadValue}, msg: "unknown kind"},
		{name: "records without time or service", body: "{\"time\":\"soon\",\"service\":\"a\",\"what\":\"x\"}\n{\"time\":\"2026-11-12T12:36:46Z\",\"what\":\"y\"}\n{\"time\":\"2026-11-12T12:36:46Z\",\"service\":\"c\",\"what\":\"z\"}\n",
			want: []want{{"2026-11-12T12:36:46.000Z", "c", "Deploy", "z", ingest.EventDeploy}}, warn: []error{ingest.ErrBadValue, ingest.ErrBadValue}, msg: "without a readable time skipped (first at byte 0)"},
		{name: "not an object", body: `[{"time":"2026-11-12T12:36:46Z","service":"a","what":"x"}, "deploy b", 7]`,
			want: []want{{"2026-11-12T12:36:46.000Z", "a", "Deploy", "x", ingest.EventDeploy}}, warn: []error{ingest.ErrBadValue}, msg: "2 values that are not change records"},
		{name: "truncated array keeps its records", body: `{"changes":[{"time":"2026-11-12T12:36:46Z","service":"a","what":"x"},{"time":"2026-11-12T12:37:46Z","serv`,
			want: []want{{"2026-11-12T12:36:46.000Z", "a", "Deploy", "x", ingest.EventDeploy}}, warn: []error{ingest.ErrPartialInput}, msg: "read 1 change records, then an unreadable part"},
		{name: "broken JSON line keeps the lines before", body: "{\"time\":\"2026-11-12T12:36:46Z\",\"service\":\"a\",\"what\":\"x\"}\n{\"time\":\"2026-11-12T12:37:46Z\" \"service\":\"b\"}\n",
			want: []want{{"2026-11-12T12:36:46.000Z", "a", "Deploy", "x", ingest.EventDeploy}}, warn: []error{ingest.ErrPartialInput}, msg: "byte"},
		{name: "CSV by tabs, short row", body: "timestamp\tapp\tdescription\tauthor\n2026-11-12T12:36:46Z\tb\tconfig: pool 8→16\n",
			want: []want{{"2026-11-12T12:36:46.000Z", "b", "Config", "config: pool 8→16", ingest.EventConfig}}},
		{name: "CSV by semicolons, quoted header", body: "\"when\";\"workload\";\"change\"\n2026-11-12T12:36:46Z;d;\"image 1.2 → 1.3\"\n",
			want: []want{{"2026-11-12T12:36:46.000Z", "d", "Deploy", "image 1.2 → 1.3", ingest.EventDeploy}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := decode("changes.json", strings.NewReader(tt.body), ingest.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			checkEvents(t, b, "changes.json", tt.want)
			checkWarnings(t, b, tt.warn)
			if tt.msg != "" && !strings.Contains(b.Warnings[0].Message, tt.msg) {
				t.Errorf("warning %q does not say %q", b.Warnings[0].Message, tt.msg)
			}
		})
	}
}

// TestErrors: input that holds no record is an *InputError with its
// position.
func TestErrors(t *testing.T) {
	tests := []struct{ name, body, want string }{
		{"broken from the start", `[{"time":"2026-11-12T12:36:46Z",,]`, "changes.json: byte 33: invalid character ','"},
		{"truncated before a record", `{"changes":[{"time":`, "unexpected end of input"},
		{"CSV without a service column", "time,what,who\n2026-11-12T12:36:46Z,deploy,ci\n", "changes.json:1:1: change records csv: the header names no service column"},
		{"CSV header only of comments", "# time,service,what\n", "change records csv: no header row"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := decode("changes.json", strings.NewReader(tt.body), ingest.Limits{})
			var ie *ingest.InputError
			if !errors.As(err, &ie) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want an *InputError containing %q", err, tt.want)
			}
		})
	}
}

// TestLimits: records beyond MaxEvents are dropped with ErrLimit, long
// values cut to MaxStringBytes.
func TestLimits(t *testing.T) {
	body := "time,service,what\n2026-11-12T12:36:46Z,a," + strings.Repeat("x", 100) + "\n2026-11-12T12:37:46Z,b,y\n2026-11-12T12:38:46Z,c,z\n"
	b, err := decode("changes.csv", strings.NewReader(body), ingest.Limits{MaxEvents: 2, MaxStringBytes: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Events) != 2 || b.Events[0].Message != "xxxxxxxxxx" || b.Events[1].Entity.Name != "b" {
		t.Fatalf("events %+v", b.Events)
	}
	checkWarnings(t, b, []error{ingest.ErrLimit, ingest.ErrLimit})
	if !strings.Contains(b.Warnings[0].Message, "1 of 3 change records dropped") || !strings.Contains(b.Warnings[1].Message, "first at line 2") {
		t.Errorf("warnings %v", b.Warnings)
	}
}

// TestSniff: change records are told from the formats whose heads look
// alike (structured logs, nvidia-smi CSV, Kubernetes Lists).
func TestSniff(t *testing.T) {
	tests := []struct {
		name, head string
		want       bool
	}{
		{"array", `[{"time":"2026-11-12T12:36:46Z","service":"a","what":"deploy v2"}]`, true},
		{"envelope", `{"changes":[{"timestamp":1,"app":"a","author":"x"}]}`, true},
		{"envelope after other keys", `{"generated_at":"x","source":{"a":[1]},"changes":[{"at":1,"component":"a","version":"2"}]}`, true},
		{"kind and description", `{"ts":1,"service":"a","kind":"config","description":"x"}`, true},
		{"csv", "time,service,what,who\n", true},
		{"csv after comments", "# export\n\n\"Timestamp\";\"Service\";\"Version\"\n", true},
		{"structured log line", `{"time":"2026-11-12T12:36:46Z","service":"a","level":"info","message":"deployed v2","version":"2"}`, false},
		{"log line without level", `{"time":"2026-11-12T12:36:46Z","service":"a","message":"GET /"}`, false},
		{"k8s list", `{"apiVersion":"v1","items":[{"kind":"Pod","metadata":{"labels":{"app":"a"},"managedFields":[{"time":"x"}]}}],"kind":"List"}`, false},
		{"nvidia-smi csv", "timestamp, name, pci.bus_id, utilization.gpu [%]\n", false},
		{"csv without what changed", "time,service,latency\n", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ingest.Sniff([]byte(tt.head)) == ingest.FormatChangeRecords; got != tt.want {
				t.Errorf("sniffed %v, want change-records %v", ingest.Sniff([]byte(tt.head)), tt.want)
			}
		})
	}
}
