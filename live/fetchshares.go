package live

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"
)

// A live fetch has one deadline (--fetch-timeout), but no one source may
// spend it all: each source gets its own share, so a hung Loki never keeps
// a healthy VictoriaLogs from being asked, nor a hung Prometheus a healthy
// Jaeger, and what the healthy sources delivered is analysed (with a note
// per failed source saying why).

// fetchSources runs every configured source within dctx (the whole fetch
// deadline, opt.FetchTimeout from now), each within its share of it:
//   - the log sources run side by side, each with the time left;
//   - the logs' default selector is the traced services, so without
//     --log-selector and with a Jaeger they start once Jaeger and
//     Prometheus are done, and those n sources get n/(n+1) of the deadline,
//     the logs at least the rest; otherwise every source starts at once;
//   - Jaeger waits for the metrics' request aggregates (which order its
//     searches, aggregates.go) at most half of its share, then searches
//     without them while Prometheus goes on.
//
// ctx is the caller's: when it ends, the logs are not started.
func fetchSources(ctx, dctx context.Context, opt Options, m *Manifest, budget *Budget, progress func(string, ...any)) (jf, pf, lf sourceFetch) {
	logs := opt.LokiURL != "" || opt.VictoriaLogsURL != ""
	n := 0
	traces := opt.JaegerURL != "" || opt.TempoURL != ""
	for _, on := range []bool{traces, opt.PrometheusURL != ""} {
		if on {
			n++
		}
	}
	logsWait := logs && traces && strings.TrimSpace(opt.LogSelector) == ""
	var lwg sync.WaitGroup
	if logs && !logsWait {
		lwg.Add(1)
		go func() { defer lwg.Done(); lf = fetchLogSources(dctx, opt, m, nil, progress) }()
	}
	tctx, topt := dctx, opt
	if logsWait && n > 0 {
		share := opt.FetchTimeout * time.Duration(n) / time.Duration(n+1)
		var cancel context.CancelFunc
		tctx, cancel = context.WithTimeout(dctx, share)
		defer cancel()
		topt.share = share
	}
	jf, pf = fetchTracesAndMetrics(tctx, topt, budget, progress)
	if logsWait && ctx.Err() == nil {
		var services []string // the traced services, the logs' default selector
		for _, mj := range []*ManifestJaeger{jf.jaeger, jf.tempo} {
			if mj != nil {
				services = append(services, mj.Services...)
			}
		}
		lopt := opt
		if dl, ok := dctx.Deadline(); ok {
			if left := time.Until(dl); left < opt.FetchTimeout {
				lopt.share = max(left, 0)
			}
		}
		lf = fetchLogSources(dctx, lopt, m, services, progress)
	}
	lwg.Wait()
	return jf, pf, lf
}

// fetchTracesAndMetrics runs Jaeger and Prometheus within ctx, side by
// side; with both, Jaeger first waits for Prometheus' request aggregates,
// at most half of the time it has.
func fetchTracesAndMetrics(ctx context.Context, opt Options, budget *Budget, progress func(string, ...any)) (jf, pf sourceFetch) {
	var wg sync.WaitGroup
	done := make(chan struct{})
	if opt.PrometheusURL != "" {
		wg.Add(1)
		go func() {
			defer wg.Done()
			pf = fetchPromSource(ctx, opt, budget, progress)
			close(done)
		}()
	}
	if opt.JaegerURL != "" || opt.TempoURL != "" {
		jopt := opt
		var late string
		if opt.PrometheusURL != "" {
			wait := shareOf(opt) / 2
			timer := time.NewTimer(wait)
			select {
			case <-done: // pf is written before done is closed
				if scores := AggregateScores(pf.results, opt.WindowStart, opt.WindowEnd); len(scores) > 0 {
					jopt.aggregates = scores
					progress("prometheus: %s", aggregatesSummary(scores))
				}
			case <-timer.C:
				late = fmt.Sprintf("Prometheus had not answered within %v (half of %s): the trace searches were not ordered by the metrics' request aggregates", wait, deadlineText(opt))
				progress("jaeger: %s", late)
			case <-ctx.Done():
			}
			timer.Stop()
		}
		jf = fetchTraceSources(ctx, jopt, budget, progress)
		if late != "" {
			jf.notes = append(jf.notes, Note{NoteMissing, "jaeger", late})
		}
	}
	wg.Wait()
	return jf, pf
}

// shareOf is the time a source has: its share, else the whole deadline.
func shareOf(opt Options) time.Duration {
	if opt.share > 0 {
		return opt.share
	}
	return opt.FetchTimeout
}

// deadlineText names the deadline a source ran under, for notes: "the
// fetch deadline (90s, --fetch-timeout)", or "its share (1m0s) of the
// fetch deadline (90s, --fetch-timeout)".
func deadlineText(opt Options) string {
	if opt.share > 0 && opt.share < opt.FetchTimeout {
		return fmt.Sprintf("its share (%v) of the fetch deadline (%v, --fetch-timeout)", opt.share.Round(time.Millisecond), opt.FetchTimeout)
	}
	return fmt.Sprintf("the fetch deadline (%v, --fetch-timeout)", opt.FetchTimeout)
}

// fetchTraceSources fetches Jaeger and Tempo side by side (either may be
// unset) and merges what they delivered; it failed only when neither
// delivered a file.
func fetchTraceSources(ctx context.Context, opt Options, budget *Budget, progress func(string, ...any)) sourceFetch {
	var j, t sourceFetch
	var wg sync.WaitGroup
	if opt.JaegerURL != "" {
		wg.Go(func() { j = fetchTraceSource(ctx, opt, "jaeger", budget, progress) })
	}
	if opt.TempoURL != "" {
		wg.Go(func() { t = fetchTraceSource(ctx, opt, "tempo", budget, progress) })
	}
	wg.Wait()
	out := sourceFetch{jaeger: j.jaeger, tempo: t.tempo, files: append(j.files, t.files...), notes: append(j.notes, t.notes...)}
	if len(out.files) == 0 {
		var fails []string
		for _, f := range []string{j.failure, t.failure} {
			if f != "" {
				fails = append(fails, f)
			}
		}
		out.failure = strings.Join(fails, "; ")
	}
	return out
}
