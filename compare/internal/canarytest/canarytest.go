// Package canarytest generates the synthetic releases that canary mode's
// tests (package compare/canary) and before/after mode's rollout tests
// (package compare) both judge: two services, each with old pods and one
// new pod, written as Prometheus query_range files. Only tests import it
// (driver/layers_test.go lists it as a harness).
package canarytest

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// System describes two services, cart and pay, each with three v1
// pods from the start and one v2 pod from minute 10 of 30, reporting per
// pod a success ratio, a p99 latency and a memory working set, all with
// deterministic pod-to-pod and minute-to-minute variation. The hooks change
// a v2 pod's values; OldUntil (when > 0) stops the v1 pods at that minute.
type System struct {
	Success, Latency, Memory func(svc string, v2 bool, m int) float64
	OldUntil                 int
}

// wiggle is a deterministic variation of a pod in a minute, in [−1, 1].
func wiggle(pod, m int) float64 { return math.Sin(float64(7*pod+3*m) * 0.9) }

// Healthy is a System whose v2 pods behave as its v1 pods.
func Healthy() System {
	return System{
		Success: func(_ string, _ bool, _ int) float64 { return 0.995 },
		Latency: func(_ string, _ bool, _ int) float64 { return 0.120 },
		Memory:  func(_ string, _ bool, _ int) float64 { return 300e6 },
	}
}

// Write writes the system as Prometheus query_range files into a new
// directory and returns it.
func (cs System) Write(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	start := time.Date(2026, 11, 30, 2, 0, 0, 0, time.UTC)
	type ser struct {
		Metric map[string]string `json:"metric"`
		Values [][2]any          `json:"values"`
	}
	files := map[string][]ser{}
	for si, svc := range []string{"cart", "pay"} {
		for p := range 4 {
			v2 := p == 3
			version, hash := "v1", "5d8f7c9b4"
			if v2 {
				version, hash = "v2", "7c9b45d8f"
			}
			pod := fmt.Sprintf("%s-%s-%c%cqrs", svc, hash, "bcdfg"[p], "hjklm"[si]) // a Deployment's pod name
			lbl := func(name string) map[string]string {
				return map[string]string{"__name__": name, "pod": pod, "service": svc, "version": version, "namespace": "shop"}
			}
			s := map[string]ser{"app_request_success_ratio": {Metric: lbl("app_request_success_ratio")},
				"app_request_duration_seconds_p99":   {Metric: lbl("app_request_duration_seconds_p99")},
				"container_memory_working_set_bytes": {Metric: lbl("container_memory_working_set_bytes")}}
			for m := range 30 {
				if v2 && m < 10 || !v2 && cs.OldUntil > 0 && m >= cs.OldUntil {
					continue
				}
				k := 10*si + p
				ts := float64(start.Add(time.Duration(m) * time.Minute).Unix())
				add := func(name string, v float64) {
					x := s[name]
					x.Values = append(x.Values, [2]any{ts, fmt.Sprint(v)})
					s[name] = x
				}
				add("app_request_success_ratio", math.Min(1, cs.Success(svc, v2, m)+0.003*wiggle(k, m)))
				add("app_request_duration_seconds_p99", cs.Latency(svc, v2, m)*(1+0.08*wiggle(k+1, m)))
				add("container_memory_working_set_bytes", cs.Memory(svc, v2, m)*(1+0.05*wiggle(k+2, m)))
			}
			for name, x := range s {
				files[name] = append(files[name], x)
			}
		}
	}
	for name, rs := range files {
		raw, err := json.Marshal(map[string]any{"status": "success", "data": map[string]any{"resultType": "matrix", "result": rs}})
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "metrics_"+name+".json"), raw, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}
