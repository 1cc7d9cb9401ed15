// Package logs decodes log inputs — Loki query results and push bodies
// (loki.go, with its fast path lokifast.go), OTLP/JSON logs (otlplogs.go),
// Docker json-file, CRI and timestamped text container logs
// (containerlogs.go) and VictoriaLogs JSON lines (vlogs.go) — and holds the
// machinery they share (and the OTLP trace decoder uses for logs documents
// among span documents): the LogSink that folds lines into multi-line
// records per stream, reads their level and trace context (logline.go) and
// mines their templates (package logtemplate, one Drain miner per service),
// within the log budgets of ingest.Limits (budget.go). It also owns the log
// step of ingest.Finalize (finalize.go: the templates of all inputs merged
// deterministically, records sorted and linked to spans, the entity cap),
// which it registers with ingest.RegisterLogFinalizer.
// Each format registers itself with package ingest from this package's init
// functions; import ingest/formats to have every format. It imports only the
// core, the model and the libraries logtemplate and ingest/fastjson.
//
// One package for now: per-format subpackages
// logs/{loki,otlplogs,container,victorialogs} over a shared logs package
// are issue 29's next step.
package logs
