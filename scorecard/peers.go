package scorecard

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/measure"
	"github.com/pipeline-analyze/pipeline-analyze/tcg"
)

// Evidence of contrasts and patterns: a rollout's new pods against its old
// ones, a pod or GPU against its peers, and a service's broken per-request
// pattern, each in the words and numbers an on-call can check.

// contrastEvidence describes a contrast node's comparison: both sides'
// values over its anomalous episode, in the series' unit.
func contrastEvidence(g *tcg.Graph, n *tcg.Node) (Evidence, bool) {
	pc := n.Peer
	if pc == nil {
		return Evidence{}, false
	}
	from := g.W0
	if n.OnsetIdx >= g.W0 {
		from = n.OnsetIdx
	}
	unit := n.Series[n.Rep].Unit
	ev := Evidence{Kind: EvidencePeers, Baseline: pc.Peer, Incident: pc.Member, Unit: unit, At: n.Onset}
	r := pc.Rollout
	switch {
	case n.Facet == tcg.FacetUnready:
		asked, at := 0, ingest.Time(0)
		for _, a := range r.New.Asked {
			asked = max(asked, a.To)
			if at == 0 {
				at = a.At
			}
		}
		ev.Text = fmt.Sprintf("the new version %s was asked for %d pod(s) at %s (%s); %s of them reported in the window, "+
			"while the old version's %d pod(s) did", r.New.Label(), asked, fmtTime(at), eventReasons(r.Events),
			formatShare(pc.Member), len(pc.Peers))
		ev.Baseline, ev.Incident, ev.Unit = 1, pc.Member, "ratio"
	case n.Entity.Kind == ingest.KindRollout:
		var old []string
		for _, o := range r.Old {
			old = append(old, o.Label())
		}
		ev.Text = fmt.Sprintf("%s: the new version %s (%d pod(s)) at %s; the old version %s (%d pod(s)) at %s in the same minutes",
			familyWords(pc.Family), r.New.Label(), len(pc.Members), formatValue(pc.Member, unit), strings.Join(old, ", "),
			len(pc.Peers), peerRange(pc.PeerSeries, from, g.W1, unit))
	default:
		ev.Text = fmt.Sprintf("%s: %s at %s against %s on its %d peer(s) (%s) in the same minutes",
			familyWords(pc.Family), shortName(n.Entity.Name), formatValue(pc.Member, unit),
			peerRange(pc.PeerSeries, from, g.W1, unit), len(pc.Peers), pc.What)
	}
	return ev, true
}

// eventReasons names the rollout events briefly: "ScalingReplicaSet".
func eventReasons(evs []ingest.Event) string {
	seen := map[string]bool{}
	var out []string
	for _, e := range evs {
		if !seen[e.Reason] {
			seen[e.Reason] = true
			out = append(out, e.Reason)
		}
	}
	if len(out) == 0 {
		return "its pods' first samples"
	}
	return strings.Join(out, ", ")
}

// formatShare renders an availability as "none", "all" or a percentage.
func formatShare(x float64) string {
	switch {
	case math.IsNaN(x):
		return "~"
	case x <= 0:
		return "none"
	case x >= 1:
		return "all"
	}
	return fmt.Sprintf("%.0f%%", 100*x)
}

// familyWords renders a family key ("name|signal|k=v|…") as
// `name{k="v",…}`.
func familyWords(key string) string {
	parts := strings.Split(key, "|")
	if len(parts) < 2 {
		return key
	}
	var ls ingest.Labels
	for _, p := range parts[2:] {
		if k, v, ok := strings.Cut(p, "="); ok && identifying[k] {
			ls = append(ls, ingest.Label{Name: k, Value: v})
		}
	}
	return parts[0] + ls.String()
}

// shortName cuts a long entity name (a GPU UUID) for a sentence.
func shortName(s string) string {
	if len(s) > 24 {
		return s[:20] + "…"
	}
	return s
}

