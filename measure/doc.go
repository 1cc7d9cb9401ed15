// Package measure holds the numeric helpers every stage shares, so that
// each exists once: the quantile estimator (R type 7, linear
// interpolation, NumPy's default; by selection in O(n) or on sorted data)
// and small predicates on samples (Constant).
//
// It owns no data model and imports no package of this module; ingest,
// tcg, causal, compare and the driver use it. It must not grow policy (what
// is anomalous, what a unit means for a signal): only arithmetic whose
// result a caller can check against a textbook formula.
package measure
