package compare

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/compare/model"
	"github.com/pipeline-analyze/pipeline-analyze/features"
	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/internal/testkit"
	"github.com/pipeline-analyze/pipeline-analyze/tcg"
)

// TestShortBaselineQuietPairs is issue 42's compare check: two quiet
// windows near the start of a development case's data — BEFORE after a
// baseline of only 2, 4, 6 or 8 minutes, AFTER right after it, both
// before the injection and any distractor. A band from fewer than
// BandWindows (3) windows as long as the compared ones (2 and 4 minutes at
// the 2-minute windows of 15 s data) is insufficient, so those never
// regress; at 6 and 8 minutes an episodic series (episodic) needs
// SeriesWindows (5) disjoint windows. Before that rule the bursty p99s and
// error ratios of eight LLM cases regressed at 6–8 minutes (+5σ to +100σ);
// with it one case was left (a p99 end-to-end latency 23% above its
// 6-minute baseline on one pod for the whole AFTER window), which the
// windows' levels rule (levelPrediction: 37.4, 37.5 and 43.1 s predict up
// to 65 s for one more window) leaves insufficient data; the test fails on
// any regression (issue 42: none, whatever the baseline's length). Cases whose pre-onset data is documented as
// not quiet, holds another injection of the same timeline or a known
// event, are skipped as TestDevelopmentCases skips them. Skipped where
// ../shared/data is absent.
func TestShortBaselineQuietPairs(t *testing.T) {
	labels := testkit.DevLabels(t)
	// Every injection of a timeline, before any subset: a case in the
	// subset must still know its siblings' injections to tell whether its
	// start is quiet.
	inj := map[string][]ingest.Time{}
	for _, l := range labels {
		set := filepath.Base(filepath.Dir(filepath.Dir(l)))
		if timelineSets[set] {
			inj[set] = append(inj[set], parseLabelTime(readInject(l)))
		}
	}
	if raceEnabled && os.Getenv("PA_COMPARE_FULL") == "" {
		var some []string
		for i, l := range labels {
			if i%6 == 0 {
				some = append(some, l)
			}
		}
		labels = some
	}
	type result struct {
		name  string
		pairs int
		regs  []string
		err   error
	}
	results := make([]result, len(labels))
	var wg sync.WaitGroup
	sem := make(chan struct{}, 2)
	for i, l := range labels {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			dir := filepath.Dir(l)
			res := result{name: filepath.Base(filepath.Dir(dir)) + "/" + filepath.Base(dir)}
			defer func() { results[i] = res }()
			var lb devLabel
			data, err := os.ReadFile(l)
			if err == nil {
				err = json.Unmarshal(data, &lb)
			}
			if err != nil {
				res.err = err
				return
			}
			if notQuiet[filepath.Base(dir)] != "" || len(knownEvents[filepath.Base(dir)]) > 0 {
				return
			}
			own := parseLabelTime(lb.InjectTime)
			b, err := features.Read([]string{dir}, nil, ingest.Options{}, features.Options{})
			if err != nil {
				res.err = err
				return
			}
			for _, s := range inj[filepath.Base(filepath.Dir(dir))] {
				if s != own && s < own && s >= b.Start {
					return // an earlier injection in this case's data: no quiet start
				}
			}
			end := own.Add(-2 * b.Step)
			for _, s := range []string{lb.Distractor.Time, lb.Distractor.InjectTime} {
				if d := parseLabelTime(s); d != 0 && d < end {
					end = d
				}
			}
			w := max(2*time.Minute, 4*b.Step)
			inc, err := tcg.ResolveIncident(b, tcg.IncidentSpec{Window: w})
			if err != nil {
				res.err = err
				return
			}
			opt := DefaultOptions()
			opt.Target = inc.Target
			for _, base := range []time.Duration{2 * time.Minute, 4 * time.Minute, 6 * time.Minute, 8 * time.Minute} {
				lo := b.Start.Add(base)
				if lo.Add(2*w) > end {
					break
				}
				rep, err := Run(Side{Bundle: b, Start: lo, End: lo.Add(w)}, Side{Bundle: b, Start: lo.Add(w), End: lo.Add(2 * w)}, opt)
				if err != nil {
					res.err = err
					return
				}
				res.pairs++
				for _, it := range rep.Items {
					if it.Verdict != model.Regressed {
						continue
					}
					res.regs = append(res.regs, fmt.Sprintf("baseline %s: %s %s", base, it.ID, fmtShift(it)))
				}
			}
		}()
	}
	wg.Wait()
	pairs, bad := 0, 0
	for _, r := range results {
		if r.err != nil {
			t.Errorf("%s: %v", r.name, r.err)
			continue
		}
		pairs += r.pairs
		if len(r.regs) > 0 {
			bad++
			t.Logf("%s: quiet windows after a short baseline: %d regressions: %s", r.name, len(r.regs), strings.Join(r.regs[:min(4, len(r.regs))], "; "))
		}
	}
	t.Logf("%d quiet pairs with a 2–8 minute baseline in %d cases; %d cases with a regression", pairs, len(results), bad)
	if bad > 0 {
		t.Errorf("%d cases with a regression in quiet windows after a short baseline; want none", bad)
	}
}

// fmtShift is an item's shift in σ for a test's message.
func fmtShift(it model.Item) string {
	return fmt.Sprintf("(%+.1fσ, band of %d windows)", it.Test.Shift, it.Band.Windows)
}
