package driver

import (
	"errors"
	"strings"

	"github.com/pipeline-analyze/pipeline-analyze/analysis"
	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/live"
)

// localOnly is what a live run analyses when no live source delivered
// anything but local files were given beside them: those files, with each
// source's failure as a warning on the card (instead of "live: nothing
// fetched", exit 1). It returns nil when err is another error or no local
// path was given.
func localOnly(err error, m *live.Manifest, paths, args []string) *inputs {
	var nf *live.NothingFetchedError
	if !errors.As(err, &nf) || len(paths) == 0 {
		return nil
	}
	in := &inputs{paths: paths, args: rerunArgs(args), cleanup: func() {}}
	if m != nil {
		in.warnings = analysis.NoteWarnings(m.Notes)
	}
	in.warnings = append(in.warnings, ingest.Warning{Kind: ingest.ErrPartialInput, Source: "live", Count: len(nf.Failures),
		Message: "nothing fetched (" + strings.Join(nf.Failures, "; ") + "): the local inputs were analysed alone"})
	return in
}
