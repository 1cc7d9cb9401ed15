package k8sobjects

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
)

// Annotations and labels the controllers set.
const (
	annRevision        = "deployment.kubernetes.io/revision"
	annRevisionHistory = "deployment.kubernetes.io/revision-history"
	annChangeCause     = "kubernetes.io/change-cause"
	labelTemplateHash  = "pod-template-hash"
)

// workload is a workload a ConfigMap or Secret is used by.
type workload struct{ kind, name string }

// useKey is a ConfigMap or Secret in a namespace.
type useKey struct{ ns, kind, name string }

// snapshot collects one input's objects, then turns them into events.
type snapshot struct {
	name string
	lim  ingest.Limits
	b    *ingest.Bundle

	replicaSets, workloads, configs []object
	uses                            map[useKey][]workload // the workloads whose pods use a ConfigMap or Secret
	byOwner                         map[string][]*object  // a Deployment's ReplicaSets ("namespace/name"), in order of creation

	out []ingest.Event
	// what was wrong, counted for the warnings
	badValues, noTime, noManaged, truncated int
	noManagedKinds                          map[string]bool
}

// add files one object by kind and records the configuration its pod
// template uses. Kinds not read are skipped.
func (s *snapshot) add(o *object) {
	switch o.Kind {
	case "ReplicaSet":
		s.replicaSets = append(s.replicaSets, *o)
		s.use(o, workload{"Deployment", ownerOf(o)}, o.Spec.Template)
	case "Deployment", "StatefulSet", "DaemonSet":
		s.workloads = append(s.workloads, *o)
		s.use(o, workload{o.Kind, o.Metadata.Name}, o.Spec.Template)
	case "CronJob":
		if o.Spec.JobTemplate != nil {
			s.use(o, workload{o.Kind, o.Metadata.Name}, o.Spec.JobTemplate.Spec.Template)
		}
	case "Job":
		s.use(o, workload{o.Kind, ingest.WorkloadOf(o.Metadata.Name)}, o.Spec.Template)
	case "ConfigMap", "Secret":
		s.configs = append(s.configs, *o)
	}
}

// use records that w's pods (template t) use each ConfigMap and Secret t
// names.
func (s *snapshot) use(o *object, w workload, t *podTemplate) {
	for _, r := range t.refs() {
		if s.uses == nil {
			s.uses = map[useKey][]workload{}
		}
		k := useKey{o.Metadata.Namespace, r.kind, r.name}
		if !slices.Contains(s.uses[k], w) {
			s.uses[k] = append(s.uses[k], w)
		}
	}
}

// ownerOf names the Deployment of a ReplicaSet: its controller owner
// reference, else its name without the pod-template-hash, else
// ingest.WorkloadOf of its name.
func ownerOf(o *object) string {
	for _, r := range o.Metadata.OwnerReferences {
		if r.Kind == "Deployment" && r.Name != "" && (r.Controller == nil || *r.Controller) {
			return r.Name
		}
	}
	if h := o.Metadata.Labels[labelTemplateHash]; h != "" {
		if base, ok := strings.CutSuffix(o.Metadata.Name, "-"+h); ok && base != "" {
			return base
		}
	}
	return ingest.WorkloadOf(o.Metadata.Name)
}

// service is the entity of a workload: its service, as k8sevents names a
// Deployment's.
func service(name string) ingest.Entity {
	return ingest.Entity{Kind: ingest.KindService, Name: name, Service: name}
}

// emit adds one event.
func (s *snapshot) emit(t ingest.Time, ent ingest.Entity, kind ingest.EventKind, reason, object, msg string) {
	if len(msg) > s.lim.MaxStringBytes {
		msg = ingest.TruncateUTF8(msg, s.lim.MaxStringBytes)
		s.truncated++
	}
	s.out = append(s.out, ingest.Event{Time: t, Entity: ent, Kind: kind, Reason: reason, Message: msg, Object: object, Count: 1, Source: s.name})
}

