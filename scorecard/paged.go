package scorecard

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/causal"
	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/internal/reportview"
	"github.com/pipeline-analyze/pipeline-analyze/tcg"
)

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
	p.Series, p.Query, p.Unit, p.What = shortKey(ts), reportview.SeriesQuery(ts), seriesUnit(ts, p.Expr), targetWords(g)
	switch tn.Dir {
	case 1:
		p.Direction = "up"
	case -1:
		p.Direction = "down"
	}
	if len(r.Candidates) > 0 && causalMethod(r) {
		iv := r.Candidates[0].Intervention
		p.Baseline, p.Observed = iv.Baseline, iv.Observed
	}
	if !math.IsNaN(p.Baseline) && !math.IsNaN(p.Observed) {
		verb := "rose"
		if p.Observed < p.Baseline {
			verb = "fell"
		}
		if pagedValue(p.Observed, ts, p.Unit) == pagedValue(p.Baseline, ts, p.Unit) {
			verb = "stayed"
		}
		bad := ""
		if (verb == "rose" && p.Direction == "down") || (verb == "fell" && p.Direction == "up") {
			bad = " (the good direction)"
		}
		p.Text = fmt.Sprintf("%s %s to %s from %s%s", p.What, verb, pagedValue(p.Observed, ts, p.Unit), pagedValue(p.Baseline, ts, p.Unit), bad)
		if verb == "stayed" {
			p.Text = fmt.Sprintf("%s stayed at %s (its baseline)", p.What, pagedValue(p.Observed, ts, p.Unit))
		}
	}
	p.Chart = Chart{Label: p.What, Unit: p.Unit, Baseline: math.NaN(), BandLow: math.NaN(), BandHigh: math.NaN(),
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

// seriesUnit is a series' unit, or, for one whose name carried none (a
// recording rule's or a quantile's result), the unit the alert's
// expression names by Prometheus' naming convention (a metric ending in
// _seconds, _bytes, _ratio; a histogram's _bucket and a counter's _total
// dropped first).
func seriesUnit(s *ingest.Series, expr string) string {
	if s == nil {
		return ""
	}
	if s.Unit != "" {
		return s.Unit
	}
	for _, w := range strings.FieldsFunc(expr, func(r rune) bool {
		return !(r == '_' || r == ':' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
	}) {
		for _, suf := range []string{"_bucket", "_count", "_sum", "_total"} {
			w = strings.TrimSuffix(w, suf)
		}
		switch {
		case strings.HasSuffix(w, "_seconds"):
			return "s"
		case strings.HasSuffix(w, "_bytes"):
			return "B"
		}
	}
	return ""
}

// pagedValue renders a value of the target's series in unit: a share of
// requests as a percentage ("51.2%"), else formatValue.
func pagedValue(v float64, s *ingest.Series, unit string) string {
	if isShareSeries(s) && !math.IsNaN(v) {
		return fmt.Sprintf("%.1f%%", 100*v)
	}
	return formatValue(v, unit)
}

// alertExpr is the followed alert's expression ("" when none).
func alertExpr(g *tcg.Graph) string {
	if a := g.Incident.Alert; a != nil {
		return a.Expr
	}
	return ""
}
