// Package k8sobjects decodes a snapshot of Kubernetes objects (format
// "k8s-objects"): `kubectl get deploy,rs,sts,ds,cm -A -o json
// --show-managed-fields` (a List), an API list (DeploymentList, ...) or
// one object. Events expire after about an hour; these objects keep their
// history for as long as they exist, which is the point: they date the
// rollouts and configuration changes of the last day as ingest.Events of
// a change-like kind, as `kubectl get events` would have.
//
//   - A ReplicaSet is a rollout (EventDeploy, reason "ReplicaSetCreated",
//     object "ReplicaSet/<name>") at its creationTimestamp, on the
//     Deployment that owns it (ownerReferences, else its name without the
//     pod-template-hash), its message naming the revision, the images and
//     what changed from the revision before. A ReplicaSet that was used
//     again (a rollback: deployment.kubernetes.io/revision-history) is
//     also dated when its Deployment's Progressing condition last named it
//     ("ReplicaSetReused").
//   - A Deployment whose ReplicaSets are not in the snapshot, a
//     StatefulSet and a DaemonSet are dated by their Progressing condition
//     (Deployments), else their last spec update in metadata.managedFields,
//     else their creation ("WorkloadUpdated", "WorkloadCreated"); a scale
//     through the scale subresource is "WorkloadScaled"; a Deployment past
//     its progress deadline is a warning ("ProgressDeadlineExceeded").
//   - A ConfigMap or Secret is a configuration change (EventConfig,
//     "ConfigMapUpdated", "SecretCreated", ...) at its latest
//     managedFields time (creationTimestamp when none), on every workload
//     whose pod template uses it (volumes, projected volumes, envFrom,
//     env valueFrom), else on the object itself ("configmap/<name>", as
//     ingest/k8sevents names it; the features stage places it on the
//     traced service its name belongs to, if any). A Secret's data
//     is never read, only its name, type and labels; a Helm release
//     Secret (type helm.sh/release.v1) is that release's deploy
//     ("HelmRelease").
//
// kubectl 1.21 and later omit managedFields unless --show-managed-fields
// is given: without them an update cannot be dated, and the objects are
// dated by their creation with an ErrPartialInput warning saying so.
// Events are sorted by time; over Limits.MaxEvents the oldest are dropped
// with an ErrLimit warning. The format is registered with History set
// (ingest.FormatSpec): a snapshot's ReplicaSets of last month do not
// stretch the incident's time grid, and are left out as older than the
// look-back. It registers itself with package ingest from its init
// function (sniff priority ingest.PriorityK8sObjects); import
// ingest/formats to have every format. It imports only the core.
package k8sobjects
