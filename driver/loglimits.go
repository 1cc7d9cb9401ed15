package driver

import (
	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/spf13/pflag"
)

// registerLogLimitFlags adds the log budgets (ingest/logbudget.go) to the
// input flags: what they cut is kept out with a warning naming the flag.
func registerLogLimitFlags(fs *pflag.FlagSet, l *ingest.Limits) {
	d := ingest.DefaultLimits()
	fs.IntVar(&l.MaxLogRecords, "max-log-records-per-input", d.MaxLogRecords, "log records kept of one input")
	fs.IntVar(&l.MaxLogRecordBytes, "max-log-record-size", d.MaxLogRecordBytes, "bytes kept of one log record's text (with its folded lines)")
	fs.IntVar(&l.MaxLogStreams, "max-log-streams", d.MaxLogStreams, "log streams kept of one input; records of further streams go to one unlabelled stream")
	fs.IntVar(&l.MaxLogEntities, "max-log-entities", d.MaxLogEntities, "services and pods with log series; the busiest are kept")
	fs.IntVar(&l.MaxLogTemplates, "max-log-templates", d.MaxLogTemplates, "log templates mined per service of one input")
	fs.IntVar(&l.MaxLogTemplatesTotal, "max-log-templates-total", d.MaxLogTemplatesTotal, "log templates of one input, and of all inputs once merged")
	setGroup(fs, groupInputs, "max-log-records-per-input", "max-log-record-size", "max-log-streams", "max-log-entities",
		"max-log-templates", "max-log-templates-total")
}
