// Package k8sevents decodes Kubernetes events (core/v1 Event and EventList,
// events.k8s.io/v1; format "k8s-events") into ingest.Events: rollouts,
// restarts, OOM kills, scheduling and probe failures on the entity they
// name. It registers itself with package ingest from its init function
// (two sniff rules, ingest.PriorityK8sEventsV1 and PriorityK8sEventsCore);
// import ingest/formats to have every format. It imports only the core.
package k8sevents
