package peers

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/features"
	"github.com/pipeline-analyze/pipeline-analyze/ingest"
)

// t0 is the first sample of every fixture: a minute grid from it.
var t0 = time.Date(2026, 11, 30, 2, 0, 0, 0, time.UTC)

// podSeries is one pod's samples of a metric: value(i) at minute i for
// minutes [from, to).
type podSeries struct {
	labels   map[string]string
	from, to int
	value    func(i int) float64
}

// promFile writes a Prometheus query_range response (matrix) of metric.
func promFile(t *testing.T, dir, metric string, ss []podSeries) {
	t.Helper()
	type res struct {
		Metric map[string]string `json:"metric"`
		Values [][2]any          `json:"values"`
	}
	var rs []res
	for _, s := range ss {
		m := map[string]string{"__name__": metric}
		for k, v := range s.labels {
			m[k] = v
		}
		r := res{Metric: m}
		for i := s.from; i < s.to; i++ {
			r.Values = append(r.Values, [2]any{float64(t0.Add(time.Duration(i) * time.Minute).Unix()), fmt.Sprint(s.value(i))})
		}
		rs = append(rs, r)
	}
	doc := map[string]any{"status": "success", "data": map[string]any{"resultType": "matrix", "result": rs}}
	writeJSON(t, filepath.Join(dir, "metrics_"+strings.NewReplacer(":", "_").Replace(metric)+".json"), doc)
}

// scaleEvent is one ScalingReplicaSet event as kubectl get events -o json
// prints it.
func scaleEvent(deploy, msg string, minute int) map[string]any {
	ts := t0.Add(time.Duration(minute)*time.Minute + 20*time.Second).Format(time.RFC3339)
	return map[string]any{
		"apiVersion": "v1", "kind": "Event",
		"involvedObject": map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "name": deploy, "namespace": "shop"},
		"metadata":       map[string]any{"name": deploy + ".1787439ddb82f400", "namespace": "shop", "creationTimestamp": ts},
		"reason":         "ScalingReplicaSet", "type": "Normal", "message": msg, "count": 1,
		"firstTimestamp": ts, "lastTimestamp": ts, "source": map[string]any{"component": "deployment-controller"},
	}
}

