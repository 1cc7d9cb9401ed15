package shape

import (
	"fmt"
	"math"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
)

// Kind is what a map says slowed.
type Kind uint8

// The readings.
const (
	KindUnknown    Kind = iota // too few requests to say
	KindUnchanged              // no shape slowed materially
	KindPrefill                // long prompts slowed, short ones did not: prefill-bound
	KindDecode                 // tokens came slower after the first, or long outputs slowed and short ones did not: decode-bound
	KindBoth                   // prefill- and decode-bound
	KindEverything             // every shape slowed alike: queueing or upstream
	KindUnclear                // something slowed, but no shape stands out
)

var kindNames = [...]string{"unknown", "unchanged", "prefill_bound", "decode_bound", "prefill_and_decode_bound", "everything_slowed", "unclear"}

// String is the reading's name: "prefill_bound", "decode_bound", ...
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", k)
}

// Reading is the map's one-line answer: which shapes slowed.
type Reading struct {
	Kind Kind
	// Text is the line: "requests over 4k input tokens: TTFT p99 ×3.1;
	// shorter prompts ×1.0 → prefill-bound".
	Text string
	// Split is the token count that separates the shapes that slowed from
	// those that did not (0 when none does); Axis says of which tokens:
	// "input" or "output".
	Split int64
	Axis  string
	// Long and Short are the focus metric's changes above and below Split;
	// All over every request.
	Long, Short, All Change
	Metric           Metric
	// DecodeSlowed is set when the tokens after the first slowed too (TPOT
	// of every request, or e2e of long outputs): with everything slowed, a
	// slower decode that backed requests up into a queue.
	DecodeSlowed bool
}

// split is one candidate boundary of a pattern.
type split struct {
	at                 int64
	long, short        Change
	contrast, clo, chi float64
	valid              bool
}

