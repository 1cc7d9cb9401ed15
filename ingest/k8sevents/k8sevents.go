package k8sevents

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
)

// k8sObjectRef is an involvedObject (core/v1) or regarding (events.k8s.io/v1).
type k8sObjectRef struct {
	Kind      string `json:"kind"`
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	FieldPath string `json:"fieldPath"`
}

// k8sEvent holds the fields of both Event shapes: core/v1 (involvedObject,
// message, count, firstTimestamp/lastTimestamp, source) and events.k8s.io/v1
// (regarding, note, eventTime, series, deprecated* fields).
type k8sEvent struct {
	Kind     string `json:"kind"`
	Metadata struct {
		Name              string `json:"name"`
		CreationTimestamp string `json:"creationTimestamp"`
	} `json:"metadata"`
	InvolvedObject *k8sObjectRef `json:"involvedObject"`
	Regarding      *k8sObjectRef `json:"regarding"`
	Reason         string        `json:"reason"`
	Message        string        `json:"message"`
	Note           string        `json:"note"`
	Type           string        `json:"type"`
	Count          int           `json:"count"`
	DeprecatedCnt  int           `json:"deprecatedCount"`
	FirstTimestamp string        `json:"firstTimestamp"`
	LastTimestamp  string        `json:"lastTimestamp"`
	EventTime      string        `json:"eventTime"`
	DeprecatedLast string        `json:"deprecatedLastTimestamp"`
	DeprecatedFrst string        `json:"deprecatedFirstTimestamp"`
	Series         *struct {
		Count            int    `json:"count"`
		LastObservedTime string `json:"lastObservedTime"`
	} `json:"series"`
	Source struct {
		Component string `json:"component"`
		Host      string `json:"host"`
	} `json:"source"`
	DeprecatedSource struct {
		Component string `json:"component"`
		Host      string `json:"host"`
	} `json:"deprecatedSource"`
	ReportingController string `json:"reportingController"`
	ReportingInstance   string `json:"reportingInstance"`
}

// decodeK8sEvents reads `kubectl get events -o json` output (a List or
// EventList with "items"), a single Event, or a bare array of events, in
// either the core/v1 or the events.k8s.io/v1 shape, into Bundle.Events in
// input order.
//
// Time is the last time seen (lastTimestamp, series.lastObservedTime,
// eventTime, firstTimestamp, their deprecated* twins, then
// metadata.creationTimestamp); an event without any is kept at time zero
// with an ErrBadValue warning. Count is count/series.count/deprecatedCount,
// at least 1. Entity and Kind come from k8sEntity and k8sEventKind.
func decodeK8sEvents(name string, r io.Reader, lim ingest.Limits) (*ingest.Bundle, error) {
	dec := json.NewDecoder(r)
	var raw json.RawMessage
	if err := dec.Decode(&raw); err != nil {
		return nil, ingest.JSONError(name, err, dec)
	}
	raw = bytes.TrimSpace(raw)
	lim = lim.WithDefaults()
	// Split into raw elements first, decode only the first lim.MaxEvents.
	var elems []json.RawMessage
	if len(raw) > 0 && raw[0] == '[' {
		if err := json.Unmarshal(raw, &elems); err != nil {
			return nil, ingest.JSONError(name, err, nil)
		}
	} else {
		var list struct {
			Items *[]json.RawMessage `json:"items"`
		}
		if err := json.Unmarshal(raw, &list); err != nil {
			return nil, ingest.JSONError(name, err, nil)
		}
		if list.Items != nil {
			elems = *list.Items
		} else {
			elems = []json.RawMessage{raw}
		}
	}
	b := &ingest.Bundle{}
	if n := len(elems); n > lim.MaxEvents {
		b.Warn(ingest.ErrLimit, name, n-lim.MaxEvents, "%d of %d events dropped: more than %d (--max-events)", n-lim.MaxEvents, n, lim.MaxEvents)
		elems = elems[:lim.MaxEvents]
	}
	evs := make([]k8sEvent, len(elems))
	for i, e := range elems {
		if err := json.Unmarshal(e, &evs[i]); err != nil {
			return nil, ingest.JSONError(name, err, nil)
		}
	}
	elems = nil
	noTime := 0
	for i := range evs {
		e := &evs[i]
		obj := e.InvolvedObject
		if obj == nil {
			obj = e.Regarding
		}
		if obj == nil {
			obj = &k8sObjectRef{}
		}
		ev := ingest.Event{
			Entity:  k8sEntity(obj, e),
			Object:  k8sObject(obj),
			Reason:  e.Reason,
			Message: ingest.FirstNonEmpty(e.Message, e.Note),
			Count:   max(1, e.Count, e.DeprecatedCnt),
			Source:  name,
		}
		if e.Series != nil && e.Series.Count > ev.Count {
			ev.Count = e.Series.Count
		}
		ev.Kind = k8sEventKind(obj.Kind, e.Reason, ev.Message, e.Type)
		var last string
		if e.Series != nil {
			last = e.Series.LastObservedTime
		}
		t, ok := firstK8sTime(e.LastTimestamp, last, e.EventTime, e.FirstTimestamp, e.DeprecatedLast, e.DeprecatedFrst, e.Metadata.CreationTimestamp)
		if !ok {
			noTime++
		}
		ev.Time = t
		b.Events = append(b.Events, ev)
	}
	if noTime > 0 {
		b.Warn(ingest.ErrBadValue, name, noTime, "%d events without a timestamp", noTime)
	}
	return b, nil
}