// events makes the events of the objects collected (ReplicaSets, then
// workloads, then configuration), sorts them by time (then object, entity
// and reason: a total order for equal times), keeps the newest
// Limits.MaxEvents and records the warnings. O(objects log objects).
func (s *snapshot) events() {
	reused, owned := s.replicaSetEvents()
	s.workloadEvents(reused, owned)
	s.configEvents()
	slices.SortFunc(s.out, func(a, b ingest.Event) int {
		return cmp.Or(cmp.Compare(a.Time, b.Time), strings.Compare(a.Object, b.Object), strings.Compare(a.Entity.Name, b.Entity.Name),
			strings.Compare(a.Reason, b.Reason), strings.Compare(a.Message, b.Message))
	})
	if n := len(s.out); n > s.lim.MaxEvents {
		s.b.Warn(ingest.ErrLimit, s.name, n-s.lim.MaxEvents, "%d of %d changes dropped, the oldest: more than %d (--max-events)", n-s.lim.MaxEvents, n, s.lim.MaxEvents)
		s.out = s.out[n-s.lim.MaxEvents:]
	}
	s.b.Events = s.out
	if s.noTime > 0 {
		s.b.Warn(ingest.ErrBadValue, s.name, s.noTime, "%d objects without a readable creationTimestamp skipped", s.noTime)
	}
	if s.badValues > 0 {
		s.b.Warn(ingest.ErrBadValue, s.name, s.badValues, "%d objects hold a value of the wrong type (the rest of each was read)", s.badValues)
	}
	if s.truncated > 0 {
		s.b.Warn(ingest.ErrLimit, s.name, s.truncated, "%d messages longer than %d bytes truncated", s.truncated, s.lim.MaxStringBytes)
	}
	if s.noManaged > 0 {
		s.b.Warn(ingest.ErrPartialInput, s.name, s.noManaged,
			"%d objects (%s) carry no metadata.managedFields: an update since their creation cannot be dated (kubectl 1.21 and later omit them unless --show-managed-fields)",
			s.noManaged, strings.Join(slices.Sorted(maps.Keys(s.noManagedKinds)), ", "))
	}
}

// noManagedFields counts an object whose updates cannot be dated.
func (s *snapshot) noManagedFields(o *object) {
	s.noManaged++
	if s.noManagedKinds == nil {
		s.noManagedKinds = map[string]bool{}
	}
	s.noManagedKinds[o.Kind] = true
}

// revision is a ReplicaSet's revision number (0 when it has none).
func revision(o *object) int {
	n, _ := strconv.Atoi(strings.TrimSpace(o.Metadata.Annotations[annRevision]))
	return n
}

// replicaSetEvents makes a rollout event of every ReplicaSet, at its
// creation, its message naming its revision, images, what changed from
// the revision before it in the snapshot, its replicas and the change
// cause when one is recorded. It returns the ReplicaSets used again (by
// "namespace/name") and the Deployments whose ReplicaSets are here (by
// "namespace/name").
func (s *snapshot) replicaSetEvents() (reused map[string]*object, owned map[string]bool) {
	reused, owned = map[string]*object{}, map[string]bool{}
	byOwner := map[string][]*object{}
	s.byOwner = byOwner
	for i := range s.replicaSets {
		o := &s.replicaSets[i]
		k := o.Metadata.Namespace + "/" + ownerOf(o)
		byOwner[k] = append(byOwner[k], o)
		owned[k] = true
		if o.Metadata.Annotations[annRevisionHistory] != "" {
			reused[o.Metadata.Namespace+"/"+o.Metadata.Name] = o
		}
	}
	for _, k := range slices.Sorted(maps.Keys(byOwner)) {
		rss := byOwner[k]
		// In order of creation: a ReplicaSet used again (a rollback)
		// keeps its creation time and takes a new revision number.
		slices.SortStableFunc(rss, func(a, b *object) int {
			ta, _ := parseTime(a.Metadata.CreationTimestamp)
			tb, _ := parseTime(b.Metadata.CreationTimestamp)
			return cmp.Or(cmp.Compare(ta, tb), cmp.Compare(revision(a), revision(b)), strings.Compare(a.Metadata.Name, b.Metadata.Name))
		})
		s.byOwner[k] = rss
		for i, o := range rss {
			t, ok := parseTime(o.Metadata.CreationTimestamp)
			if !ok {
				s.noTime++
				continue
			}
			var prev *object
			if i > 0 {
				prev = rss[i-1]
			}
			owner := ownerOf(o)
			s.emit(t, service(owner), ingest.EventDeploy, "ReplicaSetCreated", "ReplicaSet/"+o.Metadata.Name, rolloutMessage(o, owner, prev))
		}
	}
	return reused, owned
}