// read finds which shapes slowed (the reading's rules: doc.go).
func read(m *Map, base, win *Sample, opt Options, ins, outs []Bucket) Reading {
	q := opt.Quantile
	p := fmt.Sprintf("p%g", 100*q)
	if win.Len() < opt.MinGroup || base.Len() < opt.MinGroup {
		return Reading{Kind: KindUnknown, Text: fmt.Sprintf("too few requests to say which shapes slowed: %d in the baseline, %d in the window (at least %d each)", base.Len(), win.Len(), opt.MinGroup)}
	}
	all := func(k Metric) Change { return m.All.Metrics[k] }
	slowed := func(c Change) bool { return c.Slowed(opt.MinRatio) }
	pre := pattern(m, base, win, opt, TTFT, true, ins)
	e2eOut := pattern(m, base, win, opt, E2E, false, outs)
	tpotAll := m.Known[TPOT] && slowed(all(TPOT))
	// The short half of the prompts, split where the baseline's requests
	// are halved: did the wait before the first token grow for them too?
	firstKnown := TTFT
	if !m.Known[TTFT] {
		firstKnown = E2E
	}
	half := halfSplit(m, base, win, opt, firstKnown, ins)
	shortSlowed := half.valid && slowed(half.short) && slowed(half.long)
	decode := tpotAll || e2eOut.valid
	// A GPU-side slowdown stretches the first token about as much as the
	// ones after it; a first token that slowed materially more than TPOT
	// waited for something else (a queue, a call before the model).
	ttft, tpot := all(TTFT), all(TPOT)
	waitedMore := decode && m.Known[TTFT] && slowed(ttft) && !math.IsNaN(tpot.Ratio) && ttft.Ratio >= (1+opt.MinRatio)*tpot.Ratio
	switch {
	case pre.valid && decode:
		return Reading{Kind: KindBoth, Split: pre.at, Axis: "input", Long: pre.long, Short: pre.short, All: all(TTFT), Metric: TTFT,
			Text: fmt.Sprintf("requests over %s input tokens: TTFT %s %s (shorter prompts %s), and %s → prefill- and decode-bound",
				Tokens(pre.at), p, Ratio(pre.long.Ratio), Ratio(pre.short.Ratio), decodeClause(m, e2eOut, tpotAll, p))}
	case pre.valid:
		return Reading{Kind: KindPrefill, Split: pre.at, Axis: "input", Long: pre.long, Short: pre.short, All: all(TTFT), Metric: TTFT,
			Text: fmt.Sprintf("requests over %s input tokens: TTFT %s %s; shorter prompts %s → prefill-bound", Tokens(pre.at), p, Ratio(pre.long.Ratio), unchangedOr(pre.short))}
	case waitedMore:
		return Reading{Kind: KindEverything, All: ttft, Metric: TTFT, DecodeSlowed: true,
			Text: fmt.Sprintf("every shape slowed: TTFT %s %s overall, more than TPOT (%s, itself slowed) → everything slowed (a queue, behind a slower decode or a call before the model)", p, Ratio(ttft.Ratio), Ratio(tpot.Ratio))}
	case decode && !shortSlowed:
		r := Reading{Kind: KindDecode, All: all(E2E), Metric: E2E, Text: decodeClause(m, e2eOut, tpotAll, p) + ttftClause(m, p) + " → decode-bound"}
		if e2eOut.valid {
			r.Split, r.Axis, r.Long, r.Short = e2eOut.at, "output", e2eOut.long, e2eOut.short
		}
		if tpotAll && !e2eOut.valid {
			r.All, r.Metric = all(TPOT), TPOT
		}
		return r
	case shortSlowed:
		text := fmt.Sprintf("every shape slowed: %s %s %s under %s input tokens, %s over", firstKnown.Label(), p, Ratio(half.short.Ratio), Tokens(half.at), Ratio(half.long.Ratio))
		if tpotAll {
			text += fmt.Sprintf(", TPOT %s too", Ratio(all(TPOT).Ratio))
		}
		return Reading{Kind: KindEverything, Split: half.at, Axis: "input", Long: half.long, Short: half.short, All: all(firstKnown), Metric: firstKnown,
			DecodeSlowed: decode, Text: text + " → everything slowed (queueing or upstream)"}
	}
	// Every request's tail moving is a slowdown only if some shape's did:
	// with every shape unchanged it is the mix moving (more long requests
	// put more of them in the tail).
	var moved, mixed []string
	for _, k := range Metrics() {
		if !m.Known[k] || !slowed(all(k)) {
			continue
		}
		t := fmt.Sprintf("%s %s %s", k.Label(), p, Ratio(all(k).Ratio))
		if marginSlowed(m, k, opt.MinRatio) {
			moved = append(moved, t)
		} else {
			mixed = append(mixed, t)
		}
	}
	if len(moved) > 0 {
		return Reading{Kind: KindUnclear, All: all(firstKnown), Metric: firstKnown,
			Text: fmt.Sprintf("slowed, but no shape stands out: %s overall (too few requests a shape, or every shape a little)", joinNonEmpty(", ", moved...))}
	}
	var ratios []string
	for _, k := range Metrics() {
		if m.Known[k] {
			c := all(k)
			ratios = append(ratios, fmt.Sprintf("%s %s %s [%s–%s]", k.Label(), p, Ratio(c.Ratio), Ratio(c.Lo), Ratio(c.Hi)))
		}
	}
	text := "no shape slowed clearly (by a material factor, beyond its interval): " + joinNonEmpty(", ", ratios...)
	if len(mixed) > 0 {
		text += " (the tail of all requests moved with the mix of shapes, not within any)"
	}
	return Reading{Kind: KindUnchanged, All: all(firstKnown), Metric: firstKnown, Text: text}
}

// marginSlowed reports whether any merged bucket of metric k slowed along
// the axis it grows with: the input's for TTFT, the output's for TPOT and
// e2e (the other axis's margin mixes the shapes k depends on).
func marginSlowed(m *Map, k Metric, min float64) bool {
	cells := m.OutputMargin
	if k == TTFT {
		cells = m.InputMargin
	}
	for _, c := range cells {
		if c.Metrics[k].Slowed(min) {
			return true
		}
	}
	return false
}

