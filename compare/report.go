package compare

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/pipeline-analyze/pipeline-analyze/compare/internal/render"
	"github.com/pipeline-analyze/pipeline-analyze/compare/model"
	"github.com/pipeline-analyze/pipeline-analyze/ingest"
)

// report assembles the Report from the decided items.
func (r *run) report() *model.Report {
	o := r.opt
	rep := &model.Report{SchemaVersion: model.SchemaVersion, Tool: model.Tool{Name: "pipeline-analyze", Version: o.Version}, Mode: model.ModeBeforeAfter, CausesFrom: o.CausesFrom}
	rep.Settings = model.Settings{Alpha: o.Alpha, FalseAlarm: o.Alpha, MinDelta: o.MinDelta, MinRatio: o.MinRatio, MinH: o.MinH, MinShift: o.MinShift,
		MinSamples: o.MinSamples, MinCells: o.MinCells, MinPoints: o.MinPoints, MinCoverage: o.MinCoverage, Cell: o.Cell,
		Window: r.window, BandWindows: o.BandWindows, SeriesWindows: o.SeriesWindows, Bootstrap: o.Bootstrap, Seed: o.Seed, Tests: r.tests, MaxFindings: o.MaxFindings}
	rep.Before = r.sideInfo("before", r.before, r.bd)
	rep.After = r.sideInfo("after", r.after, r.ad)
	if r.baseStart != 0 {
		rep.Before.BaselineStart, rep.Before.BaselineEnd = r.baseStart, r.before.Start
	}
	byID := map[string]*itemWork{}
	for _, w := range r.work {
		rep.Items = append(rep.Items, w.item)
		byID[w.item.ID] = w
	}
	for _, v := range model.Verdicts() {
		n := 0
		for _, w := range r.work {
			if w.item.Verdict == v {
				n++
			}
		}
		rep.Counts = append(rep.Counts, model.Count{Verdict: v, N: n})
	}
	measures := r.targetItems()
	tv, target := targetVerdict(measures)
	rep.Target = r.finding(0, target, r.targetLabel())
	rep.Target.Verdict = tv
	if n := len(measures); n > 1 {
		k := 0
		for _, w := range measures {
			if w.item.Verdict == tv {
				k++
			}
		}
		rep.Target.Text += fmt.Sprintf("; %d of %d measurements %s", k, n, tv)
	}
	byCalls := len(measures) > 0 && measures[0].item.EntityKind == "edge"
	if byCalls {
		rep.Target.Text += "; measured by its calls (it has no " + measures[0].item.Signal + " of its own)"
	}
	isTarget := map[*itemWork]bool{}
	for _, w := range measures {
		// Its calls measure the target and their callees: they stay among
		// the regressions, where they name the service called.
		isTarget[w] = !byCalls
	}
	var causeWork []*itemWork
	var causeLabels []string
	for _, c := range o.Causes {
		w := r.causeItem(c)
		f := r.finding(c.Rank, w, causeLabel(c))
		rep.Causes = append(rep.Causes, f)
		causeWork, causeLabels = append(causeWork, w), append(causeLabels, f.Label)
	}
	var regs, imps, traffic []*itemWork
	for _, w := range r.work {
		switch w.item.Verdict {
		case model.Regressed:
			if !isTarget[w] {
				regs = append(regs, w)
			}
		case model.Fixed, model.Improved:
			imps = append(imps, w)
		}
		if w.item.Kind == model.KindRate && w.item.EntityKind == "service" {
			traffic = append(traffic, w)
		}
	}
	byEffect := func(ws []*itemWork) {
		sort.SliceStable(ws, func(i, j int) bool {
			a, b := ws[i].item, ws[j].item
			if a.Effect != b.Effect {
				return a.Effect > b.Effect
			}
			if a.LogRatio != b.LogRatio {
				return a.LogRatio > b.LogRatio
			}
			return a.ID < b.ID
		})
	}
	byEffect(regs)
	byEffect(imps)
	regs = r.causesFirst(regs)
	// A rollout that regressed comes first: a change that went bad in the
	// window is what to undo, whatever moved most downstream of it.
	sort.SliceStable(regs, func(i, j int) bool {
		return regs[i].item.Kind == model.KindRollout && regs[j].item.Kind != model.KindRollout
	})
	regs, regMore := perEntity(regs)
	imps, impMore := perEntity(imps)
	sort.SliceStable(traffic, func(i, j int) bool {
		a, b := traffic[i].item, traffic[j].item
		if a.Before.N != b.Before.N {
			return a.Before.N > b.Before.N
		}
		return a.ID < b.ID
	})
	for i, w := range first(regs, o.MaxFindings) {
		rep.Regressions = append(rep.Regressions, withMore(r.finding(i+1, w, labelOf(&w.item)), regMore[w], "regressed"))
	}
	for i, w := range first(imps, o.MaxFindings) {
		rep.Improvements = append(rep.Improvements, withMore(r.finding(i+1, w, labelOf(&w.item)), impMore[w], "improved"))
	}
	for i, w := range first(traffic, o.MaxFindings) {
		rep.Traffic = append(rep.Traffic, r.finding(i+1, w, labelOf(&w.item)))
	}
	nregs := len(regs)
	for _, m := range regMore {
		nregs += m
	}
	rep.Verdict = r.summary(rep, tv, target, nregs)
	if byCalls && tv == model.Regressed {
		rep.Verdict.Regressions-- // the target's regressed calls are already among the regressions
	}
	rep.Watch = r.watchList(measures, causeWork, causeLabels, rep)
	rep.Plots = r.plots(target, rep, byID)
	rep.Heatmap = r.heatmap()
	rep.Warnings = r.footnotes(target)
	r.inputs(rep)
	return rep
}

