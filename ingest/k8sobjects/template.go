package k8sobjects

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
)

// configRef is a ConfigMap or Secret a pod template uses.
type configRef struct{ kind, name string }

func (r configRef) String() string { return r.kind + "/" + r.name }

// refs returns the ConfigMaps and Secrets a pod template uses (volumes,
// projected volumes, envFrom, env valueFrom), sorted, without duplicates.
// nil for a nil template.
func (t *podTemplate) refs() []configRef {
	if t == nil {
		return nil
	}
	var out []configRef
	add := func(kind string, r *nameRef) {
		if r != nil && r.Name != "" {
			out = append(out, configRef{kind, r.Name})
		}
	}
	for _, v := range t.Spec.Volumes {
		add("ConfigMap", v.ConfigMap)
		if v.Secret != nil {
			add("Secret", &nameRef{v.Secret.SecretName})
		}
		if v.Projected != nil {
			for _, src := range v.Projected.Sources {
				add("ConfigMap", src.ConfigMap)
				add("Secret", src.Secret)
			}
		}
	}
	for _, c := range t.containers() {
		for _, e := range c.EnvFrom {
			add("ConfigMap", e.ConfigMapRef)
			add("Secret", e.SecretRef)
		}
		for _, e := range c.Env {
			if e.ValueFrom != nil {
				add("ConfigMap", e.ValueFrom.ConfigMapKeyRef)
				add("Secret", e.ValueFrom.SecretKeyRef)
			}
		}
	}
	slices.SortFunc(out, func(a, b configRef) int { return strings.Compare(a.String(), b.String()) })
	return slices.Compact(out)
}

// containers returns the init containers, then the containers.
func (t *podTemplate) containers() []container {
	if t == nil {
		return nil
	}
	return append(slices.Clone(t.Spec.InitContainers), t.Spec.Containers...)
}

// images renders the containers' images, "name=image, ...".
func (t *podTemplate) images() string {
	var parts []string
	for _, c := range t.containers() {
		parts = append(parts, c.Name+"="+c.Image)
	}
	return strings.Join(parts, ", ")
}

// diff says what changed from the template before (prev) to t: images as
// "name old → new", containers added or removed, and the names of the
// containers whose command, args, env or resources changed (their values
// are never printed: an env value may be a credential), and the
// configuration references added or removed. Empty when nothing it reads
// changed.
func diff(prev, t *podTemplate) []string {
	var out []string
	old := map[string]container{}
	for _, c := range prev.containers() {
		old[c.Name] = c
	}
	seen := map[string]bool{}
	for _, c := range t.containers() {
		seen[c.Name] = true
		o, ok := old[c.Name]
		if !ok {
			out = append(out, "container "+c.Name+" added ("+c.Image+")")
			continue
		}
		if o.Image != c.Image {
			out = append(out, c.Name+" "+o.Image+" → "+c.Image)
		}
		var what []string
		if !slices.Equal(o.Command, c.Command) {
			what = append(what, "command")
		}
		if !slices.Equal(o.Args, c.Args) {
			what = append(what, "args")
		}
		if !sameEnv(o.Env, c.Env) {
			what = append(what, "env")
		}
		if !sameJSON(o.Resources, c.Resources) {
			what = append(what, "resources")
		}
		if len(what) > 0 {
			out = append(out, strings.Join(what, ", ")+" of "+c.Name)
		}
	}
	for _, c := range prev.containers() {
		if !seen[c.Name] {
			out = append(out, "container "+c.Name+" removed")
		}
	}
	was, is := prev.refs(), t.refs()
	for _, r := range is {
		if !slices.Contains(was, r) {
			out = append(out, "uses "+r.String())
		}
	}
	for _, r := range was {
		if !slices.Contains(is, r) {
			out = append(out, "no longer uses "+r.String())
		}
	}
	return out
}

// sameEnv compares two containers' environments: names, values and
// references, in order.
func sameEnv(a, b []envVar) bool {
	return slices.EqualFunc(a, b, func(x, y envVar) bool {
		if x.Name != y.Name || x.Value != y.Value || (x.ValueFrom == nil) != (y.ValueFrom == nil) {
			return false
		}
		if x.ValueFrom == nil {
			return true
		}
		return refName(x.ValueFrom.ConfigMapKeyRef) == refName(y.ValueFrom.ConfigMapKeyRef) &&
			refName(x.ValueFrom.SecretKeyRef) == refName(y.ValueFrom.SecretKeyRef)
	})
}

func refName(r *nameRef) string {
	if r == nil {
		return ""
	}
	return r.Name
}

// sameJSON compares two JSON values as compacted text (absent and null
// and {} alike).
func sameJSON(a, b json.RawMessage) bool {
	norm := func(r json.RawMessage) []byte {
		var buf bytes.Buffer
		if json.Compact(&buf, r) != nil {
			return bytes.TrimSpace(r)
		}
		if s := buf.String(); s == "null" || s == "{}" {
			return nil
		}
		return buf.Bytes()
	}
	return bytes.Equal(norm(a), norm(b))
}
