// Package tcg builds the temporal causal graph of an incident.
//
// Nodes are component signals: one per (entity, signal kind, facet), where
// an entity is a service, pod, node, GPU or call edge and the facet
// separates a service's end-to-end latency from its exclusive ("self")
// time and an edge's caller-side, callee-side and network-gap latency.
// Series of a service's only pod join the service's nodes. Node IDs are
// "kind/name:signal[/facet]" and deterministic.
//
// Each node is tested on the incident window against its baseline with a
// robust location and scale (median, MAD and IQR, floored), in its bad
// direction (a clock drop is the anomaly); onset is the first window cell
// from which the deviation holds. Where spans exist, the tail of a
// service's latency is also tested distribution-free with the DKW bound.
//
// Edges point from cause to effect and carry kind, lag, weight (lagged
// correlation) and confidence:
//   - call topology (traces, dependencies, edge metrics): callee latency →
//     caller latency, edge gap → caller-side latency, callee errors → caller
//     errors, caller traffic → callee traffic; a starved caller → its own
//     call gaps;
//   - placement: a pod → its service; node and GPU saturation → the pods
//     and services placed on them; a pod's usage → its node's;
//   - devices: heat and power → throttling → clocks; a slow GPU in a
//     tensor-parallel group → its peers' busy-waiting utilisation;
//   - within a component: load → saturation → latency → errors;
//   - lagged correlation, only between anomalous nodes whose topology is
//     unknown and only when the cause leads: marked EdgeLagged and weaker.
//
// Finally the seed's state machine runs per node in onset order (IDLE →
// TRIGGERED → PROPAGATING → ROOT_CONFIRMED) over edges of at least
// Options.MinConfidence, recording every transition as evidence.
//
// Build is O(series · grid) for detection plus O(edges · lags · grid) for
// edge weights; the lagged search is bounded by Options.MaxLagged.
package tcg
