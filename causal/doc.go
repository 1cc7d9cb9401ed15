// Package causal ranks the causes of an incident on its temporal causal
// graph (package tcg) and says how much of the symptom each explains.
//
// # What it owns, what it must not do
//
// It owns the mechanisms of normal operation, the incident's anomaly
// decomposition, the counterfactuals, the score and its probability, and
// the comparison methods. It reads the graph and the bundle's series and
// spans; it never reads files, never changes the graph's structure, and
// names no dataset, service, metric family or fault.
//
// # The default method ("tcg")
//
// Principles, each with where it is implemented:
//
//  1. Mechanisms come from normal operation (mechanism.go). Each node's
//     value, in oriented robust units (z = ±(x − baseline median) /
//     baseline scale, larger is worse), is regressed on its parents' lagged
//     values with a Huber loss and a ridge penalty, on the baseline cells
//     only: the incident never enters a fit. Where traces give the exact
//     composition, it replaces the regression: a service's latency = its
//     own exclusive time + calls per request × the client side of each call;
//     a call's client side = its server side + the network/queueing gap;
//     a node's resource use = the sum of its pods' (physicalResidual,
//     usageResidual), on span-derived means, which add up.
//  2. A root cause is where a mechanism changed (attribution.go). Each
//     anomalous node j has anomaly a_j = ln(1 + z_j) and own change
//     r_j ≤ a_j: the part its mechanism does not explain (the smaller of
//     the regression residual and the exact-composition residual). A node
//     without an anomalous parent owns all of its anomaly; one whose
//     anomalous parent moved first owns at most PrecedenceOwn of it unless
//     an exact composition measured it (a fit on baseline noise cannot tell
//     an effect far outside the baseline's range from a change).
//  3. The counterfactual and the ranking are one computation
//     (attribution.go). The anomalies define a linear SCM in log-anomaly
//     space, a = r + W·a, whose weights split each node's non-own anomaly
//     among its anomalous parents by the exact decomposition where there is
//     one (latency seconds, summed resource use) and in proportion to the
//     parents' anomaly elsewhere. For a linear SCM the Shapley value of
//     each noise term is its total-effect contribution, so
//     do(r_i := 0) removes exactly flows[T][i] of the target's anomaly: the
//     candidate's target share (TermTargetShare), turned into the target's
//     units for the card (counterfactual). The same intervention removes
//     r_i at the node itself (TermOwn) and, along the anomalous edges,
//     min(a_c, what reached c) at each descendant c (TermDownstream: CIRCA's
//     descendant adjustment, carried through the graph).
//  4. The graph comes from data (package tcg): call topology, placement,
//     the generic order inside a component, changes and log content. Lagged
//     correlation edges are shown but never carry anomaly here.
//  5. Errors have an origin (nodeevidence.go, errorsResidual): a node's
//     error rise minus what its callees' failures account for (in failures
//     per cell when requests are counted, else in the ratio's unit; the
//     largest callee's part, never the sum of two views of the same calls).
//     A caller whose failures are its callee's owns none of them.
//  6. Changes are candidates (changes.go): every change of the look-back
//     (tcg.Graph.Changes) is a node scored as a prior and judged by its
//     effects (its rollout's contrasts, what it precedes; a new version of
//     a callee is a parent of what its callers receive, of a caller of what
//     its callees are asked) and its timing against the symptom's onset
//     (TermChangeTiming); every change gets a verdict for the card
//     (blamed, exonerated, not judged).
//  7. The component is the part one acts on (part.go): a call edge's
//     signal resolves to its callee's replica or the network of the end
//     the moved calls share, a node's pressure to the one workload whose
//     own use moved with it, a replica to its workload when its siblings
//     moved alike; the target share is the part's.
//  8. Confidence is a probability (fit.go). The score is
//     Σ_k Weight[k]·term_k over Terms(): the three counterfactual terms,
//     two fitted priors on the generic order's levels (traffic anomalies
//     are rarely where a cause starts; error and log-content anomalies
//     often are), two on time (a change's timing, TermChangeTiming; a
//     signal that moved after the symptom began, TermLate), and a fixed
//     reach term (a node with no path to the
//     target's service cannot be this incident's cause). A softmax over the
//     services' best scores and "none of them" gives each service's
//     probability; Fit chooses the weights by maximum likelihood on the
//     labelled development sets (pipeline-analyze eval --fit), and eval
//     --leave-one-out reports them held out, with a reliability table.
//     Below MinConfidence, or when the top cause explains under
//     MinVerdictShare of the target's deviation, the verdict abstains and
//     says why.
//  9. One parameter table (params.go): every constant with its default and
//     the experiment that set it.
//
// Within the top service, an anomalous ancestor of its best candidate that
// scores within AncestorMargin comes first (a GPU before the pod errors it
// causes); ties go to the component with more anomalous signals. Across
// services (order.go): a content signal that explains under
// MinVerdictShare of a target that moved never comes first; and when no
// candidate explains a share of the target (it barely moved, under the
// detection threshold, or the first candidate explains under
// MinVerdictShare of its deviation), the service whose requests broke
// (RequestBreaks: its per-request pattern test under BreakLevel over the
// services tested, with the share of its requests taking the step moved
// by BreakShare, or by BreakShareInvariant for a step every baseline
// request took) comes first, and the verdict abstains. A
// candidate counts for its entity's service; a node (host) or an unplaced
// GPU counts for the hosted service its change reaches most, and lists the
// services it hosts.
//
// The state machine's last step is here: a candidate is ROOT_CONFIRMED when
// its own change is at least MinOwnShare of its anomaly and accounts for at
// least MinTargetShare of the target's, with the transition recorded.
//
// Complexity: the fits are O(nodes · baseline cells · parents²); the flows
// O(anomalous nodes · sources); downstream O(anomalous nodes) per
// candidate, O(anomalous²) in all.
//
// # Comparison methods
//
// Each is a published-style method, documented where it is implemented,
// registered (KindComparison) in methods.go's table with its ranking and
// selectable with --method and eval --methods:
//   - "baro" (BARO, Pham et al., FSE 2024) and "nsigma": per metric series,
//     the largest window deviation from the baseline median/IQR or
//     mean/standard deviation (baselines.go); metrics only.
//   - "selftime" (CRISP, Uber ATC 2022; MicroRank/TraceRCA family): per
//     service, pod and operation, the robust shift of span exclusive time;
//     a client span's time goes to its callee (selftime.go). Nothing
//     without spans.
//   - "traversal" (threshold traversal, PetShop, Hardt et al. 2023): from
//     the alerting service into anomalous callees, the deepest anomalous
//     first (traversal.go). BARO by service without a call graph.
//   - "circa" (CIRCA, Li et al., KDD 2022): regression-based hypothesis
//     testing on the graph's parents fitted on the baseline, with
//     descendant adjustment (circa.go).
//
// They have no counterfactual: the card shows "~" for explained shares.
package causal