// causesFirst puts the regressions that no other regression explains
// first, each group in its order: an effect does not outrank its cause
// (the ranking's principle). A regression of service S's latency or errors
// is explained by a regression of the same signal of a service that S
// calls, directly or through others (the call edges of the spans), when
// that service does not also call S and got worse by as much (S's increase
// at most a material change, MinRatio, beyond its largest, in the same
// unit): a callee's slowness or failures show up in its callers, not the
// other way, and a callee 5 ms slower explains no caller 5 s slower. A
// service's log regression (new templates, error records) is explained by
// a latency or errors regression of any service it calls the same way,
// whatever its size: callers log their callees' failures (TrainTicket's
// Tomcat "threw exception … with root cause" lines). An
// edge's items belong to its callee (a delay on a call is on the way to
// it). Without a call topology the order is unchanged.
func (r *run) causesFirst(regs []*itemWork) []*itemWork {
	if len(r.calls) == 0 || len(regs) < 2 {
		return regs
	}
	reach := map[string]map[string]bool{}
	below := func(s string) map[string]bool {
		if m, ok := reach[s]; ok {
			return m
		}
		m := map[string]bool{}
		queue := []string{s}
		for len(queue) > 0 {
			cur := queue[0]
			queue = queue[1:]
			for nxt := range r.calls[cur] {
				if !m[nxt] {
					m[nxt] = true
					queue = append(queue, nxt)
				}
			}
		}
		reach[s] = m
		return m
	}
	// How much each service's signal got worse: the largest increase of
	// its regressed items of it, in the item's unit (increase in the bad
	// direction: seconds of latency, a share of requests failing).
	type key struct{ svc, sig, unit string }
	most := map[key]float64{}
	for _, w := range regs {
		if d := worsening(&w.item); w.item.Service != "" && d == d {
			k := key{w.item.Service, w.item.Signal, w.item.Unit}
			if v, ok := most[k]; !ok || d > v {
				most[k] = d
			}
		}
	}
	var first, later []*itemWork
	for _, w := range regs {
		it := &w.item
		d := worsening(it)
		explained := false
		if (it.Signal == "latency" || it.Signal == "errors") && it.Service != "" && d == d {
			for k, v := range most {
				if k.sig == it.Signal && k.unit == it.Unit && k.svc != it.Service && below(it.Service)[k.svc] && !below(k.svc)[it.Service] &&
					d <= (1+r.opt.MinRatio)*v {
					explained = true
					break
				}
			}
		}
		if it.Signal == "logs" && it.Service != "" {
			for k := range most {
				if (k.sig == "latency" || k.sig == "errors") && k.svc != it.Service && below(it.Service)[k.svc] && !below(k.svc)[it.Service] {
					explained = true
					break
				}
			}
		}
		if explained {
			later = append(later, w)
		} else {
			first = append(first, w)
		}
	}
	return append(first, later...)
}

// worsening is how much an item got worse, in its unit: a
// distribution's shown quantile, a series' median or an error ratio, the
// increase in the bad direction; NaN when unknown.
func worsening(it *model.Item) float64 {
	switch it.Kind {
	case model.KindDistribution:
		if qc, ok := shownQuantile(it); ok {
			return qc.Diff
		}
	case model.KindProportion:
		return it.After.Ratio - it.Before.Ratio
	case model.KindSeries:
		if it.Direction != 0 {
			return float64(it.Direction) * (it.After.Median - it.Before.Median)
		}
	}
	return math.NaN()
}

