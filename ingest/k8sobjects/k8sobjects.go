package k8sobjects

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"regexp"
	"strings"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
)

// object holds the fields of the kinds read (apps/v1 Deployment,
// ReplicaSet, StatefulSet, DaemonSet; v1 ConfigMap, Secret; batch CronJob
// and Job for the configuration their pods use). A ConfigMap's data and a
// Secret's data and stringData have no field here: they are never kept.
type object struct {
	Kind     string     `json:"kind"`
	Metadata objectMeta `json:"metadata"`
	Spec     struct {
		Replicas    *int64       `json:"replicas"`
		Template    *podTemplate `json:"template"`
		JobTemplate *struct {
			Spec struct {
				Template *podTemplate `json:"template"`
			} `json:"spec"`
		} `json:"jobTemplate"`
	} `json:"spec"`
	Status struct {
		ObservedGeneration int64       `json:"observedGeneration"`
		Replicas           int64       `json:"replicas"`
		ReadyReplicas      int64       `json:"readyReplicas"`
		UpdatedReplicas    int64       `json:"updatedReplicas"`
		CurrentRevision    string      `json:"currentRevision"`
		UpdateRevision     string      `json:"updateRevision"`
		Conditions         []condition `json:"conditions"`
	} `json:"status"`
	Type string `json:"type"` // a Secret's type
}

// objectMeta is the part of metadata read.
type objectMeta struct {
	Name              string            `json:"name"`
	Namespace         string            `json:"namespace"`
	CreationTimestamp string            `json:"creationTimestamp"`
	Generation        int64             `json:"generation"`
	Labels            map[string]string `json:"labels"`
	Annotations       map[string]string `json:"annotations"`
	OwnerReferences   []struct {
		Kind       string `json:"kind"`
		Name       string `json:"name"`
		Controller *bool  `json:"controller"`
	} `json:"ownerReferences"`
	ManagedFields []managedField `json:"managedFields"`
}

// managedField is one entry of metadata.managedFields: who last wrote
// which fields, and when.
type managedField struct {
	Manager     string `json:"manager"`
	Operation   string `json:"operation"`
	Time        string `json:"time"`
	Subresource string `json:"subresource"`
}

// condition is a workload status condition.
type condition struct {
	Type           string `json:"type"`
	Status         string `json:"status"`
	Reason         string `json:"reason"`
	Message        string `json:"message"`
	LastUpdateTime string `json:"lastUpdateTime"`
}

// podTemplate is the part of a pod template read: images and the
// configuration the pods use.
type podTemplate struct {
	Metadata struct {
		Labels map[string]string `json:"labels"`
	} `json:"metadata"`
	Spec struct {
		Containers     []container `json:"containers"`
		InitContainers []container `json:"initContainers"`
		Volumes        []struct {
			ConfigMap *nameRef `json:"configMap"`
			Secret    *struct {
				SecretName string `json:"secretName"`
			} `json:"secret"`
			Projected *struct {
				Sources []struct {
					ConfigMap *nameRef `json:"configMap"`
					Secret    *nameRef `json:"secret"`
				} `json:"sources"`
			} `json:"projected"`
		} `json:"volumes"`
	} `json:"spec"`
}

// container is the part of a container read: what a rollout can change
// (compared between revisions, never printed but the image) and the
// configuration it uses.
type container struct {
	Name      string          `json:"name"`
	Image     string          `json:"image"`
	Command   []string        `json:"command"`
	Args      []string        `json:"args"`
	Resources json.RawMessage `json:"resources"`
	Env       []envVar        `json:"env"`
	EnvFrom   []struct {
		ConfigMapRef *nameRef `json:"configMapRef"`
		SecretRef    *nameRef `json:"secretRef"`
	} `json:"envFrom"`
}

// envVar is one environment variable: its value is compared between
// revisions, never printed.
type envVar struct {
	Name      string `json:"name"`
	Value     string `json:"value"`
	ValueFrom *struct {
		ConfigMapKeyRef *nameRef `json:"configMapKeyRef"`
		SecretKeyRef    *nameRef `json:"secretKeyRef"`
	} `json:"valueFrom"`
}

// nameRef is a reference by name (configMap volume, configMapKeyRef, ...).
type nameRef struct {
	Name string `json:"name"`
}

// decode reads a List (kubectl), a typed list (DeploymentList: its items
// carry no kind), a bare array or one object; see the package comment for
// the events made. Items of other kinds are skipped. A value of the wrong
// type inside an item is counted (ErrBadValue) and the rest of the item is
// used.
func decode(name string, r io.Reader, lim ingest.Limits) (*ingest.Bundle, error) {
	lim = lim.WithDefaults()
	dec := json.NewDecoder(r)
	var raw json.RawMessage
	if err := dec.Decode(&raw); err != nil {
		return nil, ingest.JSONError(name, err, dec)
	}
	raw = bytes.TrimSpace(raw)
	var elems []json.RawMessage
	listKind := ""
	if len(raw) > 0 && raw[0] == '[' {
		if err := json.Unmarshal(raw, &elems); err != nil {
			return nil, ingest.JSONError(name, err, nil)
		}
	} else {
		var list struct {
			Kind  string             `json:"kind"`
			Items *[]json.RawMessage `json:"items"`
		}
		if err := json.Unmarshal(raw, &list); err != nil {
			return nil, ingest.JSONError(name, err, nil)
		}
		if list.Items != nil {
			elems, listKind = *list.Items, strings.TrimSuffix(list.Kind, "List")
		} else {
			elems = []json.RawMessage{raw}
		}
	}
	raw = nil
	s := &snapshot{name: name, lim: lim, b: &ingest.Bundle{}}
	for _, e := range elems {
		var o object
		if err := json.Unmarshal(e, &o); err != nil {
			var te *json.UnmarshalTypeError
			if !errors.As(err, &te) {
				return nil, ingest.JSONError(name, err, nil)
			}
			s.badValues++ // the rest of the object was decoded
		}
		if o.Kind == "" {
			o.Kind = listKind
		}
		s.add(&o)
	}
	s.events()
	return s.b, nil
}

// parseTime parses a Kubernetes time (RFC3339, or MicroTime); ok is false
// when it is empty or unreadable.
func parseTime(v string) (ingest.Time, bool) {
	v = strings.TrimSpace(v)
	if v == "" || v == "null" {
		return 0, false
	}
	t, err := time.Parse(time.RFC3339Nano, v)
	if err != nil || t.Year() <= 1 {
		return 0, false
	}
	return ingest.FromTime(t), true
}

// kindValue finds `"kind": "<Kind>"` of the kinds read.
var kindValue = regexp.MustCompile(`"kind"\s*:\s*"(?:Deployment|ReplicaSet|StatefulSet|DaemonSet|ConfigMap|Secret)(?:List)?"`)

func init() {
	ingest.RegisterFormat(ingest.FormatSpec{Format: ingest.FormatK8sObjects, Decode: decode, WholeDocument: true, History: true,
		Sniff: []ingest.SniffRule{{Priority: ingest.PriorityK8sObjects, Match: func(h *ingest.Head) bool {
			// Events (whose Lists name such kinds as involved objects)
			// are claimed before; an object has metadata.
			return h.JSON() && h.Has("metadata") && h.Has("apiVersion") && !h.Has("involvedObject") && !h.Has("regarding") &&
				kindValue.Match(h.Text)
		}}}})
}