// decodeClause says how tokens after the first slowed.
func decodeClause(m *Map, e2eOut split, tpotAll bool, p string) string {
	switch {
	case e2eOut.valid && tpotAll:
		return fmt.Sprintf("requests over %s output tokens: e2e %s %s (shorter outputs %s), TPOT %s", Tokens(e2eOut.at), p, Ratio(e2eOut.long.Ratio), Ratio(e2eOut.short.Ratio), Ratio(m.All.Metrics[TPOT].Ratio))
	case e2eOut.valid:
		return fmt.Sprintf("requests over %s output tokens: e2e %s %s; shorter outputs %s", Tokens(e2eOut.at), p, Ratio(e2eOut.long.Ratio), unchangedOr(e2eOut.short))
	}
	return fmt.Sprintf("TPOT %s %s for every output length", p, Ratio(m.All.Metrics[TPOT].Ratio))
}

// ttftClause adds the first token's change when it is known.
func ttftClause(m *Map, p string) string {
	if !m.Known[TTFT] {
		return ""
	}
	return fmt.Sprintf("; TTFT %s", Ratio(m.All.Metrics[TTFT].Ratio))
}

// unchangedOr is "unchanged (×1.0)" for a group that did not move
// materially, its ratio otherwise.
func unchangedOr(c Change) string {
	if math.IsNaN(c.Ratio) {
		return "~"
	}
	return "unchanged (" + Ratio(c.Ratio) + ")"
}

// pattern finds the boundary of the axis's merged buckets above which
// metric k slowed and below which it did not: long slowed (material, its
// interval above 1), short not materially, and long slowed more than short
// by a material factor whose interval lies above 1. Of several, the
// highest: the largest set of shapes that did not slow (a tail quantile of
// every lower boundary's long side is the longest shapes' anyway). Each
// side of a boundary needs opt.MinGroup requests a period.
func pattern(m *Map, base, win *Sample, opt Options, k Metric, input bool, bs []Bucket) split {
	var best split
	if !m.Known[k] {
		return best
	}
	for i := 1; i < len(bs); i++ {
		s := boundary(base, win, opt, k, input, bs[i].Lo)
		if !s.valid {
			continue
		}
		s.valid = s.long.Slowed(opt.MinRatio) && s.short.Ratio < 1+opt.MinRatio && s.contrast >= 1+opt.MinRatio && s.clo > 1
		if s.valid {
			best = s
		}
	}
	return best
}

