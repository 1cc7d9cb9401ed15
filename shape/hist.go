package shape

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
)

// The histogram half: without spans that carry token counts, the shapes
// come from an LLM server's request-size histograms — a histogram of the
// prompt (input) tokens of each request and one of its generated (output)
// tokens, as vLLM exports (vllm:request_prompt_tokens and
// vllm:request_generation_tokens: _sum, _count, _bucket) — and its latency
// histograms or quantiles (time to first token, time per output token or
// inter-token latency, end-to-end). Per entity (pod, else service) and grid
// step: the requests it counted, their mean input and output tokens
// (Δsum/Δcount) and each latency's step histogram (Δ per bucket) or the
// step's quantile. A histogram's series are cumulative counters (their
// increments are taken, a decrease is a reset) or per-second rates (a name
// with a rate word: multiplied by the step). Series are recognised by the
// words of their names, like classification: no metric family is named.

// role is what a series measures for the map.
type role uint8

const (
	roleNone role = iota
	roleIn        // input tokens per request
	roleOut       // output tokens per request
	roleTTFT
	roleTPOT
	roleE2E
)

// part is a histogram component.
type part uint8

const (
	partNone part = iota
	partSum
	partCount
	partBucket
	partQuantile
)

// words splits a lowercased name at every non-alphanumeric character.
func words(name string) []string {
	return strings.FieldsFunc(strings.ToLower(name), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
	})
}

// isRateWord reports a rate token (rate, irate, rate1m, ...).
func isRateWord(w string) bool {
	return w == "rate" || w == "irate" || w == "increase" || strings.HasPrefix(w, "rate") && len(w) > 4 && w[4] >= '0' && w[4] <= '9'
}

// classifySeries returns the series' role and part, and whether its values are
// per-second rates.
func classifySeries(s *ingest.Series) (role, part, bool) {
	ws := words(s.Name)
	rate := s.Stat == "rate"
	for len(ws) > 0 && isRateWord(ws[len(ws)-1]) {
		ws, rate = ws[:len(ws)-1], true
	}
	if slices.ContainsFunc(ws, isRateWord) {
		rate = true
	}
	has := func(xs ...string) bool {
		return slices.ContainsFunc(ws, func(w string) bool { return slices.Contains(xs, w) })
	}
	joined := "_" + strings.Join(ws, "_") + "_"
	sub := func(xs ...string) bool {
		return slices.ContainsFunc(xs, func(x string) bool { return strings.Contains(joined, x) })
	}
	p, last := partNone, ""
	if len(ws) > 0 {
		last = ws[len(ws)-1]
	}
	switch {
	case last == "bucket" || s.Labels.Get("le") != "":
		p = partBucket
	case last == "sum":
		p = partSum
	case last == "count":
		p = partCount
	case strings.HasPrefix(s.Stat, "p") && ingest.IsDigits(s.Stat[1:]):
		p = partQuantile
	}
	if p == partNone {
		return roleNone, partNone, rate
	}
	tokens := has("tokens", "token")
	switch {
	case sub("_time_to_first_token_") || has("ttft"):
		return roleTTFT, p, rate
	case sub("_time_per_output_token_", "_inter_token_latency_") || has("tpot", "itl"):
		return roleTPOT, p, rate
	case has("e2e") && (has("latency", "seconds", "duration") || p == partQuantile):
		return roleE2E, p, rate
	case tokens && has("prompt", "input") && p != partQuantile:
		return roleIn, p, rate
	case tokens && has("generation", "completion", "output", "generated") && p != partQuantile:
		return roleOut, p, rate
	}
	return roleNone, partNone, rate
}

// family is one entity's series of one role.
type family struct {
	sum, count *ingest.Series
	buckets    []*ingest.Series // one per le
	les        []float64
	quantile   *ingest.Series // the quantile series nearest the map's quantile
	qDist      float64
	rate       map[*ingest.Series]bool
}

// histSet is the histogram families of one service, by entity.
type histSet struct {
	step     float64 // seconds
	grid     []ingest.Time
	entities []string
	fam      map[string]*[roleE2E + 1]family
}

