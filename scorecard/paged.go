package scorecard

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/causal"
	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/tcg"
)

// maxChanges bounds Incident.Changes.
const maxChanges = 3

// buildPaged is the target's series as the card shows it: the alert's own
// series when the analysis followed it (the driver picks it), in its units
// and bad direction, with how it moved (the top cause's intervention holds
// the baseline and observed values the analysis explained).
func buildPaged(g *tcg.Graph, r *causal.Result, slice time.Duration) Paged {
	p := Paged{Baseline: math.NaN(), Observed: math.NaN(), Chart: Chart{Baseline: math.NaN(), BandLow: math.NaN(), BandHigh: math.NaN()}}
	if a := g.Incident.Alert; a != nil {
		p.Expr = a.Expr
	}
	ts := g.TargetSeries
	if ts == nil || g.Target < 0 {
		return p
	}
	tn := g.Nodes[g.Target]
	p.Series, p.Query, p.Unit, p.What = shortKey(ts), SeriesQuery(ts), ts.Unit, targetWords(g)
	switch tn.Dir {
	case 1:
		p.Direction = "up"
	case -1:
		p.Direction = "down"
	}
	if len(r.Candidates) > 0 && r.Method == MethodTCG {
		iv := r.Candidates[0].Intervention
		p.Baseline, p.Observed = iv.Baseline, iv.Observed
	}
	if !math.IsNaN(p.Baseline) && !math.IsNaN(p.Observed) {
		verb := "rose"
		if p.Observed < p.Baseline {
			verb = "fell"
		}
		if p.Observed == p.Baseline {
			verb = "stayed"
		}
		bad := ""
		if (verb == "rose" && p.Direction == "down") || (verb == "fell" && p.Direction == "up") {
			bad = " (the good direction)"
		}
		p.Text = fmt.Sprintf("%s %s to %s from %s%s", p.What, verb, pagedValue(p.Observed, ts), pagedValue(p.Baseline, ts), bad)
	}
	p.Chart = Chart{Label: p.What, Unit: ts.Unit, Baseline: math.NaN(), BandLow: math.NaN(), BandHigh: math.NaN(),
		WindowStart: g.Incident.WindowStart, WindowEnd: g.Incident.WindowEnd, Onset: tn.Onset}
	if a := g.Incident.Alert; a != nil {
		p.Chart.Alert = a.StartsAt
	}
	fillChart(&p.Chart, g, ts.V, slice)
	if !math.IsNaN(p.Baseline) {
		p.Chart.Baseline = p.Baseline
		if ts == tn.Series[tn.Rep] && tn.Scale > 0 {
			th := g.Threshold
			if th <= 0 {
				th = tcg.DefaultThreshold
			}
			p.Chart.BandLow, p.Chart.BandHigh = tn.Baseline-th*tn.Scale, tn.Baseline+th*tn.Scale
		}
	}
	return p
}

// isShareSeries reports whether a series is a share of requests (a success
// or error ratio in 0..1), shown as a percentage.
func isShareSeries(s *ingest.Series) bool {
	return s != nil && s.Unit == "ratio" && strings.Contains(s.Stat, "ratio")
}

// pagedValue renders a value of the target's series: a share of requests
// as a percentage ("51.2%"), else formatValue.
func pagedValue(v float64, s *ingest.Series) string {
	if isShareSeries(s) && !math.IsNaN(v) {
		return fmt.Sprintf("%.1f%%", 100*v)
	}
	unit := ""
	if s != nil {
		unit = s.Unit
	}
	return formatValue(v, unit)
}

// buildChanges lists the change and lifecycle events of the shown causes
// (their services' and components'), the latest first, at most maxChanges,
// with the row each belongs to.
func buildChanges(shown []causal.Candidate, rows []Row, causes []Cause) []Change {
	rowOf := map[int]int{}
	for _, r := range rows {
		for _, c := range r.Causes {
			rowOf[c] = r.Rank
		}
	}
	seen := map[string]bool{}
	var out []Change
	for i, cand := range shown {
		for _, e := range cand.Events {
			text := fmt.Sprintf("%s %s on %s: %s", e.Kind, e.Reason, e.Entity.ID(), e.Message)
			key := fmt.Sprint(e.Time) + text
			if seen[key] {
				continue
			}
			seen[key] = true
			out = append(out, Change{At: e.Time, Text: text, Row: rowOf[causes[i].Rank]})
		}
	}
	// the latest first; equal times by text (a unique key with the time)
	sortChanges(out)
	if len(out) > maxChanges {
		out = out[:maxChanges]
	}
	return out
}

func sortChanges(cs []Change) {
	for i := 1; i < len(cs); i++ {
		for j := i; j > 0 && (cs[j].At > cs[j-1].At || cs[j].At == cs[j-1].At && cs[j].Text < cs[j-1].Text); j-- {
			cs[j], cs[j-1] = cs[j-1], cs[j]
		}
	}
}