// perEntity keeps the first (largest) item of each entity of a sorted
// list and counts, per kept item, the entity's other items.
func perEntity(ws []*itemWork) ([]*itemWork, map[*itemWork]int) {
	seen := map[string]*itemWork{}
	more := map[*itemWork]int{}
	var out []*itemWork
	for _, w := range ws {
		if k := seen[w.item.Entity]; k != nil {
			more[k]++
			continue
		}
		seen[w.item.Entity] = w
		out = append(out, w)
	}
	return out, more
}

// withMore notes the entity's other items in a finding.
func withMore(f model.Finding, n int, what string) model.Finding {
	switch {
	case n == 1:
		f.Text += "; 1 more item of it " + what
	case n > 1:
		f.Text += "; " + itoa(n) + " more items of it " + what
	}
	return f
}

func first(ws []*itemWork, n int) []*itemWork {
	if len(ws) > n {
		return ws[:n]
	}
	return ws
}

func (r *run) sideInfo(name string, s Side, d *sideData) model.SideInfo {
	in := model.SideInfo{Name: name, Paths: append([]string{}, s.Paths...), Start: s.Start, End: s.End, ChosenBy: s.ChosenBy,
		Covered: covered(s.Bundle, s.Start, s.End), Spans: d.spans, Series: d.nseries}
	if t := d.sets["service/"+r.opt.Target.Service]; t != nil {
		in.Requests = t.len()
	}
	return in
}

// targetItems are the measurements of the incident target: the
// span-level item of the target service's signal, then the series of that
// service (or of an entity named like it, or of its pods) and signal —
// only those of the target's stat when it has one and such series exist —
// the service's own first.
func (r *run) targetItems() []*itemWork {
	t := r.opt.Target
	if t.Service == "" {
		return nil
	}
	sig := t.Signal.String()
	if t.Signal == ingest.SignalOther {
		sig = "latency"
	}
	var span, series []*itemWork
	for _, w := range r.work {
		it := &w.item
		if it.Signal != sig || it.Facet != "" {
			continue
		}
		if it.Kind != model.KindSeries && it.Entity == "service/"+t.Service {
			span = append(span, w)
		}
		named := strings.EqualFold(it.Entity[strings.IndexByte(it.Entity, '/')+1:], t.Service)
		if it.Kind == model.KindSeries && (named || it.Service == t.Service && (it.EntityKind == "workload" || it.EntityKind == "pod")) {
			series = append(series, w)
		}
	}
	if t.Stat != "" {
		var same []*itemWork
		for _, w := range series {
			if strings.EqualFold(w.stat, t.Stat) {
				same = append(same, w)
			}
		}
		if len(same) > 0 {
			series = same
		}
	}
	sort.SliceStable(series, func(i, j int) bool {
		a, b := series[i], series[j]
		ra, rb := seriesPref(a, t.Stat), seriesPref(b, t.Stat)
		if ra != rb {
			return ra < rb
		}
		return a.item.ID < b.item.ID
	})
	if len(span)+len(series) == 0 {
		return r.callerSide(t.Service, sig)
	}
	return append(span, series...)
}

// callerSide are the measurements of a service that has none of its own
// for a signal: its calls as it sees them — the edges it calls, their
// caller-side latency or their errors — in ID order (an ingress service
// measured only by its mesh's per-edge series). Empty when it calls none.
func (r *run) callerSide(svc, sig string) []*itemWork {
	var out []*itemWork
	prefix := "edge/" + svc + "->"
	for _, w := range r.work {
		it := &w.item
		if it.Signal != sig || !strings.HasPrefix(it.Entity, prefix) || it.Kind == model.KindRollout {
			continue
		}
		if it.Facet == "client" || it.Facet == "" && it.Signal != "latency" {
			out = append(out, w)
		}
	}
	return out
}

// targetVerdict combines the target's measurements: regressed when any
// regressed; otherwise improved when any only improved, fixed when any was
// fixed (and none only improved); otherwise changed, unchanged, or
// insufficient data when none could be decided. It returns the verdict and
// the measurement that shows it (the largest effect among those with it).
func targetVerdict(ms []*itemWork) (model.Verdict, *itemWork) {
	if len(ms) == 0 {
		return model.Insufficient, nil
	}
	for _, v := range []model.Verdict{model.Regressed, model.Improved, model.Fixed, model.Changed, model.Unchanged} {
		var best *itemWork
		for _, w := range ms {
			if w.item.Verdict == v && (best == nil || w.item.Effect > best.item.Effect) {
				best = w
			}
		}
		if best != nil {
			return v, best
		}
	}
	return model.Insufficient, ms[0]
}