// histSource is FindSource's histogram half.
func histSource(b *ingest.Bundle, target string) (Source, bool) {
	type ent struct{ svc, id string }
	found := map[string]map[string]bool{} // service → entities with an input-size histogram
	for _, s := range b.Series {
		if !s.Aligned {
			continue
		}
		if r, p, _ := classifySeries(s); r == roleIn && (p == partSum || p == partCount) {
			svc := s.Entity.Service
			if found[svc] == nil {
				found[svc] = map[string]bool{}
			}
			found[svc][s.Entity.ID()] = true
		}
	}
	svc := target
	if len(found[svc]) == 0 {
		svc = ""
		for s, es := range found {
			if svc == "" || len(es) > len(found[svc]) || len(es) == len(found[svc]) && s < svc {
				svc = s
			}
		}
	}
	if svc == "" || len(found[svc]) == 0 {
		return Source{}, false
	}
	hs := &histSet{step: b.Step.Seconds(), grid: b.Grid, fam: map[string]*[roleE2E + 1]family{}}
	q := DefaultOptions().Quantile
	for _, s := range b.Series {
		if !s.Aligned || s.Entity.Service != svc {
			continue
		}
		r, p, rate := classifySeries(s)
		if r == roleNone {
			continue
		}
		id := s.Entity.ID()
		fs := hs.fam[id]
		if fs == nil {
			fs = &[roleE2E + 1]family{}
			hs.fam[id] = fs
			hs.entities = append(hs.entities, id)
		}
		f := &fs[r]
		if f.rate == nil {
			f.rate = map[*ingest.Series]bool{}
		}
		f.rate[s] = rate
		switch p {
		case partSum:
			if f.sum == nil {
				f.sum = s
			}
		case partCount:
			if f.count == nil {
				f.count = s
			}
		case partBucket:
			le, err := strconv.ParseFloat(strings.TrimSpace(s.Labels.Get("le")), 64)
			if err != nil || math.IsNaN(le) || slices.Contains(f.les, le) {
				continue
			}
			k, _ := slices.BinarySearch(f.les, le)
			f.les = slices.Insert(f.les, k, le)
			f.buckets = slices.Insert(f.buckets, k, s)
		case partQuantile:
			qv, _ := strconv.ParseFloat(strings.TrimPrefix(s.Stat, "p"), 64)
			for qv >= 1 {
				qv /= 10
			}
			if d := math.Abs(qv - q); f.quantile == nil || d < f.qDist {
				f.quantile, f.qDist = s, d
			}
		}
	}
	slices.Sort(hs.entities)
	return Source{Service: svc, Hist: true, hist: hs}, true
}

// incr is the series' increment over grid step i: the rate times the step
// for a rate, the difference from the previous point for a counter (the
// value itself after a decrease: a reset); NaN when unknown.
func (h *histSet) incr(s *ingest.Series, rate bool, i int) float64 {
	if s == nil || i >= len(s.V) {
		return math.NaN()
	}
	v := s.V[i]
	if rate {
		return v * h.step
	}
	if i == 0 || math.IsNaN(s.V[i-1]) {
		return math.NaN()
	}
	if d := v - s.V[i-1]; d >= 0 {
		return d
	}
	return v
}

// collect is the observations of the steps in [from, to).
func (h *histSet) collect(from, to ingest.Time) *Sample {
	out := &Sample{Hist: true}
	for _, id := range h.entities {
		fs := h.fam[id]
		in, outF := &fs[roleIn], &fs[roleOut]
		if in.sum == nil || in.count == nil || outF.sum == nil {
			continue
		}
		for i, t := range h.grid {
			if t < from || t >= to {
				continue
			}
			n := h.incr(in.count, in.rate[in.count], i)
			si := h.incr(in.sum, in.rate[in.sum], i)
			no := h.incr(outF.count, outF.rate[outF.count], i)
			if math.IsNaN(no) {
				no = n
			}
			so := h.incr(outF.sum, outF.rate[outF.sum], i)
			if !(n > 0) || !(no > 0) || math.IsNaN(si) || math.IsNaN(so) {
				continue
			}
			o := obs{in: si / n, out: so / no, n: n}
			for k, r := range [numMetrics]role{roleTTFT, roleTPOT, roleE2E} {
				f := &fs[r]
				o.v[k] = math.NaN()
				if len(f.buckets) > 0 {
					hg := &histo{}
					prev := 0.0
					ok := true
					for j, b := range f.buckets {
						c := h.incr(b, f.rate[b], i)
						if math.IsNaN(c) {
							ok = false
							break
						}
						// Prometheus buckets are cumulative in le: the
						// bucket's own count is the difference.
						hg.le = append(hg.le, f.les[j])
						hg.c = append(hg.c, max(0, c-prev))
						prev = max(prev, c)
					}
					if ok {
						o.h[k] = hg
					}
				}
				if o.h[k] == nil && f.quantile != nil && i < len(f.quantile.V) {
					o.v[k] = f.quantile.V[i]
				}
			}
			out.obs = append(out.obs, o)
		}
	}
	return out
}
