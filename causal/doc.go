// Package causal ranks the causes of an incident on a temporal causal graph.
//
// The default method ("tcg") fits a linear structural causal model over the
// graph: each node, standardised against its baseline and oriented so that
// larger is worse, is a non-negative ridge regression on its parents'
// lagged values plus noise (fitted over baseline and window, so the fit sees
// the incident regime; values are clamped to ±50σ against outliers). For
// each anomalous candidate with a path to the target:
//
//   - abduction: the candidate's own noise U (the part of its window
//     deviation D its parents do not explain);
//   - action and prediction: do(candidate := baseline) removes D, and the
//     total effect on the target (sum over walks of the products of
//     coefficients) gives the share of the target's deviation that
//     disappears — the explained share — and the counterfactual target;
//   - attribution: the same for U alone, the share traced to the candidate
//     itself rather than to its causes.
//
// Latency candidates in seconds are bounded by physics: a callee that got
// Δ slower explains at most calls-per-request × Δ of its caller's added
// latency.
//
// Score = state × (0.35·attribution + 0.15·explained + 0.20·own·severity +
// 0.30·dimensions), where state is 1 for ROOT_CONFIRMED, 0.7 PROPAGATING,
// 0.55 otherwise; own = U/D; severity = z/(z+5); and dimensions is the
// seed's weighted sum of latency surge, error propagation, resource
// saturation (R² against the target) and config drift (change events within
// 24 h), weights 0.35/0.30/0.25/0.10 by default. Confidence is the share of
// bootstrap resamples (seeded) of the window's cells in which the candidate
// ranks first; the explained share's interval comes from the same
// resamples. Below Options.MinConfidence the verdict abstains.
//
// The comparison methods "nsigma" and "baro" (median/IQR, BARO, FSE 2024)
// score every series independently and have no counterfactual.
package causal