// seriesPref orders a target's candidate series: the service's own (or
// an entity named like it) before its pods, the asked-for stat first.
func seriesPref(w *itemWork, stat string) int {
	p := 0
	if w.item.EntityKind == "pod" || w.item.EntityKind == "workload" {
		p += 2
	}
	if stat != "" && !strings.EqualFold(w.stat, stat) {
		p++
	}
	return p
}

func (r *run) targetLabel() string {
	t := r.opt.Target
	if t.Service == "" {
		return "no target"
	}
	s := t.Signal.String()
	if t.Signal == ingest.SignalOther {
		s = "latency"
	}
	if t.Stat != "" {
		s += " " + t.Stat
	}
	return s + " of service/" + t.Service
}

// causeItem is the item that best represents a BEFORE cause: items of the
// cause's component and signal first — for a service its pods and
// workload too; for a pod its workload when it was replaced, and its
// service (the analysis names a service's only pod for the service) —
// then, among those that can be decided, the one that moved most.
func (r *run) causeItem(c Cause) *itemWork {
	type cand struct {
		w    *itemWork
		prio int // 0: the component itself, 1: related
	}
	var cands []cand
	for _, w := range r.work {
		it := &w.item
		if it.Signal != c.Signal || it.Facet != c.Facet {
			continue
		}
		prio := -1
		switch c.ComponentKind {
		case "service":
			switch {
			case it.Entity == "service/"+c.Component:
				prio = 0
			case it.Service == c.Service && (it.EntityKind == "pod" || it.EntityKind == "workload"):
				prio = 1
			}
		case "pod":
			switch {
			case it.Entity == "pod/"+c.Component:
				prio = 0
			case it.Service == c.Service && (it.EntityKind == "workload" || it.Entity == "service/"+c.Service):
				prio = 1
			}
		default:
			if it.Entity == c.ComponentKind+"/"+c.Component {
				prio = 0
			}
		}
		if prio >= 0 {
			cands = append(cands, cand{w, prio})
		}
	}
	sort.SliceStable(cands, func(i, j int) bool {
		a, b := cands[i], cands[j]
		ai, bi := a.w.item.Verdict == model.Insufficient, b.w.item.Verdict == model.Insufficient
		if ai != bi {
			return bi
		}
		if a.prio != b.prio {
			return a.prio < b.prio
		}
		if ea, eb := a.w.item.Effect, b.w.item.Effect; ea != eb && ea == ea && eb == eb {
			return ea > eb
		}
		return a.w.item.ID < b.w.item.ID
	})
	if len(cands) == 0 {
		return nil
	}
	return cands[0].w
}

func causeLabel(c Cause) string {
	s := c.Signal
	if c.Facet != "" {
		s += " (" + c.Facet + ")"
	}
	return fmt.Sprintf("%s of %s/%s", s, c.ComponentKind, c.Component)
}

// finding describes one item for a list; w may be nil (nothing matched).
func (r *run) finding(rank int, w *itemWork, label string) model.Finding {
	if w == nil {
		return model.Finding{Rank: rank, Label: label, Verdict: model.Insufficient, Text: "no data of it on both sides"}
	}
	return model.Finding{Rank: rank, Label: label, Item: w.item.ID, Verdict: w.item.Verdict, Text: changeText(&w.item)}
}

// summary is the one-line answer for the target; elsewhere counts the
// regressions of items that do not measure the target.
func (r *run) summary(rep *model.Report, v model.Verdict, target *itemWork, elsewhere int) model.Summary {
	s := model.Summary{Verdict: v, Regressions: elsewhere}
	what := r.targetLabel()
	if v == model.Regressed {
		s.Regressions++
	}
	switch {
	case target == nil:
		s.Text = "insufficient data: no item of the target " + what + " on both sides"
	case v == model.Fixed:
		s.Text = "fixed: " + what + " is back within its baseline band (" + rep.Target.Text + ")"
	case v == model.Improved:
		s.Text = "improved: " + what + " got better, not (known to be) back within its baseline band (" + rep.Target.Text + ")"
	case v == model.Unchanged:
		s.Text = "not fixed: " + what + " is unchanged (" + rep.Target.Text + ")"
	case v == model.Regressed:
		s.Text = "regressed: " + what + " got worse (" + rep.Target.Text + ")"
	case v == model.Changed:
		s.Text = "changed: " + what + " (" + rep.Target.Text + ")"
	default:
		s.Text = "insufficient data for " + what + ": " + target.item.Reason
	}
	switch {
	case elsewhere == 1:
		s.Text += "; 1 regression elsewhere: " + rep.Regressions[0].Label
	case elsewhere > 1:
		s.Text += "; " + itoa(elsewhere) + " regressions elsewhere, worst: " + rep.Regressions[0].Label
	default:
		s.Text += "; no regression elsewhere"
	}
	return s
}

