package features

import (
	"slices"
	"strings"
	"testing"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
)

// changesTrace is a Jaeger trace of gateway → router from 2026-11-12T12:40Z.
const changesTrace = `{"data":[{"traceID":"b7","spans":[
 {"traceID":"b7","spanID":"01","operationName":"POST /v1/chat","startTime":1794487200000000,"duration":900000,"processID":"p1","references":[]},
 {"traceID":"b7","spanID":"02","operationName":"route","startTime":1794487200001000,"duration":800000,"processID":"p2",
  "references":[{"refType":"CHILD_OF","traceID":"b7","spanID":"01"}]},
 {"traceID":"b7","spanID":"03","operationName":"route","startTime":1794487260001000,"duration":700000,"processID":"p2",
  "references":[{"refType":"CHILD_OF","traceID":"b7","spanID":"01"}]},
 {"traceID":"b7","spanID":"04","operationName":"route","startTime":1794487320001000,"duration":750000,"processID":"p2",
  "references":[{"refType":"CHILD_OF","traceID":"b7","spanID":"01"}]}],
 "processes":{"p1":{"serviceName":"gateway","tags":[]},"p2":{"serviceName":"router","tags":[]}}}]}`

// changesCSV are change records of the last day beside it.
const changesCSV = `time,service,what,who,kind
2026-11-11T14:02:00Z,gateway,deploy v3.1.4,ci-bot,deploy
2026-11-12T12:31:10Z,llm-serving/router,config: policy prefix-affinity → round-robin,alice,config
2026-11-12T12:35:00Z,billing,deploy v9,ci-bot,deploy
`

// changesObjects is a snapshot with a router rollout (and one of October,
// beyond the look-back) and two ConfigMaps no template in it uses: one
// named after a traced service, one not.
const changesObjects = `{"apiVersion":"v1","kind":"List","items":[
 {"apiVersion":"apps/v1","kind":"ReplicaSet","metadata":{"name":"router-q2qvt2vl7z","namespace":"llm-serving","creationTimestamp":"2026-11-12T12:36:46Z",
  "annotations":{"deployment.kubernetes.io/revision":"7"},"labels":{"pod-template-hash":"q2qvt2vl7z"},
  "ownerReferences":[{"kind":"Deployment","name":"router","controller":true}]},
  "spec":{"replicas":2,"template":{"spec":{"containers":[{"name":"router","image":"ghcr.io/acme-ai/llm-router:1.9.0"}]}}}},
 {"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"router-config-5f7c9d6b8d","namespace":"llm-serving","creationTimestamp":"2026-11-12T12:30:00Z"}},
 {"apiVersion":"apps/v1","kind":"ReplicaSet","metadata":{"name":"router-5c8d7b9f64","namespace":"llm-serving","creationTimestamp":"2026-10-01T10:00:00Z",
  "annotations":{"deployment.kubernetes.io/revision":"6"},"labels":{"pod-template-hash":"5c8d7b9f64"},
  "ownerReferences":[{"kind":"Deployment","name":"router","controller":true}]},
  "spec":{"replicas":0,"template":{"spec":{"containers":[{"name":"router","image":"ghcr.io/acme-ai/llm-router:1.8.3"}]}}}},
 {"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"kube-root-ca.crt","namespace":"llm-serving","creationTimestamp":"2026-11-12T11:00:00Z"}}]}`

// TestChangesBesideAnIncident: change records and a snapshot of objects
// read beside traces become events on the traced services (a record's
// "namespace/name", a ConfigMap no template uses by its name); the history
// of the last day is kept without stretching the grid, older history is
// left out, and a ConfigMap whose name is no service is neither an entity
// nor unmatched.
func TestChangesBesideAnIncident(t *testing.T) {
	b := readPlacementBundle(t, map[string]string{"traces.json": changesTrace, "changes.csv": changesCSV, "objects.json": changesObjects})
	formats := map[ingest.Format]int{}
	for _, in := range b.Inputs {
		formats[in.Format] = in.Counts.Events
	}
	if formats[ingest.FormatChangeRecords] != 3 || formats[ingest.FormatK8sObjects] != 4 {
		t.Fatalf("inputs %+v", b.Inputs)
	}
	if got := b.Start.String(); got != "2026-11-12T12:40:00.000Z" {
		t.Errorf("the data start at %s: the history stretched the grid", got)
	}
	type ev struct{ entity, reason string }
	var got []ev
	for _, e := range b.Events {
		if !e.Kind.ChangeLike() {
			t.Errorf("event %+v is not a change", e)
		}
		got = append(got, ev{e.Entity.ID(), e.Reason})
	}
	want := []ev{ // in input order: changes.csv, then objects.json
		{"service/gateway", "Deploy"}, // a day old, kept
		{"service/router", "Config"},  // "llm-serving/router"
		{"service/billing", "Deploy"},
		{"unknown/configmap/kube-root-ca.crt", "ConfigMapCreated"},
		{"service/router", "ConfigMapCreated"},  // router-config-5f7c9d6b8d
		{"service/router", "ReplicaSetCreated"}, // of today; October's is left out
	}
	if !slices.Equal(got, want) {
		t.Errorf("events\n %v, want\n %v", got, want)
	}
	for _, e := range b.Entities {
		if strings.Contains(e.Name, "kube-root") || strings.Contains(e.Name, "router-config") {
			t.Errorf("entity %s", e.ID())
		}
	}
	if !warned(b, "match no traced service: billing") || warned(b, "kube-root") {
		t.Errorf("warnings %v: want billing unmatched, and nothing on kube-root-ca.crt", b.Warnings)
	}
}