// rolloutMessage describes a ReplicaSet's revision: "revision 7 of
// Deployment/router: router ghcr.io/…:1.8.3 → ghcr.io/…:1.9.0; replicas 2
// (2 ready); change-cause: …".
func rolloutMessage(o *object, owner string, prev *object) string {
	var b strings.Builder
	if r := revision(o); r > 0 {
		fmt.Fprintf(&b, "revision %d of ", r)
	}
	b.WriteString("Deployment/" + owner + ": ")
	switch {
	case prev == nil:
		b.WriteString(o.Spec.Template.images())
	default:
		if d := diff(prev.Spec.Template, o.Spec.Template); len(d) > 0 {
			b.WriteString(strings.Join(d, "; "))
		} else {
			b.WriteString("pod template changed (" + o.Spec.Template.images() + ")")
		}
		if r := revision(prev); r > 0 && r < revision(o) {
			fmt.Fprintf(&b, " (from revision %d)", r)
		}
	}
	if h := o.Metadata.Annotations[annRevisionHistory]; h != "" {
		b.WriteString("; earlier revisions " + h)
	}
	if o.Spec.Replicas != nil {
		fmt.Fprintf(&b, "; replicas %d (%d ready)", *o.Spec.Replicas, o.Status.ReadyReplicas)
	}
	if c := o.Metadata.Annotations[annChangeCause]; c != "" {
		b.WriteString("; change-cause: " + c)
	}
	return b.String()
}

// reuseMessage describes a ReplicaSet used again by its Deployment (key
// "namespace/name"): what changed from the revision that ran before it.
func (s *snapshot) reuseMessage(rs *object, key string) string {
	var before *object
	for _, o := range s.byOwner[key] {
		if r := revision(o); o != rs && r < revision(rs) && (before == nil || r > revision(before)) {
			before = o
		}
	}
	msg := fmt.Sprintf("revision %d of Deployment/%s uses ReplicaSet %s again (its revisions before: %s): ", revision(rs), ownerOf(rs),
		rs.Metadata.Name, rs.Metadata.Annotations[annRevisionHistory])
	if before == nil {
		return msg + rs.Spec.Template.images()
	}
	if d := diff(before.Spec.Template, rs.Spec.Template); len(d) > 0 {
		return msg + strings.Join(d, "; ") + fmt.Sprintf(" (from revision %d)", revision(before))
	}
	return msg + rs.Spec.Template.images()
}

// progressing returns a workload's Progressing condition, nil when none.
func progressing(o *object) *condition {
	for i := range o.Status.Conditions {
		if o.Status.Conditions[i].Type == "Progressing" {
			return &o.Status.Conditions[i]
		}
	}
	return nil
}

// conditionReplicaSet is the ReplicaSet a Progressing condition's message
// names (`ReplicaSet "router-6d9f8b7c5" has successfully progressed.`).
func conditionReplicaSet(msg string) string {
	_, rest, ok := strings.Cut(msg, `ReplicaSet "`)
	if !ok {
		return ""
	}
	name, _, _ := strings.Cut(rest, `"`)
	return name
}