// footnotes are the report's warnings: sides too short, no baseline band,
// a traffic change at the target, and each side's data-quality warnings.
func (r *run) footnotes(target *itemWork) []model.Footnote {
	var out []model.Footnote
	addF := func(side, kind, msg string) {
		out = append(out, model.Footnote{N: len(out) + 1, Side: side, Kind: kind, Message: msg})
	}
	if r.shortB != "" {
		addF("before", "too_short", r.shortB)
	}
	if r.shortA != "" {
		addF("after", "too_short", r.shortA)
	}
	if r.baseStart == 0 {
		addF("before", "no_baseline", "BEFORE has no data before its window: there is no baseline band, so nothing can be called fixed (at best improved) and regressions rest on the two windows alone")
	} else if n := r.bandCount(); n < r.opt.BandWindows {
		addF("before", "short_baseline", fmt.Sprintf("BEFORE's baseline (%s) holds %d of the %d windows of %s a band needs: nothing can be called fixed, and regressions rest on the two windows alone",
			fmtDur(r.before.Start.Sub(r.baseStart)), n, r.opt.BandWindows, fmtDur(r.window)))
	}
	var disturbed []string
	for _, w := range r.work {
		if w.disturbed && w.short == "" {
			disturbed = append(disturbed, w.item.ID)
		}
	}
	if n := len(disturbed); n > 0 {
		msg := fmt.Sprintf("BEFORE's baseline holds disturbances of its own: %s had baseline windows whose level lay as far from the others as a regression must move (an earlier incident?), e.g. %s; their bands leave those windows out when judging a regression (not when judging a fix)",
			itoa(n)+" series", disturbed[0])
		addF("before", "disturbed_baseline", msg)
	}
	if t := r.opt.Target.Service; t != "" {
		for _, w := range r.work {
			it := &w.item
			if it.ID != "service/"+t+":traffic" || w.short != "" {
				continue
			}
			rr := it.Test.RateRatio
			if rr == rr && (rr < 1/(1+r.opt.MinRatio) || rr > 1+r.opt.MinRatio) {
				addF("after", "traffic", fmt.Sprintf("AFTER serves ×%s the target's traffic of BEFORE (%s/s → %s/s): latency and saturation under a different load are not like for like; errors are compared per request and CPU, network and disk per request where traffic is known",
					fix(rr, 2), render.Fix3(it.Before.Rate), render.Fix3(it.After.Rate)))
			}
		}
	}
	if target == nil && r.opt.Target.Service != "" {
		addF("", "no_target", "no data of the target "+r.targetLabel()+" was found")
	}
	seen := map[string]bool{}
	for si, s := range []Side{r.before, r.after} {
		if si == 1 && s.Bundle == r.before.Bundle {
			break
		}
		side := []string{"before", "after"}[si]
		if r.after.Bundle == r.before.Bundle {
			side = ""
		}
		for _, wn := range s.Bundle.Warnings {
			kind, msg := model.WarningText(wn)
			if k := side + kind + msg; !seen[k] {
				seen[k] = true
				addF(side, kind, msg)
			}
		}
	}
	return out
}

// bandCount is how many baseline windows fit (before sample checks).
func (r *run) bandCount() int {
	n := 0
	r.bandWindows(func(_, _ ingest.Time) { n++ })
	return n
}

// inputs lists both sides' inputs and the manifest.
func (r *run) inputs(rep *model.Report) {
	rep.Manifest = model.Manifest{Version: r.opt.Version, Args: append([]string{"pipeline-analyze", "compare"}, r.opt.Args...), Seed: r.opt.Seed}
	for si, s := range []Side{r.before, r.after} {
		side := []string{"before", "after"}[si]
		if r.after.Bundle == r.before.Bundle {
			if si == 1 {
				break
			}
			side = "both"
		}
		for _, in := range s.Bundle.Inputs {
			msg := in.Error
			rep.Inputs = append(rep.Inputs, model.Input{Side: side, Path: in.Path, Format: in.Format.String(), SHA256: in.SHA256,
				Size: in.Size, Skipped: in.Skipped, Error: msg})
			rep.Manifest.Inputs = append(rep.Manifest.Inputs, model.ManifestInput{Side: side, Path: in.Path, SHA256: in.SHA256})
		}
	}
}
