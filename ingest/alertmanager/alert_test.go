package alertmanager

import (
	"errors"
	"github.com/pipeline-analyze/pipeline-analyze/internal/testkit"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
)

func TestAlertmanagerNezha(t *testing.T) {
	shared := testkit.SharedDir(t)
	f := filepath.Join(shared, "data", "nezha-ob", "ob-20220822-035354", "alert.json")
	b, err := ingest.ReadFile(f, nil, ingest.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if b.Inputs[0].Format != ingest.FormatAlertmanager || len(b.Alerts) != 1 || len(b.Warnings) != 0 {
		t.Fatalf("format %v, %d alerts, warnings %v", b.Inputs[0].Format, len(b.Alerts), b.Warnings)
	}
	a := b.Alerts[0]
	if a.Name != "HighRequestLatency" || a.Status != "firing" || a.Summary != "p90 latency above SLO" || a.Service != "frontend" ||
		a.Signal != ingest.SignalLatency || a.Stat != "p90" || a.Source != f || a.StartsAt.String() != "2022-08-22T03:55:54.000Z" ||
		a.Labels.String() != `{alertname="HighRequestLatency",namespace="hipster",service="frontend",severity="page"}` {
		t.Errorf("alert %+v", a)
	}
}

func TestAlertmanagerShapes(t *testing.T) {
	tests := []struct {
		name    string
		body    string
		n       int
		status  string
		service string
		signal  ingest.SignalKind
		stat    string
		time    string
		err     string
		warn    error
	}{
		{name: "v2 api array", body: `[{"annotations":{"description":"TTFT p99 above 2s"},"endsAt":"2024-05-01T10:20:00.000Z","fingerprint":"a1",` +
			`"receivers":[{"name":"default"}],"startsAt":"2024-05-01T10:05:00.123Z","status":{"inhibitedBy":[],"silencedBy":[],"state":"active"},` +
			`"updatedAt":"2024-05-01T10:05:30.000Z","labels":{"alertname":"VLLMSlowFirstToken","pod":"vllm-llama-6d9f8b7c5-x2kq9"}}]`,
			n: 1, status: "firing", service: "vllm-llama", signal: ingest.SignalLatency, stat: "p99", time: "2024-05-01T10:05:00.123Z"},
		{name: "resolved error rate", body: `{"version":"4","status":"resolved","alerts":[{"status":"resolved","labels":{"alertname":"HighErrorRate","job":"checkout"},` +
			`"annotations":{"summary":"5xx ratio above 5%"},"startsAt":"2024-05-01T10:00:00Z"}]}`,
			n: 1, status: "resolved", service: "checkout", signal: ingest.SignalErrors, time: "2024-05-01T10:00:00.000Z"},
		{name: "kv cache from group status", body: `{"status":"firing","receiver":"x","alerts":[{"labels":{"alertname":"KVCacheAlmostFull","service":"vllm"},"startsAt":"2024-05-01T10:00:00Z"}]}`,
			n: 1, status: "firing", service: "vllm", signal: ingest.SignalKVCache, time: "2024-05-01T10:00:00.000Z"},
		{name: "missing startsAt", body: `{"status":"firing","alerts":[{"labels":{"alertname":"GPUXidError","Hostname":"h1"},"startsAt":"0001-01-01T00:00:00Z"}]}`,
			n: 1, status: "firing", signal: ingest.SignalXID, time: "-", warn: ingest.ErrBadValue},
		{name: "no alerts", body: `{"status":"firing","alerts":[]}`, n: 0},
		{name: "malformed", body: `{"status":"firing","alerts":[{"labels":{"alertname":1}}]}`, err: "expected string"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := decodeAlertmanager("alerts.json", strings.NewReader(tt.body), ingest.Limits{})
			if tt.err != "" {
				var ie *ingest.InputError
				if err == nil || !errors.As(err, &ie) || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want *InputError containing %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(b.Alerts) != tt.n {
				t.Fatalf("%d alerts, want %d", len(b.Alerts), tt.n)
			}
			if tt.n > 0 {
				a := b.Alerts[0]
				if a.Status != tt.status || a.Service != tt.service || a.Signal != tt.signal || a.Stat != tt.stat || a.StartsAt.String() != tt.time {
					t.Errorf("alert {%s %s %v %s %s}, want {%s %s %v %s %s}", a.Status, a.Service, a.Signal, a.Stat, a.StartsAt,
						tt.status, tt.service, tt.signal, tt.stat, tt.time)
				}
			}
			if tt.warn == nil && len(b.Warnings) > 0 || tt.warn != nil && (len(b.Warnings) != 1 || !errors.Is(b.Warnings[0], tt.warn)) {
				t.Errorf("warnings %v, want %v", b.Warnings, tt.warn)
			}
		})
	}
}

func TestAlertSniffV2Array(t *testing.T) {
	body := `[{"annotations":{},"endsAt":"2024-05-01T10:20:00.000Z","fingerprint":"a1","startsAt":"2024-05-01T10:05:00.123Z","labels":{"alertname":"X"}}]`
	if f := ingest.Sniff([]byte(body)); f != ingest.FormatAlertmanager {
		t.Errorf("Sniff = %v, want alertmanager", f)
	}
}

func TestAlertSignal(t *testing.T) {
	tests := []struct {
		name string
		text string
		sig  ingest.SignalKind
		stat string
	}{
		{"nezha", "HighRequestLatency p90 latency above SLO", ingest.SignalLatency, "p90"},
		{"ttft", "TTFTTooHigh", ingest.SignalLatency, ""},
		{"itl", "High inter-token latency", ingest.SignalLatency, ""},
		{"error rate", "HighErrorRate", ingest.SignalErrors, ""},
		{"success rate", "Success rate below 99%", ingest.SignalErrors, ""},
		{"kv cache", "KVCacheAlmostFull", ingest.SignalKVCache, ""},
		{"percentile words", "99th percentile duration too high", ingest.SignalLatency, "p99"},
		{"cpu throttling", "CPUThrottlingHigh", ingest.SignalCPUThrottle, ""},
		{"restarts", "KubePodCrashLooping", ingest.SignalRestarts, ""},
		{"xid", "GPU Xid 79 detected", ingest.SignalXID, ""},
		{"queue", "vLLM requests waiting in queue", ingest.SignalQueue, ""},
		{"unknown", "Watchdog", ingest.SignalOther, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if sig, stat := alertSignal(tt.text); sig != tt.sig || stat != tt.stat {
				t.Errorf("alertSignal(%q) = %v %q, want %v %q", tt.text, sig, stat, tt.sig, tt.stat)
			}
		})
	}
}

// TestAlertRunbookURL: the runbook_url annotation (Prometheus' convention)
// is kept for the card's next steps.
func TestAlertRunbookURL(t *testing.T) {
	body := `{"status":"firing","alerts":[{"status":"firing","labels":{"alertname":"KubePodCrashLooping","service":"cart"},
		"annotations":{"summary":"crash looping","runbook_url":"https://runbooks.prometheus-operator.dev/runbooks/kubernetes/kubepodcrashlooping"},
		"startsAt":"2026-11-30T02:10:00Z"}]}`
	b, err := decodeAlertmanager("alerts.json", strings.NewReader(body), ingest.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Alerts) != 1 || b.Alerts[0].RunbookURL != "https://runbooks.prometheus-operator.dev/runbooks/kubernetes/kubepodcrashlooping" {
		t.Errorf("alerts %+v", b.Alerts)
	}
}
