package driver

import (
	"net/url"

	"github.com/pipeline-analyze/pipeline-analyze/analysis"
	"github.com/pipeline-analyze/pipeline-analyze/internal/cliio"
)

// newSource picks the source of an analysis (analysis.Source): the live
// one when a live endpoint was given, its fetch built from the flags (the
// secret files read, the secrets given to red), else the local one. An
// error is a flag's (errUsage) or a secret file's.
func newSource(l *liveFlags, af *analysisFlags, work string, red *cliio.Redactor, progress func(string, ...any)) (analysis.Source, error) {
	if !l.active() {
		return analysis.LocalSource{}, nil
	}
	src, err := newLiveSource(l, af, red, progress)
	if err != nil {
		return nil, err
	}
	src.Fetch.WorkDir = work
	return src, nil
}

// newLiveSource is the live source of the flags: the transport from the
// flags and the secret files (options), the secrets given to red, the
// incident's window and the queries.
func newLiveSource(l *liveFlags, af *analysisFlags, red *cliio.Redactor, progress func(string, ...any)) (*analysis.LiveSource, error) {
	opt, err := l.options(af)
	if err != nil {
		return nil, err
	}
	red.Add(opt.Transport.BearerToken)
	red.AddBasic(opt.Transport.BasicUser, opt.Transport.BasicPassword)
	for _, u := range []string{l.JaegerURL, l.PromURL, l.TempoURL, l.LokiURL, l.VlogsURL} { // credentials in a URL are secrets too
		if pu, err := url.Parse(u); err == nil && pu.User != nil {
			p, _ := pu.User.Password()
			red.AddBasic(pu.User.Username(), p)
		}
	}
	opt.Transport.Secrets = red.Secrets()
	return &analysis.LiveSource{Fetch: analysis.LiveFetch{Options: opt, Window: af.Window, Baseline: af.Baseline, Step: af.Step,
		Selector: l.Selector, Packs: l.Packs, Queries: l.Queries, SaveBundle: l.SaveBundle, Version: version,
		Track: cliio.TrackTemp, Progress: progress}, Rerun: rerunArgs}, nil
}
