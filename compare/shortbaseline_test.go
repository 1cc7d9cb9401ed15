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

	"github.com/pipeline-analyze/pipeline-analyze/features"
	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/tcg"
)

// TestShortBaselineQuietPairs is issue 42's compare check: two quiet
// windows near the start of a development case's data — BEFORE after a
// baseline of only 2, 4, 6 or 8 minutes, AFTER right after it, both
// before the injection and any distractor — give no regression when the
// baseline holds fewer than BandWindows (3) windows as long as the
// compared ones (2 and 4 minutes at the 2-minute windows of 15 s data): a band from few baseline windows
// is wide (a prediction interval for n windows) or insufficient, never a
// regression at +7σ from 3 minutes. At 6 and 8 minutes the regressions
// found are logged (knownShortBursts): each is a burst beyond everything
// its baseline did, which a longer baseline may show to be normal.
// Cases whose pre-onset data is documented as not quiet, holds another
// injection of the same timeline or a known event, are skipped as
// TestDevelopmentCases skips them. Skipped where ../shared/data is absent.
func TestShortBaselineQuietPairs(t *testing.T) {
	labels := devLabels(t)
	if raceEnabled && os.Getenv("PA_COMPARE_FULL") == "" {
		var some []string
		for i, l := range labels {
			if i%6 == 0 {
				some = append(some, l)
			}
		}
		labels = some
	}
	inj := map[string][]ingest.Time{}
	for _, l := range labels {
		set := filepath.Base(filepath.Dir(filepath.Dir(l)))
		if timelineSets[set] {
			inj[set] = append(inj[set], parseLabelTime(readInject(l)))
		}
	}
	type result struct {
		name   string
		pairs  int
		regs   []string
		logged []string // regressions after a baseline of BandWindows windows or more
		err    error
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
					if it.Verdict != Regressed {
						continue
					}
					msg := fmt.Sprintf("baseline %s: %s %s", base, it.ID, fmtShift(it))
					if it.Band.Windows >= DefaultOptions().BandWindows {
						res.logged = append(res.logged, msg)
						continue
					}
					res.regs = append(res.regs, msg)
				}
			}
		}()
	}
	wg.Wait()
	pairs, bad, logged := 0, 0, 0
	for _, r := range results {
		if len(r.logged) > 0 {
			logged++
			t.Logf("%s: a burst beyond its short baseline: %s", r.name, strings.Join(r.logged[:min(3, len(r.logged))], "; "))
		}
		if r.err != nil {
			t.Errorf("%s: %v", r.name, r.err)
			continue
		}
		pairs += r.pairs
		if len(r.regs) > 0 {
			bad++
			t.Errorf("%s: quiet windows after a short baseline: %d regressions: %s", r.name, len(r.regs), strings.Join(r.regs[:min(4, len(r.regs))], "; "))
		}
	}
	t.Logf("%d quiet pairs with a 2–8 minute baseline in %d cases; %d cases with a regression from fewer than 3 baseline windows, %d with one from 3 or more (logged)",
		pairs, len(results), bad, logged)
}

// fmtShift is an item's shift in σ for a test's message.
func fmtShift(it Item) string {
	return fmt.Sprintf("(%+.1fσ, band of %d windows)", it.Test.Shift, it.Band.Windows)
}
