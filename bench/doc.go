// Package bench holds the per-stage and end-to-end benchmarks
// (stages_test.go: read, graph, rank and card (evidence.Collect and
// scorecard.Build) on each bundle;
// bench_test.go: the whole run; logs_bench_test.go) and the generators of
// their inputs: simulated incidents at 10k to 1M spans (gen.go, through
// package fixtures), generated fleets of 1,000 and 10,000 services
// (topology.go) and log volumes (loggen.go). bench/cmd/benchgen writes the
// bundles to a cache directory; scripts/bench.sh prints docs/performance.md's table.
//
// It owns no analysis: it calls the stages exactly as the driver does.
package bench
