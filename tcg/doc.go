// Package tcg builds the temporal causal graph of an incident.
//
// It owns the graph: its nodes, their anomaly verdicts and onsets, the
// edges and the state machine up to PROPAGATING. It must not rank causes
// (package causal does) nor read files; every edge comes from the data,
// none from one fault's physics.
//
// Nodes are component signals: one per (entity, signal kind, facet), where
// an entity is a service, pod, node, GPU or call edge and the facet
// separates a service's end-to-end latency from its exclusive ("self")
// time, an edge's caller-side, callee-side and network-gap latency, and
// what a service's logs say (records, error records, new, shifted and
// missing templates). Series of a service's only pod join the service's
// nodes; a GPU's placement (its service, host) is the entity's, merged
// over all its series. Deployments and configuration changes become a
// change node per service (change.go). Node IDs are
// "kind/name:signal[/facet]" and deterministic.
//
// Each node is tested on the incident window against its baseline with a
// robust location and scale (median, MAD and IQR, floored at 5% of the
// median and at 1% of the largest magnitude; a flat baseline's departure
// reads as 100 robust σ), in its bad direction (a clock drop is the
// anomaly). Onset is the first window cell from which the deviation holds;
// the incident value is the median of the anomalous episode from onset.
// An alert fires after its rule held a while, so a window centred on it
// can begin inside the incident: when the target's deviation already
// holds at the window's start and began at least Options.MinOnsetReach (a
// minute) before it, ExtendToOnset moves the start back to a sample before the
// target's onset (at most Options.OnsetLookback, never leaving a baseline
// shorter than the window), and the caller builds the graph again on that
// window.
// A series whose baseline already reached half the episode's deviation
// (Options.RecurrenceShare) is scored by how often it does so in the
// window against its baseline's rate, a Poisson tail as a standard deviate
// (recurrenceCap): routine spikes of a flat series are not 100 σ.
// Where spans exist, the tail of a service's latency is also tested
// distribution-free with the DKW bound. A success or error ratio whose
// requests are counted (a count or a rate of the same entity) is tested as
// the counts it is (binomial.go): per-cell Poisson deviates of its failures
// against the baseline's failure rate, overdispersed by the baseline's own
// excess variance — a ratio at exactly 1.000 that falls to 0.98 on
// hundreds of requests is a large, certain change, not the 0.4 σ its
// robust floors would make it. A window holds MinStepsAfter samples after
// the incident time on coarse data.
//
// Changes (change.go): every change-like event up to the window's end
// within ChangeLookback (rollouts, configuration updates, change records),
// one kind of change of one service merged per ChangeHold, and every
// rollout of the version model, are the graph's Changes; a service's
// change node stays beside its rollout's contrasts (never deleted), scored
// as a prior (the detection threshold) with its onset at the change.
//
// Edges point from cause to effect (edges.go):
//   - inside a component, the generic order: change → traffic →
//     saturation → latency → errors; own work (exclusive time) → latency;
//     log volume follows traffic, log content (error records, new or
//     missing templates) precedes the responses (errors, latency);
//   - call topology (traces, dependencies, service-graph and edge metrics):
//     callee latency → the call's server side → its client side ← the
//     gap, client side → caller latency; callee errors → the call's →
//     caller errors (and its pods'); caller traffic → the call's → callee
//     traffic; a callee's failures → its caller's log content; the
//     caller's saturation and own work → its call gaps (the gap is measured
//     on the caller); a caller's change → what its callees are asked
//     (traffic, latency, errors: requests they may reject); a callee's
//     change → what its callers receive (errors, latency, the calls'
//     client side);
//   - placement: a pod → its service; a node's or GPU's saturation → the
//     latency, errors, restarts and saturation of what is placed on it
//     (utilisation excepted: it measures work done); load placed on a
//     device → its saturation; a pod's resource use → its node's (the sum);
//     a service's change → its pods; replicas share load (a failing
//     replica's restarts and errors → its siblings' traffic);
//   - lagged correlation, only between anomalous nodes whose topology is
//     unknown and only when the cause leads: marked EdgeLagged, shown but
//     never used to carry anomaly.
//
// The seed's state machine runs per node in onset order: IDLE → TRIGGERED
// when it becomes anomalous, → PROPAGATING when an effect-side neighbour
// over a confident edge follows it within the lag window. ROOT_CONFIRMED
// needs the causal stage's verdict on whose mechanism changed.
//
// Build is O(series · grid) for detection plus O(edges · lags · grid) for
// edge lags; the lagged search is bounded by Options.MaxLagged.
package tcg