// workloadEvents dates the workloads: a Deployment past its progress
// deadline is a warning; a Deployment whose ReplicaSets are in the
// snapshot adds only the reuse of an old one (a rollback); the others are
// dated by their Progressing condition, else their last spec update, else
// their creation. A scale through the scale subresource is an event of
// its own.
func (s *snapshot) workloadEvents(reused map[string]*object, owned map[string]bool) {
	for i := range s.workloads {
		o := &s.workloads[i]
		ns, name := o.Metadata.Namespace, o.Metadata.Name
		obj := o.Kind + "/" + name
		p := progressing(o)
		if o.Kind == "Deployment" && p != nil {
			t, ok := parseTime(p.LastUpdateTime)
			switch {
			case ok && p.Reason == "ProgressDeadlineExceeded":
				s.emit(t, service(name), ingest.EventWarning, p.Reason, obj, p.Message)
			case ok && owned[ns+"/"+name]:
				if rs := reused[ns+"/"+conditionReplicaSet(p.Message)]; rs != nil {
					if created, _ := parseTime(rs.Metadata.CreationTimestamp); t > created {
						s.emit(t, service(name), ingest.EventDeploy, "ReplicaSetReused", "ReplicaSet/"+rs.Metadata.Name, s.reuseMessage(rs, ns+"/"+name))
					}
				}
			case ok && (p.Reason == "NewReplicaSetAvailable" || p.Reason == "ReplicaSetUpdated"):
				s.emit(t, service(name), ingest.EventDeploy, p.Reason, obj, workloadMessage(o)+": "+p.Message)
				s.scaled(o)
				continue
			}
		}
		s.scaled(o)
		if o.Kind == "Deployment" && owned[ns+"/"+name] {
			continue // its ReplicaSets date its rollouts
		}
		s.specUpdate(o)
	}
}

// specUpdate dates a workload's last spec change: the latest
// managedFields entry that is not of the status or scale subresource when
// its generation says the spec changed after creation, else its creation.
func (s *snapshot) specUpdate(o *object) {
	obj := o.Kind + "/" + o.Metadata.Name
	if t, who, ok := lastUpdate(o, func(f managedField) bool { return f.Subresource == "" }); ok && o.Metadata.Generation > 1 {
		s.emit(t, service(o.Metadata.Name), ingest.EventDeploy, "WorkloadUpdated", obj, workloadMessage(o)+by(who))
		return
	}
	t, ok := parseTime(o.Metadata.CreationTimestamp)
	if !ok {
		s.noTime++
		return
	}
	msg := workloadMessage(o)
	if len(o.Metadata.ManagedFields) == 0 {
		s.noManagedFields(o)
		if o.Metadata.Generation > 1 {
			msg += fmt.Sprintf("; updated since (generation %d), not dated", o.Metadata.Generation)
		}
	}
	s.emit(t, service(o.Metadata.Name), ingest.EventDeploy, "WorkloadCreated", obj, msg)
}

// scaled adds the last scale of a workload through its scale subresource
// (an autoscaler, kubectl scale).
func (s *snapshot) scaled(o *object) {
	if t, who, ok := lastUpdate(o, func(f managedField) bool { return f.Subresource == "scale" }); ok {
		msg := o.Kind + "/" + o.Metadata.Name + " scaled"
		if o.Spec.Replicas != nil {
			msg += fmt.Sprintf(" to %d replicas", *o.Spec.Replicas)
		}
		s.emit(t, service(o.Metadata.Name), ingest.EventDeploy, "WorkloadScaled", o.Kind+"/"+o.Metadata.Name, msg+by(who))
	}
}

// lastUpdate returns the latest time of the managedFields entries keep
// accepts, and its manager.
func lastUpdate(o *object, keep func(managedField) bool) (ingest.Time, string, bool) {
	var last ingest.Time
	who, found := "", false
	for _, f := range o.Metadata.ManagedFields {
		if !keep(f) {
			continue
		}
		if t, ok := parseTime(f.Time); ok && (!found || t > last || t == last && f.Manager < who) {
			last, who, found = t, f.Manager, true
		}
	}
	return last, who, found
}

