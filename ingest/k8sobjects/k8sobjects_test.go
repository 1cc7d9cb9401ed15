package k8sobjects

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
)

// want is one expected event; msg is a part of its message.
type want struct {
	time   string
	kind   ingest.EventKind
	reason string
	object string
	entity string // Entity.ID()
	msg    string
}

func check(t *testing.T, b *ingest.Bundle, ws []want) {
	t.Helper()
	if len(b.Events) != len(ws) {
		for _, e := range b.Events {
			t.Logf("%s %v %s %s %s %s", e.Time, e.Kind, e.Reason, e.Object, e.Entity.ID(), e.Message)
		}
		t.Fatalf("%d events, want %d", len(b.Events), len(ws))
	}
	for i, w := range ws {
		e := b.Events[i]
		if e.Time.String() != w.time || e.Kind != w.kind || e.Reason != w.reason || e.Object != w.object || e.Entity.ID() != w.entity ||
			!strings.Contains(e.Message, w.msg) || e.Count != 1 || e.Source == "" {
			t.Errorf("event %d = {%s %v %s %s %s %q},\n want {%s %v %s %s %s …%q…}", i, e.Time, e.Kind, e.Reason, e.Object, e.Entity.ID(), e.Message,
				w.time, w.kind, w.reason, w.object, w.entity, w.msg)
		}
		if e.Entity.Kind == ingest.KindService && e.Entity.Service != e.Entity.Name {
			t.Errorf("event %d: service entity %+v", i, e.Entity)
		}
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

// TestSnapshot reads `kubectl get deploy,rs,cm,sts,ds -A -o json
// --show-managed-fields` of an LLM-serving namespace: three router
// revisions, a gateway rollout rolled back, a StatefulSet mid-rollout, a
// DaemonSet, and ConfigMaps edited, created with a workload, and unused.
func TestSnapshot(t *testing.T) {
	b, err := ingest.ReadFile(filepath.Join("testdata", "objects.json"), nil, ingest.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if f := b.Inputs[0].Format; f != ingest.FormatK8sObjects {
		t.Fatalf("sniffed as %v", f)
	}
	checkWarnings(t, b, nil)
	check(t, b, []want{
		{"2026-06-01T10:00:00.000Z", ingest.EventConfig, "ConfigMapCreated", "ConfigMap/kube-root-ca.crt", "unknown/configmap/kube-root-ca.crt", "no workload in the snapshot uses it"},
		{"2026-09-01T07:45:12.000Z", ingest.EventDeploy, "WorkloadCreated", "DaemonSet/nvidia-dcgm-exporter", "service/nvidia-dcgm-exporter",
			"DaemonSet/nvidia-dcgm-exporter generation 1 (observed 1): nvidia-dcgm-exporter=nvcr.io/nvidia/k8s/dcgm-exporter:4.2.3-4.1.3-ubuntu22.04"},
		{"2026-10-02T08:11:37.000Z", ingest.EventConfig, "ConfigMapCreated", "ConfigMap/gateway-env", "service/gateway", "created by kubectl-client-side-apply (used by Deployment/gateway)"},
		{"2026-10-02T08:11:38.000Z", ingest.EventDeploy, "ReplicaSetCreated", "ReplicaSet/gateway-74b5d9f8c6", "service/gateway",
			"revision 3 of Deployment/gateway: gateway=ghcr.io/acme-ai/llm-gateway:3.1.4; earlier revisions 1; replicas 3 (3 ready)"},
		{"2026-10-21T14:02:19.000Z", ingest.EventDeploy, "ReplicaSetCreated", "ReplicaSet/router-5c8d7b9f64", "service/router", "revision 5 of Deployment/router: router=ghcr.io/acme-ai/llm-router:1.8.2"},
		{"2026-11-05T09:30:51.000Z", ingest.EventDeploy, "ReplicaSetCreated", "ReplicaSet/router-6hp46qfntv", "service/router",
			"router ghcr.io/acme-ai/llm-router:1.8.2 → ghcr.io/acme-ai/llm-router:1.8.3 (from revision 5); replicas 0 (0 ready)"},
		{"2026-11-12T09:14:03.000Z", ingest.EventDeploy, "ReplicaSetCreated", "ReplicaSet/gateway-5f7c9d6b8d", "service/gateway",
			"gateway ghcr.io/acme-ai/llm-gateway:3.1.4 → ghcr.io/acme-ai/llm-gateway:3.2.0; resources of gateway; replicas 0 (0 ready); change-cause: kubectl set image"},
		{"2026-11-12T10:05:12.000Z", ingest.EventDeploy, "ReplicaSetReused", "ReplicaSet/gateway-74b5d9f8c6", "service/gateway",
			"revision 3 of Deployment/gateway uses ReplicaSet gateway-74b5d9f8c6 again (its revisions before: 1): gateway ghcr.io/acme-ai/llm-gateway:3.2.0 → ghcr.io/acme-ai/llm-gateway:3.1.4"},
		{"2026-11-12T11:57:40.000Z", ingest.EventConfig, "ConfigMapCreated", "ConfigMap/vllm-engine-args", "service/vllm", "(used by StatefulSet/vllm)"},
		{"2026-11-12T11:58:02.000Z", ingest.EventDeploy, "WorkloadUpdated", "StatefulSet/vllm", "service/vllm",
			"rolling out revision vllm-8f6b7d9c4 over vllm-7c9d8f6b5 (1 of 2 updated): vllm=vllm/vllm-openai:v0.11.0 by kubectl-client-side-apply"},
		{"2026-11-12T12:31:10.000Z", ingest.EventConfig, "ConfigMapUpdated", "ConfigMap/router-config", "service/router", "updated by kubectl-edit (used by Deployment/router)"},
		{"2026-11-12T12:36:46.000Z", ingest.EventDeploy, "ReplicaSetCreated", "ReplicaSet/router-q2qvt2vl7z", "service/router",
			"revision 7 of Deployment/router: router ghcr.io/acme-ai/llm-router:1.8.3 → ghcr.io/acme-ai/llm-router:1.9.0 (from revision 6); replicas 2 (2 ready)"},
	})
	for _, e := range b.Events {
		if strings.Contains(e.Message, "round-robin") || strings.Contains(e.Message, "16384") {
			t.Errorf("a ConfigMap's data leaked into %q", e.Message)
		}
	}
}

// deployment is a Deployment with no ReplicaSet in the same input.
const deployment = `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"embedding","namespace":"llm-serving","creationTimestamp":"2026-10-02T08:11:39Z",
 "generation":%GEN%,"managedFields":%MF%},
 "spec":{"replicas":4,"template":{"metadata":{"labels":{"app":"embedding"}},"spec":{"containers":[{"name":"embed","image":"ghcr.io/acme-ai/embed:0.4.1"}]}}},
 "status":{"observedGeneration":%GEN%,"conditions":%COND%}}`

func deploymentWith(gen, mf, cond string) string {
	return strings.NewReplacer("%GEN%", gen, "%MF%", mf, "%COND%", cond).Replace(deployment)
}

// TestShapes covers the other shapes and kinds one object at a time.
func TestShapes(t *testing.T) {
	progressed := `[{"type":"Available","status":"True","reason":"MinimumReplicasAvailable","lastUpdateTime":"2026-10-02T08:12:00Z"},
		{"type":"Progressing","status":"True","reason":"NewReplicaSetAvailable","lastUpdateTime":"2026-11-12T12:20:31Z","message":"ReplicaSet \"embedding-7d9f8c6b5\" has successfully progressed."}]`
	tests := []struct {
		name string
		body string
		want []want
		warn []error
	}{
		{name: "a Deployment alone is dated by its Progressing condition", body: deploymentWith("6", "[]", progressed),
			want: []want{{"2026-11-12T12:20:31.000Z", ingest.EventDeploy, "NewReplicaSetAvailable", "Deployment/embedding", "service/embedding",
				`Deployment/embedding generation 6 (observed 6): embed=ghcr.io/acme-ai/embed:0.4.1: ReplicaSet "embedding-7d9f8c6b5" has successfully progressed.`}}},
		{name: "past its progress deadline", body: deploymentWith("6", `[{"manager":"kubectl","operation":"Update","time":"2026-11-12T12:10:00Z"}]`,
			`[{"type":"Progressing","status":"False","reason":"ProgressDeadlineExceeded","lastUpdateTime":"2026-11-12T12:20:31Z","message":"ReplicaSet \"embedding-7d9f8c6b5\" has timed out progressing."}]`),
			want: []want{
				{"2026-11-12T12:10:00.000Z", ingest.EventDeploy, "WorkloadUpdated", "Deployment/embedding", "service/embedding", "generation 6 (observed 6): embed=ghcr.io/acme-ai/embed:0.4.1 by kubectl"},
				{"2026-11-12T12:20:31.000Z", ingest.EventWarning, "ProgressDeadlineExceeded", "Deployment/embedding", "service/embedding", "timed out progressing"},
			}},
		{name: "no managedFields: dated by creation, warned", body: deploymentWith("3", "null", "[]"),
			want: []want{{"2026-10-02T08:11:39.000Z", ingest.EventDeploy, "WorkloadCreated", "Deployment/embedding", "service/embedding", "updated since (generation 3), not dated"}},
			warn: []error{ingest.ErrPartialInput}},
		{name: "scaled through the scale subresource", body: deploymentWith("1", `[{"manager":"kubectl-client-side-apply","operation":"Update","time":"2026-10-02T08:11:39Z"},
			{"manager":"kube-controller-manager","operation":"Update","time":"2026-11-12T12:25:00Z","subresource":"status"},
			{"manager":"horizontal-pod-autoscaler","operation":"Update","time":"2026-11-12T12:24:55Z","subresource":"scale"}]`, "[]"),
			want: []want{
				{"2026-10-02T08:11:39.000Z", ingest.EventDeploy, "WorkloadCreated", "Deployment/embedding", "service/embedding", "embed=ghcr.io/acme-ai/embed:0.4.1"},
				{"2026-11-12T12:24:55.000Z", ingest.EventDeploy, "WorkloadScaled", "Deployment/embedding", "service/embedding", "Deployment/embedding scaled to 4 replicas by horizontal-pod-autoscaler"},
			}},
		{name: "an API list: items without kind, ReplicaSet without owner", body: `{"kind":"ReplicaSetList","apiVersion":"apps/v1","items":[
			{"metadata":{"name":"tokenizer-6f8b9c7d5","namespace":"llm-serving","creationTimestamp":"2026-11-12T12:02:00Z","labels":{"pod-template-hash":"6f8b9c7d5"},
			 "annotations":{"deployment.kubernetes.io/revision":"4"}},
			 "spec":{"template":{"spec":{"containers":[{"name":"tok","image":"ghcr.io/acme-ai/tokenizer:2.0.0"}]}}}}]}`,
			want: []want{{"2026-11-12T12:02:00.000Z", ingest.EventDeploy, "ReplicaSetCreated", "ReplicaSet/tokenizer-6f8b9c7d5", "service/tokenizer",
				"revision 4 of Deployment/tokenizer: tok=ghcr.io/acme-ai/tokenizer:2.0.0"}}},
		{name: "a Secret: its users, never its data", body: `{"apiVersion":"v1","kind":"List","items":[
			{"apiVersion":"v1","kind":"Secret","type":"Opaque","data":{"search":"c2stbGl2ZS1kbzEyMw=="},"stringData":{"x":"hunter2"},
			 "metadata":{"name":"router-api-keys","namespace":"llm-serving","creationTimestamp":"2026-10-02T08:11:37Z",
			 "managedFields":[{"manager":"kubectl-create","operation":"Update","time":"2026-10-02T08:11:37Z"},{"manager":"vault-agent","operation":"Update","time":"2026-11-12T12:00:00Z"}]}},
			{"apiVersion":"apps/v1","kind":"StatefulSet","metadata":{"name":"router","namespace":"llm-serving","creationTimestamp":"2026-10-02T08:11:40Z","generation":1,
			 "managedFields":[{"manager":"kubectl","operation":"Update","time":"2026-10-02T08:11:40Z"}]},
			 "spec":{"template":{"spec":{"containers":[{"name":"router","image":"r:1","env":[{"name":"K","valueFrom":{"secretKeyRef":{"name":"router-api-keys","key":"search"}}}]}]}}}},
			{"apiVersion":"apps/v1","kind":"DaemonSet","metadata":{"name":"egress-proxy","namespace":"llm-serving","creationTimestamp":"2026-10-02T08:11:40Z",
			 "managedFields":[{"manager":"kubectl","operation":"Update","time":"2026-10-02T08:11:40Z"}]},
			 "spec":{"template":{"spec":{"volumes":[{"name":"k","projected":{"sources":[{"secret":{"name":"router-api-keys"}}]}}],"containers":[{"name":"p","image":"p:1"}]}}}},
			{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"other-ns","namespace":"default","creationTimestamp":"2026-10-02T08:11:40Z",
			 "managedFields":[{"manager":"kubectl","operation":"Update","time":"2026-10-02T08:11:40Z"}]},
			 "spec":{"template":{"spec":{"volumes":[{"name":"k","secret":{"secretName":"router-api-keys"}}],"containers":[{"name":"o","image":"o:1"}]}}}}]}`,
			want: []want{
				{"2026-10-02T08:11:40.000Z", ingest.EventDeploy, "WorkloadCreated", "DaemonSet/egress-proxy", "service/egress-proxy", "p=p:1"},
				{"2026-10-02T08:11:40.000Z", ingest.EventDeploy, "WorkloadCreated", "Deployment/other-ns", "service/other-ns", "o=o:1"},
				{"2026-10-02T08:11:40.000Z", ingest.EventDeploy, "WorkloadCreated", "StatefulSet/router", "service/router", "router=r:1"},
				{"2026-11-12T12:00:00.000Z", ingest.EventConfig, "SecretUpdated", "Secret/router-api-keys", "service/egress-proxy",
					"Secret/router-api-keys updated by vault-agent (used by DaemonSet/egress-proxy, StatefulSet/router)"},
				{"2026-11-12T12:00:00.000Z", ingest.EventConfig, "SecretUpdated", "Secret/router-api-keys", "service/router", "updated by vault-agent"},
			}},
		{name: "a Helm release", body: `{"apiVersion":"v1","kind":"Secret","type":"helm.sh/release.v1","data":{"release":"H4sIAAAA"},
			"metadata":{"name":"sh.helm.release.v1.vllm-stack.v12","namespace":"llm-serving","creationTimestamp":"2026-11-12T11:57:38Z",
			"labels":{"modifiedAt":"1794484658","name":"vllm-stack","owner":"helm","status":"deployed","version":"12"}}}`,
			want: []want{{"2026-11-12T11:57:38.000Z", ingest.EventDeploy, "HelmRelease", "Secret/sh.helm.release.v1.vllm-stack.v12", "service/vllm-stack",
				"helm release vllm-stack revision 12 (deployed)"}}},
		{name: "a value of the wrong type, an object without a time, other kinds", body: `[
			{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","namespace":"n","creationTimestamp":"2026-11-12T12:00:00Z","generation":"two"}},
			{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"b","namespace":"n"}},
			{"apiVersion":"v1","kind":"Service","metadata":{"name":"c","namespace":"n","creationTimestamp":"2026-11-12T12:00:00Z"}}]`,
			want: []want{{"2026-11-12T12:00:00.000Z", ingest.EventConfig, "ConfigMapCreated", "ConfigMap/a", "unknown/configmap/a", "ConfigMap/a created"}},
			warn: []error{ingest.ErrBadValue, ingest.ErrBadValue, ingest.ErrPartialInput}},
		{name: "an empty list", body: `{"apiVersion":"v1","items":[],"kind":"List","metadata":{"resourceVersion":""}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := decode("objects.json", strings.NewReader(tt.body), ingest.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			check(t, b, tt.want)
			checkWarnings(t, b, tt.warn)
			for _, e := range b.Events {
				if strings.Contains(e.Message, "c2stbGl2ZS1kbzEyMw") || strings.Contains(e.Message, "hunter2") || strings.Contains(e.Message, "H4sI") {
					t.Errorf("a Secret's data leaked into %q", e.Message)
				}
			}
		})
	}
}

// TestErrorsAndLimits: broken JSON is a positioned *InputError; over
// MaxEvents the newest changes are kept.
func TestErrorsAndLimits(t *testing.T) {
	_, err := decode("objects.json", strings.NewReader(`{"apiVersion":"v1","kind":"List","items":[{"kind":"ReplicaSet","metadata":`), ingest.Limits{})
	var ie *ingest.InputError
	if !errors.As(err, &ie) || !strings.Contains(err.Error(), "objects.json") {
		t.Fatalf("error %v, want a positioned *InputError", err)
	}
	b, err := ingest.ReadFile(filepath.Join("testdata", "objects.json"), nil, ingest.Limits{MaxEvents: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Events) != 2 || b.Events[0].Object != "ConfigMap/router-config" || b.Events[1].Object != "ReplicaSet/router-q2qvt2vl7z" {
		t.Errorf("kept %+v, want the two newest", b.Events)
	}
	checkWarnings(t, b, []error{ingest.ErrLimit})
	if !strings.Contains(b.Warnings[0].Message, "10 of 12 changes dropped, the oldest") {
		t.Errorf("warning %v", b.Warnings[0])
	}
	b, err = ingest.ReadFile(filepath.Join("testdata", "objects.json"), nil, ingest.Limits{MaxStringBytes: 40})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range b.Events {
		if len(e.Message) > 40 {
			t.Errorf("message of %d bytes: %q", len(e.Message), e.Message)
		}
	}
	checkWarnings(t, b, []error{ingest.ErrLimit})
	if !strings.Contains(b.Warnings[0].Message, "longer than 40 bytes truncated") {
		t.Errorf("warning %v", b.Warnings[0])
	}
}

// TestSniff: a snapshot is told from the kubectl outputs that look alike.
func TestSniff(t *testing.T) {
	tests := []struct {
		name, head string
		want       bool
	}{
		{"kubectl list", `{"apiVersion": "v1", "items": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {}}], "kind": "List"}`, true},
		{"typed list", `{"kind":"DeploymentList","apiVersion":"apps/v1","metadata":{},"items":[]}`, true},
		{"one ConfigMap", "{\n    \"apiVersion\": \"v1\",\n    \"data\": {},\n    \"kind\": \"ConfigMap\",\n    \"metadata\": {}\n}", true},
		{"events about a Deployment", `{"apiVersion":"v1","items":[{"kind":"Event","involvedObject":{"kind":"Deployment","name":"a"},"metadata":{}}],"kind":"List"}`, false},
		{"pods", `{"apiVersion":"v1","items":[{"apiVersion":"v1","kind":"Pod","metadata":{}}],"kind":"List"}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ingest.Sniff([]byte(tt.head)) == ingest.FormatK8sObjects; got != tt.want {
				t.Errorf("sniffed %v, want k8s-objects %v", ingest.Sniff([]byte(tt.head)), tt.want)
			}
		})
	}
}