func writeJSON(t *testing.T, path string, v any) {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func read(t *testing.T, dir string) *ingest.Bundle {
	t.Helper()
	b, err := features.Read([]string{dir}, nil, ingest.Options{}, features.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func constant(v float64) func(int) float64 { return func(int) float64 { return v } }

// cells is the analysis of a 30-minute fixture: baseline minutes 0–19,
// window 20–29.
var cells = Cells{B0: 0, B1: 20, W0: 20, W1: 30}

// canary writes an Istio-style canary: service cart with Deployments
// cart-v1 (three pods, minutes 0–30, one of them scaled down at minute
// 18) and cart-v2 (one pod asked for at minute 17, reporting from minute
// 19 when v2Reports), each pod's success ratio and CPU labelled with its
// version, and the rollout events.
func canary(t *testing.T, v2Success float64, v2Reports bool) string {
	dir := t.TempDir()
	v1 := []string{"cart-v1-7bb89585b4-29f47", "cart-v1-7bb89585b4-5ckbg", "cart-v1-7bb89585b4-bq22g"}
	v2 := "cart-v2-54455997f4-qdpvs"
	var succ, cpu []podSeries
	for k, p := range v1 {
		to := 30
		if k == 2 {
			to = 18
		}
		ls := map[string]string{"pod": p, "service": "cart", "version": "v1", "destination_app": "cart", "source_app": "frontend", "reporter": "destination"}
		succ = append(succ, podSeries{labels: ls, from: 0, to: to, value: constant(1)})
		cpu = append(cpu, podSeries{labels: map[string]string{"pod": p, "service": "cart", "version": "v1"}, from: 0, to: to,
			value: func(i int) float64 { return 0.25 + 0.01*float64((i+k)%3) }})
	}
	if v2Reports {
		ls := map[string]string{"pod": v2, "service": "cart", "version": "v2", "destination_app": "cart", "source_app": "frontend", "reporter": "destination"}
		succ = append(succ, podSeries{labels: ls, from: 19, to: 30, value: constant(v2Success)})
		cpu = append(cpu, podSeries{labels: map[string]string{"pod": v2, "service": "cart", "version": "v2"}, from: 19, to: 30, value: constant(0.26)})
	}
	promFile(t, dir, "istio:request_success:ratio_rate1m", succ)
	promFile(t, dir, "pod:container_cpu_usage:ratio", cpu)
	writeJSON(t, filepath.Join(dir, "events.json"), map[string]any{"apiVersion": "v1", "kind": "List", "items": []any{
		scaleEvent("cart-v2", "Scaled up replica set cart-v2-54455997f4 to 1", 17),
		scaleEvent("cart-v1", "Scaled down replica set cart-v1-7bb89585b4 to 2", 17),
	}})
	return dir
}

func TestRolloutFromEvents(t *testing.T) {
	b := read(t, canary(t, 0.4, true))
	m := Build(b, Params{})
	if len(m.Rollouts) != 1 {
		t.Fatalf("rollouts: %v, want one", m.Rollouts)
	}
	r := m.Rollouts[0]
	if r.Service != "cart" || r.New.Name != "cart-v2-54455997f4" || r.By != "rollout event" || r.Name() != "cart-v2" {
		t.Errorf("rollout %s (name %s), want cart's cart-v2-54455997f4 by rollout event, named cart-v2", r, r.Name())
	}
	if got := r.OldPods(); len(got) != 3 || r.Old[0].Name != "cart-v1-7bb89585b4" || r.Old[0].Version != "v1" {
		t.Errorf("old pods %v (group %+v), want the three v1 pods of cart-v1-7bb89585b4", got, r.Old[0])
	}
	if len(r.New.Asked) != 1 || r.New.Asked[0].To != 1 {
		t.Errorf("asked %v, want one request of 1 pod", r.New.Asked)
	}
	// The new version's success against the old one's, family by family.
	var found bool
	for _, f := range m.Families(b, map[string]bool{"cart-v2-54455997f4-qdpvs": true, "cart-v1-7bb89585b4-29f47": true,
		"cart-v1-7bb89585b4-5ckbg": true, "cart-v1-7bb89585b4-bq22g": true}) {
		if f.Signal != ingest.SignalErrors {
			continue
		}
		found = true
		ct := Compare(f.Series(r.New.Pods), f.Series(r.OldPods()), cells, Params{})
		if ct.Cells != 10 || ct.ScaleFrom != "floor" || math.Abs(ct.Scale-0.05) > 1e-12 {
			t.Errorf("contrast: %d cells, scale %v from %s; want 10 cells, the 5%% floor of a ratio at 1", ct.Cells, ct.Scale, ct.ScaleFrom)
		}
		if d := ct.Diff[25]; math.Abs(d-(-0.6)) > 1e-9 {
			t.Errorf("difference at minute 25 = %v, want -0.6 (0.4 against 1)", d)
		}
	}
	if !found {
		t.Error("no errors family compared")
	}
}

func TestAvailability(t *testing.T) {
	b := read(t, canary(t, 1, false))
	m := Build(b, Params{})
	if len(m.Rollouts) != 1 {
		t.Fatalf("rollouts: %v, want one (asked for, never reporting)", m.Rollouts)
	}
	r := m.Rollouts[0]
	if r.New.By != "rollout event" || len(r.New.Pods) != 0 {
		t.Errorf("new group %+v, want one known only from its event", r.New)
	}
	av := m.Availability(r)
	// Asked for at 00:17:20; the grace ends at 00:20:20.
	for i, want := range map[int]float64{19: math.NaN(), 20: math.NaN(), 21: 0, 29: 0} {
		if got := av[i]; !(got == want || math.IsNaN(got) && math.IsNaN(want)) {
			t.Errorf("availability at minute %d = %v, want %v", i, got, want)
		}
	}
	// With the new pod reporting, it is available.
	b = read(t, canary(t, 1, true))
	m = Build(b, Params{})
	if av := m.Availability(m.Rollouts[0]); av[25] != 1 {
		t.Errorf("availability of a reporting pod = %v, want 1", av[25])
	}
}

// TestRolloutFromVersionLabel: StatefulSet pods (no template hash in the
// name) carry a version label; the v2 group appears in the data and no
// event names it.
func TestRolloutFromVersionLabel(t *testing.T) {
	dir := t.TempDir()
	var ss []podSeries
	for k, p := range []string{"ledger-0", "ledger-1", "ledger-2"} {
		from, version := 0, "1.8.3"
		if k == 2 {
			from, version = 15, "1.9.0" // replaced in place with the new version
		}
		ss = append(ss, podSeries{labels: map[string]string{"pod": p, "app_kubernetes_io_name": "ledger", "app_version": version},
			from: from, to: 30, value: constant(0.1 + 0.05*float64(k))})
	}
	promFile(t, dir, "http_request_duration_seconds_p99", ss)
	m := Build(read(t, dir), Params{})
	if len(m.Rollouts) != 1 {
		t.Fatalf("rollouts %v, want one", m.Rollouts)
	}
	r := m.Rollouts[0]
	if r.By != "new pods in the data" || r.New.Version != "1.9.0" || r.New.By != "version label" || !slices.Equal(r.New.Pods, []string{"ledger-2"}) {
		t.Errorf("rollout %s by %s, new %+v; want ledger-2 at version 1.9.0 by its label", r, r.By, r.New)
	}
}

// TestRolloutFromPodTemplateHash: a Deployment's rolling update with no
// events and no version label: the new ReplicaSet's pods (another
// pod-template hash) appear while the old ones report.
func TestRolloutFromPodTemplateHash(t *testing.T) {
	dir := t.TempDir()
	ss := []podSeries{
		{labels: map[string]string{"pod": "router-6hp46qfntv-gcfjb", "container": "router"}, from: 0, to: 24, value: constant(0.3)},
		{labels: map[string]string{"pod": "router-6hp46qfntv-ph4kk", "container": "router"}, from: 0, to: 26, value: constant(0.3)},
		{labels: map[string]string{"pod": "router-q2qvt2vl7z-lsnbx", "container": "router"}, from: 22, to: 30, value: constant(0.9)},
		{labels: map[string]string{"pod": "router-q2qvt2vl7z-kr9xc", "container": "router"}, from: 23, to: 30, value: constant(0.9)},
	}
	promFile(t, dir, "container_cpu_usage", ss)
	m := Build(read(t, dir), Params{})
	if len(m.Rollouts) != 1 {
		t.Fatalf("rollouts %v, want one", m.Rollouts)
	}
	r := m.Rollouts[0]
	if r.New.Name != "router-q2qvt2vl7z" || r.New.By != "pod-template hash" || r.Name() != "router-q2qvt2vl7z" || len(r.New.Pods) != 2 {
		t.Errorf("rollout %s named %s, new %+v; want ReplicaSet router-q2qvt2vl7z by its hash", r, r.Name(), r.New)
	}
}

// TestScalingIsNotARollout: an autoscaler's scale-up of the ReplicaSet
// that already serves is no new version.
func TestScalingIsNotARollout(t *testing.T) {
	dir := t.TempDir()
	ss := []podSeries{
		{labels: map[string]string{"pod": "api-7c5f94b75d-aaaaa"}, from: 0, to: 30, value: constant(0.3)},
		{labels: map[string]string{"pod": "api-7c5f94b75d-bbbbb"}, from: 21, to: 30, value: constant(0.3)},
	}
	promFile(t, dir, "container_cpu_usage", ss)
	writeJSON(t, filepath.Join(dir, "events.json"), map[string]any{"apiVersion": "v1", "kind": "List", "items": []any{
		scaleEvent("api", "Scaled up replica set api-7c5f94b75d from 1 to 2", 20),
	}})
	if m := Build(read(t, dir), Params{}); len(m.Rollouts) != 0 {
		t.Errorf("rollouts %v, want none (the serving ReplicaSet scaled up)", m.Rollouts)
	}
}

// TestVersionFromOTLP: an OTLP trace's resource names the pod and its
// service.version.
func TestVersionFromOTLP(t *testing.T) {
	dir := t.TempDir()
	span := func(pod, version, id string, minute int) map[string]any {
		start := t0.Add(time.Duration(minute) * time.Minute).UnixNano()
		return map[string]any{"resource": map[string]any{"attributes": []any{
			map[string]any{"key": "service.name", "value": map[string]any{"stringValue": "checkout"}},
			map[string]any{"key": "service.version", "value": map[string]any{"stringValue": version}},
			map[string]any{"key": "k8s.pod.name", "value": map[string]any{"stringValue": pod}},
		}}, "scopeSpans": []any{map[string]any{"spans": []any{map[string]any{
			"traceId": "5b8efff798038103d269b633813fc6" + id, "spanId": "eee19b7ec3c1b1" + id, "name": "POST /checkout", "kind": 2,
			"startTimeUnixNano": fmt.Sprint(start), "endTimeUnixNano": fmt.Sprint(start + 2e7),
		}}}}}
	}
	writeJSON(t, filepath.Join(dir, "traces.otlp.json"), map[string]any{"resourceSpans": []any{
		span("checkout-0", "2.1.0", "00", 1), span("checkout-1", "2.2.0", "01", 2),
	}})
	b := read(t, dir)
	want := []ingest.PodVersion{{Service: "checkout", Pod: "checkout-0", Version: "2.1.0"}, {Service: "checkout", Pod: "checkout-1", Version: "2.2.0"}}
	var got []ingest.PodVersion
	for _, v := range b.PodVersions {
		v.Source = ""
		got = append(got, v)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("pod versions %+v, want %+v", got, want)
	}
	m := Build(b, Params{})
	if p := m.Pods["checkout-1"]; p == nil || p.Version != "2.2.0" {
		t.Errorf("pod checkout-1: %+v, want version 2.2.0", p)
	}
}

// TestCompareBaselineRelation: a member that always ran 0.2 above its
// peers is judged by what changed beyond that, on the spread of its
// baseline difference.
func TestCompareBaselineRelation(t *testing.T) {
	grid := make([]ingest.Time, 30)
	for i := range grid {
		grid[i] = ingest.FromTime(t0.Add(time.Duration(i) * time.Minute))
	}
	mk := func(f func(i int) float64) *ingest.Series {
		v := make([]float64, len(grid))
		for i := range v {
			v[i] = f(i)
		}
		return &ingest.Series{T: grid, V: v, Aligned: true}
	}
	peersOf := []*ingest.Series{mk(func(i int) float64 { return 1 + 0.02*float64(i%3) }), mk(func(i int) float64 { return 1 + 0.02*float64((i+1)%3) })}
	member := mk(func(i int) float64 {
		x := 1.2 + 0.02*float64(i%2)
		if i >= 25 {
			x += 0.5
		}
		return x
	})
	ct := Compare([]*ingest.Series{member}, peersOf, cells, Params{})
	// The baseline difference spreads less than 5% of the peers' level:
	// the scale is that floor.
	if math.Abs(ct.Offset-0.19) > 0.02 || ct.ScaleFrom != "floor" || math.Abs(ct.Scale-0.05) > 0.002 {
		t.Errorf("offset %v, scale %v from %s; want ≈0.19 from the baseline difference, the 5%% floor", ct.Offset, ct.Scale, ct.ScaleFrom)
	}
	if d := ct.Diff[22]; math.Abs(d) > 0.05 {
		t.Errorf("difference at minute 22 = %v, want ≈0 (its usual relation)", d)
	}
	if z := ct.Diff[27] / ct.Scale; z < 5 {
		t.Errorf("contrast at minute 27 = %.1f scales, want a clear departure", z)
	}
}

// TestVersionFromImage: the kubelet's Pulling/Pulled events name the image
// a pod runs; its tag is the pod's version where no label says.
func TestVersionFromImage(t *testing.T) {
	dir := t.TempDir()
	promFile(t, dir, "container_cpu_usage", []podSeries{
		{labels: map[string]string{"pod": "router-6hp46qfntv-gcfjb"}, from: 0, to: 30, value: constant(0.3)},
		{labels: map[string]string{"pod": "router-q2qvt2vl7z-lsnbx"}, from: 22, to: 30, value: constant(0.9)},
	})
	ev := func(pod, msg string, minute int) map[string]any {
		ts := t0.Add(time.Duration(minute) * time.Minute).Format(time.RFC3339)
		return map[string]any{"kind": "Event", "reason": "Pulling", "type": "Normal", "message": msg,
			"involvedObject": map[string]any{"kind": "Pod", "name": pod}, "firstTimestamp": ts, "lastTimestamp": ts}
	}
	writeJSON(t, filepath.Join(dir, "events.json"), map[string]any{"kind": "List", "items": []any{
		ev("router-q2qvt2vl7z-lsnbx", `Pulling image "ghcr.io/acme-ai/llm-router:1.9.0"`, 21),
		ev("router-6hp46qfntv-gcfjb", `Successfully pulled image "ghcr.io/acme-ai/llm-router@sha256:0a1b2c" in 4.7s`, 0),
	}})
	m := Build(read(t, dir), Params{})
	if p := m.Pods["router-q2qvt2vl7z-lsnbx"]; p == nil || p.Version != "1.9.0" {
		t.Errorf("new pod %+v, want version 1.9.0 from its image", p)
	}
	if p := m.Pods["router-6hp46qfntv-gcfjb"]; p == nil || p.Version != "sha256:0a1b2c" {
		t.Errorf("old pod %+v, want its image digest as version", p)
	}
	if len(m.Rollouts) != 1 || m.Rollouts[0].New.Version != "1.9.0" {
		t.Errorf("rollouts %v, want one to 1.9.0", m.Rollouts)
	}
}