// firstK8sTime parses the first non-empty RFC3339 (or MicroTime) value.
func firstK8sTime(vs ...string) (ingest.Time, bool) {
	for _, v := range vs {
		v = strings.TrimSpace(v)
		if v == "" || v == "null" {
			continue
		}
		if t, err := time.Parse(time.RFC3339Nano, v); err == nil && t.Year() > 1 {
			return ingest.FromTime(t), true
		}
	}
	return 0, false
}

// k8sEntity places an event: a Pod is a pod entity of WorkloadOf(name)
// (on the reporting kubelet's host); Deployment, StatefulSet, DaemonSet,
// ReplicaSet (hash stripped), HPA, Job and Service objects are service
// entities; a Node is a node entity. Other kinds (ConfigMap, ...) keep
// their name as "kind/name" with KindUnknown.
func k8sEntity(obj *k8sObjectRef, e *k8sEvent) ingest.Entity {
	host := ingest.FirstNonEmpty(e.Source.Host, e.DeprecatedSource.Host)
	if host == "" && strings.Contains(e.ReportingController, "kubelet") || e.Source.Component == "kubelet" && host == "" {
		host = e.ReportingInstance
	}
	host = ingest.NormalizeHost(host)
	switch strings.ToLower(obj.Kind) {
	case "pod":
		return ingest.Entity{Kind: ingest.KindPod, Name: obj.Name, Service: ingest.WorkloadOf(obj.Name), Node: host}
	case "deployment", "statefulset", "daemonset", "service", "job", "cronjob", "horizontalpodautoscaler", "rollout":
		return ingest.Entity{Kind: ingest.KindService, Name: obj.Name, Service: obj.Name}
	case "replicaset":
		w := ingest.WorkloadOf(obj.Name)
		return ingest.Entity{Kind: ingest.KindService, Name: w, Service: w}
	case "node":
		h := ingest.NormalizeHost(obj.Name)
		return ingest.Entity{Kind: ingest.KindNode, Name: h, Node: h}
	case "":
		return ingest.Entity{}
	}
	return ingest.Entity{Kind: ingest.KindUnknown, Name: strings.ToLower(obj.Kind) + "/" + obj.Name}
}

// k8sObject names an involved object "Kind/name" ("" when it has no name).
func k8sObject(obj *k8sObjectRef) string {
	if obj.Name == "" {
		return ""
	}
	if obj.Kind == "" {
		return obj.Name
	}
	return obj.Kind + "/" + obj.Name
}

// k8sEventKind maps an event's reason (and object kind, message, type) to
// an EventKind:
//
//   - xid: reasons or messages naming an NVIDIA Xid;
//   - oom_kill: OOMKilled, OOMKilling, "out of memory" messages;
//   - backoff: BackOff, CrashLoopBackOff, ImagePullBackOff;
//   - schedule: Scheduled, FailedScheduling, Preempted;
//   - deploy: ScalingReplicaSet, SuccessfulRescale, SuccessfulCreate or
//     SuccessfulDelete of a ReplicaSet/StatefulSet/DaemonSet, rollout reasons;
//   - config: Updated, or any event on a ConfigMap or Secret;
//   - restart: Killing, Started, Created, Pulled, Pulling, Restarted,
//     Evicted, SandboxChanged;
//   - warning: any other Warning-type event; other: the rest.
func k8sEventKind(objKind, reason, msg, typ string) ingest.EventKind {
	r := strings.ToLower(reason)
	m := strings.ToLower(msg)
	ok := strings.ToLower(objKind)
	switch {
	case strings.Contains(r, "xid") || strings.Contains(m, "xid "):
		return ingest.EventXID
	case strings.Contains(r, "oom") || strings.Contains(m, "out of memory") || strings.Contains(m, "oomkilled"):
		return ingest.EventOOMKill
	case strings.Contains(r, "backoff"):
		return ingest.EventBackOff
	}
	switch r {
	case "scheduled", "failedscheduling", "preempted", "preempting":
		return ingest.EventSchedule
	case "scalingreplicaset", "successfulrescale", "deploymentrollback", "deploymentupdated", "rolloutupdated":
		return ingest.EventDeploy
	case "successfulcreate", "successfuldelete":
		if ok == "replicaset" || ok == "statefulset" || ok == "daemonset" {
			return ingest.EventDeploy
		}
	case "updated", "configchanged", "configmapupdated":
		return ingest.EventConfig
	case "killing", "started", "created", "pulled", "pulling", "restarted", "evicted", "sandboxchanged":
		return ingest.EventRestart
	}
	switch {
	case strings.Contains(r, "rollout"):
		return ingest.EventDeploy
	case ok == "configmap" || ok == "secret":
		return ingest.EventConfig
	case strings.EqualFold(typ, "Warning"):
		return ingest.EventWarning
	}
	return ingest.EventOther
}

func init() {
	ingest.RegisterFormat(ingest.FormatSpec{Format: ingest.FormatK8sEvents, Decode: decodeK8sEvents, WholeDocument: true,
		Sniff: []ingest.SniffRule{
			{Priority: ingest.PriorityK8sEventsV1, Match: func(h *ingest.Head) bool { // events.k8s.io/v1
				return h.JSON() && h.Has("regarding") && (h.Has("note") || h.Has("reason")) && h.Has("eventTime")
			}},
			{Priority: ingest.PriorityK8sEventsCore, Match: func(h *ingest.Head) bool {
				return h.JSON() && (h.Has("kind") && (bytes.Contains(h.Text, []byte(`"EventList"`)) || bytes.Contains(h.Text, []byte(`"Event"`))) && h.Has("involvedObject") ||
					h.Has("involvedObject") && h.Has("reason"))
			}},
		}})
}