// peerRange is each peer series' median over cells [from, to), as
// "v" or "lo–hi" in the unit.
func peerRange(ss []*ingest.Series, from, to int, unit string) string {
	var meds []float64
	for _, s := range ss {
		var xs []float64
		for t := from; t < to && t < len(s.V); t++ {
			if !math.IsNaN(s.V[t]) {
				xs = append(xs, s.V[t])
			}
		}
		if len(xs) > 0 {
			meds = append(meds, measure.Quantile(xs, 0.5))
		}
	}
	if len(meds) == 0 {
		return "~"
	}
	sort.Float64s(meds)
	lo, hi := formatValue(meds[0], unit), formatValue(meds[len(meds)-1], unit)
	if lo == hi {
		return lo
	}
	return lo + "–" + hi
}

// patternEvidence describes a service's most broken per-request pattern.
func patternEvidence(p *ingest.PatternShift) Evidence {
	ev := Evidence{Kind: EvidencePattern, Baseline: math.NaN(), Incident: math.NaN(), Unit: "ratio"}
	for _, id := range p.Traces {
		ev.TraceIDs = append(ev.TraceIDs, id.String())
	}
	if p.BaselineN > 0 && p.WindowN > 0 {
		ev.Baseline = float64(p.BaselineHits) / float64(p.BaselineN)
		ev.Incident = float64(p.WindowHits) / float64(p.WindowN)
	}
	text := fmt.Sprintf("in requests of %s to %s, after %s came %s in %d of %d in the baseline and in %d of %d in the window",
		p.Operation, p.Service, p.After, p.Expected, p.BaselineHits, p.BaselineN, p.WindowHits, p.WindowN)
	if p.Instead != "" {
		text += "; instead: " + p.Instead
	}
	ev.Text = text + fmt.Sprintf(" (p = %.1g over the service's patterns)", p.P)
	return ev
}

// peerHeatRows are a contrast cause's member and peers as heatmap rows:
// each series' deviation from its own baseline, so a member that moved
// alone shows against peers that did not. At most maxPeerRows peers.
func peerHeatRows(g *tcg.Graph, n *tcg.Node, start ingest.Time, slice time.Duration, cols int) ([]HeatRow, [][]float64) {
	pc := n.Peer
	if pc == nil || len(pc.MemberSeries) == 0 {
		return nil, nil
	}
	dir := n.Dir
	var rows []HeatRow
	var cells [][]float64
	add := func(label string, s *ingest.Series) {
		row, ok := seriesHeatRow(g, s, dir, start, slice, cols)
		if ok {
			rows = append(rows, HeatRow{Label: label, Depth: 0})
			cells = append(cells, scaleHeat(row))
		}
	}
	add("member "+pc.Members[0]+" "+shortKey(pc.MemberSeries[0]), pc.MemberSeries[0])
	for k, s := range pc.PeerSeries {
		if k == maxPeerRows {
			break
		}
		add("peer "+shortKey(s), s)
	}
	return rows, cells
}

// maxPeerRows bounds the peer rows of a contrast cause's heatmap.
const maxPeerRows = 4

// seriesHeatRow is a series' deviation from its own baseline (median and
// robust scale of the graph's baseline cells), in direction dir, per slice;
// ok is false when the series has no baseline to measure against.
func seriesHeatRow(g *tcg.Graph, s *ingest.Series, dir int, start ingest.Time, slice time.Duration, cols int) ([]float64, bool) {
	var base []float64
	for t := g.B0; t < g.B1 && t < len(s.V); t++ {
		if !math.IsNaN(s.V[t]) {
			base = append(base, s.V[t])
		}
	}
	if len(base) < 2 {
		return nil, false
	}
	sort.Float64s(base)
	med, mad := measure.MedianMAD(base, nil)
	scale := math.Max(measure.MADToSigma*mad, 0.05*math.Abs(med))
	if scale <= 0 {
		scale = 1e-9
	}
	nd := &tcg.Node{Series: []*ingest.Series{s}, Dir: dir}
	nd.Baseline, nd.Scale = med, scale
	return nodeHeatRow(g, nd, start, slice, cols), true
}