// by renders " by <manager>", "" when unknown.
func by(manager string) string {
	if manager == "" {
		return ""
	}
	return " by " + manager
}

// workloadMessage describes a workload: "StatefulSet/vllm generation 4
// (observed 4), revision vllm-7c9d → vllm-8f6b: vllm=…".
func workloadMessage(o *object) string {
	var b strings.Builder
	b.WriteString(o.Kind + "/" + o.Metadata.Name)
	if g := o.Metadata.Generation; g > 0 {
		fmt.Fprintf(&b, " generation %d (observed %d)", g, o.Status.ObservedGeneration)
	}
	switch cur, upd := o.Status.CurrentRevision, o.Status.UpdateRevision; {
	case upd != "" && cur != "" && upd != cur:
		fmt.Fprintf(&b, ", rolling out revision %s over %s (%d of %d updated)", upd, cur, o.Status.UpdatedReplicas, o.Status.Replicas)
	case upd != "":
		b.WriteString(", revision " + upd)
	}
	if r := o.Metadata.Annotations[annRevision]; r != "" {
		b.WriteString(", revision " + r)
	}
	if im := o.Spec.Template.images(); im != "" {
		b.WriteString(": " + im)
	}
	return b.String()
}

// configEvents dates each ConfigMap and Secret by its latest managedFields
// entry (its creation when it has none) on each workload whose pods use
// it, else on the object itself ("configmap/<name>", kind unknown, as
// k8sevents names it); a Helm release Secret is the release's deploy.
func (s *snapshot) configEvents() {
	for i := range s.configs {
		o := &s.configs[i]
		name := o.Metadata.Name
		obj := o.Kind + "/" + name
		created, okCreated := parseTime(o.Metadata.CreationTimestamp)
		if rel := o.Metadata.Labels["name"]; o.Kind == "Secret" && rel != "" && (o.Type == "helm.sh/release.v1" || o.Metadata.Labels["owner"] == "helm") {
			if !okCreated {
				s.noTime++
				continue
			}
			s.emit(created, service(rel), ingest.EventDeploy, "HelmRelease", obj,
				fmt.Sprintf("helm release %s revision %s (%s)", rel, o.Metadata.Labels["version"], o.Metadata.Labels["status"]))
			continue
		}
		t, who, ok := lastUpdate(o, func(managedField) bool { return true })
		reason := o.Kind + "Updated"
		switch {
		case !ok && !okCreated:
			s.noTime++
			continue
		case !ok:
			t, reason = created, o.Kind+"Created"
			if len(o.Metadata.ManagedFields) == 0 {
				s.noManagedFields(o)
			}
		case okCreated && t <= created:
			reason = o.Kind + "Created"
		}
		users := s.uses[useKey{o.Metadata.Namespace, o.Kind, name}]
		slices.SortFunc(users, func(a, b workload) int {
			return cmp.Or(strings.Compare(a.name, b.name), strings.Compare(a.kind, b.kind))
		})
		msg := obj + " " + strings.ToLower(strings.TrimPrefix(reason, o.Kind)) + by(who)
		if len(users) == 0 {
			// The object itself, named as k8sevents names it: the
			// features stage places it on the traced service its name
			// belongs to ("router-config" → router), if any.
			own := ingest.Entity{Kind: ingest.KindUnknown, Name: strings.ToLower(o.Kind) + "/" + name}
			s.emit(t, own, ingest.EventConfig, reason, obj, msg+" (no workload in the snapshot uses it)")
			continue
		}
		var names []string
		for _, u := range users {
			names = append(names, u.kind+"/"+u.name)
		}
		msg += " (used by " + strings.Join(names, ", ") + ")"
		done := map[string]bool{}
		for _, u := range users {
			if !done[u.name] { // a Deployment and its ReplicaSets' template: one service
				done[u.name] = true
				s.emit(t, service(u.name), ingest.EventConfig, reason, obj, msg)
			}
		}
	}
}
