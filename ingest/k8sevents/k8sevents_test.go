package k8sevents

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
)

func TestK8sEventsList(t *testing.T) {
	b, err := ingest.ReadFile(filepath.Join("testdata", "k8s_events.json"), nil, ingest.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if f := b.Inputs[0].Format; f != ingest.FormatK8sEvents || len(b.Events) != 8 || len(b.Warnings) != 0 {
		t.Fatalf("format %v, %d events, warnings %v; want k8s-events, 8, none", f, len(b.Events), b.Warnings)
	}
	tests := []struct {
		name   string
		i      int
		kind   ingest.EventKind
		reason string
		time   string
		count  int
		entity ingest.Entity
	}{
		{"deployment scaling", 0, ingest.EventDeploy, "ScalingReplicaSet", "2022-08-22T03:52:10.000Z", 1, ingest.Entity{Kind: ingest.KindService, Name: "frontend", Service: "frontend"}},
		{"replicaset create", 1, ingest.EventDeploy, "SuccessfulCreate", "2022-08-22T03:52:11.000Z", 1, ingest.Entity{Kind: ingest.KindService, Name: "frontend", Service: "frontend"}},
		{"scheduled", 2, ingest.EventSchedule, "Scheduled", "2022-08-22T03:52:11.000Z", 1,
			ingest.Entity{Kind: ingest.KindPod, Name: "frontend-6c8d7f9b54-q7w2z", Service: "frontend"}},
		{"backoff uses lastTimestamp", 3, ingest.EventBackOff, "BackOff", "2022-08-22T03:58:40.000Z", 3,
			ingest.Entity{Kind: ingest.KindPod, Name: "cartservice-579f59597d-wc2lz", Service: "cartservice", Node: "33.33.33.80"}},
		{"oom", 4, ingest.EventOOMKill, "OOMKilled", "2022-08-22T03:53:58.000Z", 1,
			ingest.Entity{Kind: ingest.KindPod, Name: "cartservice-579f59597d-wc2lz", Service: "cartservice", Node: "33.33.33.80"}},
		{"started is restart", 5, ingest.EventRestart, "Started", "2022-08-22T03:56:20.000Z", 2,
			ingest.Entity{Kind: ingest.KindPod, Name: "cartservice-579f59597d-wc2lz", Service: "cartservice", Node: "33.33.33.80"}},
		{"node warning", 6, ingest.EventWarning, "NodeHasDiskPressure", "2022-08-22T03:55:30.000Z", 1,
			ingest.Entity{Kind: ingest.KindNode, Name: "33.33.33.115", Node: "33.33.33.115"}},
		{"configmap update", 7, ingest.EventConfig, "Updated", "2022-08-22T03:51:50.000Z", 1, ingest.Entity{Kind: ingest.KindUnknown, Name: "configmap/frontend-config"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := b.Events[tt.i]
			if e.Kind != tt.kind || e.Reason != tt.reason || e.Time.String() != tt.time || e.Count != tt.count || e.Entity != tt.entity {
				t.Errorf("event %d = {%v %s %s %d %+v}, want {%v %s %s %d %+v}", tt.i, e.Kind, e.Reason, e.Time, e.Count, e.Entity,
					tt.kind, tt.reason, tt.time, tt.count, tt.entity)
			}
			if e.Message == "" || e.Source != filepath.Join("testdata", "k8s_events.json") {
				t.Errorf("message %q source %q", e.Message, e.Source)
			}
		})
	}
}

func TestK8sEventsShapes(t *testing.T) {
	tests := []struct {
		name   string
		file   string
		body   string
		n      int
		kind   ingest.EventKind
		time   string
		count  int
		entity ingest.Entity
		msg    string
		err    string
		warn   error
	}{
		{name: "events.k8s.io/v1 single", file: "testdata/k8s_events_v1.json", n: 1, kind: ingest.EventWarning, time: "2022-08-23T10:16:33.118Z", count: 4,
			entity: ingest.Entity{Kind: ingest.KindPod, Name: "vllm-0", Service: "vllm", Node: "gpu-node-1"}, msg: "failed liveness probe"},
		{name: "bare array", body: `[{"kind":"Event","involvedObject":{"kind":"Node","name":"gpu-node-2"},"reason":"NVIDIAXidError","message":"Xid 79: GPU has fallen off the bus","type":"Warning","firstTimestamp":"2024-01-01T00:00:00Z"}]`,
			n: 1, kind: ingest.EventXID, time: "2024-01-01T00:00:00.000Z", count: 1, entity: ingest.Entity{Kind: ingest.KindNode, Name: "gpu-node-2", Node: "gpu-node-2"}, msg: "Xid 79"},
		{name: "event without time", body: `{"kind":"Event","involvedObject":{"kind":"StatefulSet","name":"vllm"},"reason":"SuccessfulCreate","message":"create Pod vllm-0"}`,
			n: 1, kind: ingest.EventDeploy, time: "-", count: 1, entity: ingest.Entity{Kind: ingest.KindService, Name: "vllm", Service: "vllm"}, msg: "create Pod", warn: ingest.ErrBadValue},
		{name: "empty list", body: `{"apiVersion":"v1","items":[],"kind":"List"}`, n: 0},
		{name: "malformed", body: `{"kind":"EventList","items":[{"involvedObject":`, err: "unexpected end"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b *ingest.Bundle
			var err error
			if tt.file != "" {
				b, err = ingest.ReadFile(filepath.FromSlash(tt.file), nil, ingest.Limits{})
			} else {
				b, err = decodeK8sEvents("events.json", strings.NewReader(tt.body), ingest.Limits{})
			}
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
			if len(b.Events) != tt.n {
				t.Fatalf("%d events, want %d", len(b.Events), tt.n)
			}
			if tt.n > 0 {
				e := b.Events[0]
				if e.Kind != tt.kind || e.Time.String() != tt.time || e.Count != tt.count || e.Entity != tt.entity || !strings.Contains(e.Message, tt.msg) {
					t.Errorf("event {%v %s %d %+v %q}", e.Kind, e.Time, e.Count, e.Entity, e.Message)
				}
			}
			if tt.warn == nil && len(b.Warnings) > 0 || tt.warn != nil && (len(b.Warnings) != 1 || !errors.Is(b.Warnings[0], tt.warn)) {
				t.Errorf("warnings %v, want %v", b.Warnings, tt.warn)
			}
		})
	}
}