// halfSplit is the boundary of the merged buckets nearest to the baseline's
// median request, for metric k along the input axis.
func halfSplit(m *Map, base, win *Sample, opt Options, k Metric, bs []Bucket) split {
	if !m.Known[k] || len(bs) < 2 {
		return split{}
	}
	all := base.count(func(float64, float64) bool { return true }, k)
	best, bestD := -1, math.MaxInt
	for i := 1; i < len(bs); i++ {
		at := bs[i].Lo
		below := base.count(func(in, _ float64) bool { return in < float64(at) }, k)
		if d := abs(2*below - all); d < bestD {
			best, bestD = i, d
		}
	}
	return boundary(base, win, opt, k, true, bs[best].Lo)
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// boundary compares the requests at or over at tokens (input or output)
// with those under it; valid when both have opt.MinGroup requests a period.
func boundary(base, win *Sample, opt Options, k Metric, input bool, at int64) split {
	long := func(in, out float64) bool {
		if input {
			return in >= float64(at)
		}
		return out >= float64(at)
	}
	short := func(in, out float64) bool { return !long(in, out) }
	bl, wl, bs, ws := base.group(long, k), win.group(long, k), base.group(short, k), win.group(short, k)
	s := split{at: at}
	if min(bl.size(), wl.size(), bs.size(), ws.size()) < opt.MinGroup {
		return s
	}
	name := fmt.Sprintf("%s split %d %v", k, at, input)
	s.long = change(bl, wl, opt.Quantile, opt.MinGroup, opt.Bootstrap, opt.Level, rng(opt.Seed, name+" long"))
	s.short = change(bs, ws, opt.Quantile, opt.MinGroup, opt.Bootstrap, opt.Level, rng(opt.Seed, name+" short"))
	if math.IsNaN(s.long.Ratio) || math.IsNaN(s.short.Ratio) || s.short.Ratio <= 0 {
		return s
	}
	s.contrast = s.long.Ratio / s.short.Ratio
	s.clo, s.chi = contrastCI(bl, wl, bs, ws, opt.Quantile, opt.Bootstrap, opt.Level, rng(opt.Seed, name+" contrast"))
	s.valid = true
	return s
}

// Bearing is what a reading says of a cause of some signal.
type Bearing int8

// The bearings.
const (
	Neutral     Bearing = 0
	Supports    Bearing = 1
	Contradicts Bearing = -1
)

// String is "supports", "contradicts" or "neutral".
func (b Bearing) String() string {
	switch b {
	case Supports:
		return "supports"
	case Contradicts:
		return "contradicts"
	}
	return "neutral"
}

// Bears is the rule of physics per kind of signal (docs/scorecard-guide.md,
// "Request shape"): what the reading says of a cause whose signal is sig,
// and why, in words. Prefill (the first token) costs compute in proportion
// to the prompt; decode (every later token) reads the weights and the KV
// cache once per token and is bound by memory bandwidth and by the slowest
// GPU of a tensor-parallel group; tokenisation and other CPU work before the
// model scale with the prompt; queueing and more traffic delay every request
// alike — and a slower decode on a busy server backs requests up into a
// queue, so every shape slowing with the tokens after the first slowing too
// bears on the decode side as well.
func (r Reading) Bears(sig ingest.SignalKind) (Bearing, string) {
	prefillSide := sig == ingest.SignalKVCache || sig == ingest.SignalCPU || sig == ingest.SignalCPUThrottle
	decodeSide := sig == ingest.SignalGPUMemBW || sig == ingest.SignalGPUUtil || sig == ingest.SignalGPUClock ||
		sig == ingest.SignalGPUThrottle || sig == ingest.SignalTemperature || sig == ingest.SignalPower || sig == ingest.SignalNVLink
	alike := sig == ingest.SignalQueue || sig == ingest.SignalTraffic
	switch r.Kind {
	case KindPrefill:
		switch {
		case prefillSide:
			return Supports, "long prompts slowed: prefill work (KV-cache and prefix-cache pressure, tokenisation) grows with the prompt"
		case sig == ingest.SignalGPUMemBW || sig == ingest.SignalNVLink:
			return Contradicts, "memory bandwidth and the tensor-parallel interconnect bound decode, but only long prompts slowed"
		case alike:
			return Contradicts, "queueing and more traffic delay every request, but only long prompts slowed"
		}
	case KindDecode:
		switch {
		case decodeSide:
			return Supports, "tokens after the first slowed: decode is bound by memory bandwidth and the slowest GPU of the group"
		case sig == ingest.SignalCPU || sig == ingest.SignalCPUThrottle:
			return Contradicts, "CPU work (tokenisation) comes before the first token, but tokens after it slowed"
		}
	case KindBoth:
		if prefillSide || decodeSide {
			return Supports, "both prefill (long prompts) and decode (tokens after the first) slowed"
		}
	case KindEverything:
		switch {
		case alike:
			return Supports, "every request shape slowed alike: queueing and more traffic delay every request"
		case decodeSide && r.DecodeSlowed:
			return Supports, "every shape slowed and the tokens after the first too: a slower decode backs requests up into a queue"
		}
	}
	return Neutral, ""
}
