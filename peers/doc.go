// Package peers says which pods are which version of a workload, and
// compares a pod, a version or a device with its peers over the same
// minutes.
//
// # What it owns, what it must not do
//
// It owns the version model: the pods of every service grouped by
// ReplicaSet (the pod-template hash in a generated pod name), else by a
// version label (version, app_version, service.version, ...), else by the
// workload their name gives; and the rollouts, each a new group of a
// service beside its old ones, found from Kubernetes rollout events
// (ScalingReplicaSet and their "Scaled up replica set R" messages) or from
// the data (a group whose pods first report after another group's). One
// package decides "which pods are which version" for the ranking (package
// tcg's rollout nodes) and for compare's canary mode.
//
// It owns the contrast: a member (one pod, a version's pods, one GPU)
// against its peers (the other pods of the workload, the old version's
// pods, the other GPUs of the node) cell by cell on the common grid, net of
// the member's usual difference from them in the baseline, in units of how
// far a member normally strays from its peers. Peers serve the same
// traffic and share the same dependencies in the same minutes, so what the
// contrast shows is the member's own change.
//
// It reads the bundle's entities, series and events; it never ranks, never
// reads files and names no dataset, service, metric family or fault.
//
// # How a rollout is judged
//
// For each rollout, each family of per-pod series (the same metric with the
// same labels but the pod's own) is compared: the new group's median pod
// against the old groups' median pod (Compare). A new group that a rollout
// event asked for but that has no pod reporting ReadyGrace after the event,
// while the old pods report, is unavailable: its availability (pods
// reporting over pods asked for) is compared with the old group's, which is
// 1 by construction. Both are grid series, so the graph judges them like
// any other signal.
//
// Complexity: Build is O(series · labels + events); a contrast is
// O(cells · (members + peers)).
package peers
