// Package classify says what a metric series measures from its name and
// labels alone: its signal kind (latency, errors, traffic, saturation of a
// resource, GPU signals, ...), its statistic (p99, rate, ratio, ...), its
// unit and the most specific entity it describes (a GPU, a call edge, a
// pod, a node or a service). Series explains the rules (keywords and
// structure, table signalRules; no dataset, service or metric family is
// named); BadDirection says which way a signal is bad.
//
// # Where it runs
//
// At read time: the Prometheus decoder classifies every series it emits
// (the entity decides the series' keys, sort order, limits and per-input
// counts before ingest.Prepare), and so do the tests and tools that build series
// in memory, through ingest.ClassifySeries (the core's name for Series).
// It imports only the model.
package classify
