package analysis

import (
	"math"
	"slices"
	"strings"
	"unicode"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/measure"
	"github.com/pipeline-analyze/pipeline-analyze/tcg"
)

// The paged series: the target node of the graph holds every series of
// the target service's signal (a gateway's request p99, its time to first
// token p99, a trace-derived p99, the success ratios of its calls ...);
// the counterfactual and the card must speak of the one that paged. The
// alert says which by its expression (the generator URL's PromQL: metric
// names and label matchers), its labels (stat="Average", slo="ttft-p99")
// and the statistic its name or summary gives; --target SERVICE:WORD:STAT
// by a WORD that is not a signal's own name (ttft, tpot). The choice is
// made by matching words and labels, never by a metric family's name.
//
// The lead may prefer this in tcg's pickTarget; it lives here because the
// graph's target choice is being reworked (pickSeries only sets
// g.TargetSeries among the target node's own series, before the causal
// stage reads it).

// seriesWanted is what says which series paged.
type seriesWanted struct {
	words  []string          // name words the series should carry (lowercase)
	labels map[string]string // labels whose values must agree where the series has them
	stat   string            // the statistic ("p99", "Average"); "" any
	strict bool              // --target: the words must match (a series without them is no choice)
}

// alertWanted reads what an alert says about its series.
func alertWanted(a *ingest.Alert) (seriesWanted, bool) {
	if a == nil {
		return seriesWanted{}, false
	}
	w := seriesWanted{labels: map[string]string{}, stat: a.Stat}
	for _, n := range exprMetricNames(a.Expr) {
		w.words = append(w.words, nameWords(trimSuffixes(n))...)
	}
	for k, v := range exprMatchers(a.Expr) {
		w.labels[k] = v
	}
	for _, l := range a.Labels {
		switch l.Name {
		case "alertname", "severity", "team", "receiver", "instance", "job", "prometheus", "alertstate":
			continue
		}
		if _, ok := w.labels[l.Name]; !ok {
			w.labels[l.Name] = l.Value
		}
		w.words = append(w.words, nameWords(l.Value)...)
		if l.Name == "stat" && w.stat == "" {
			w.stat = l.Value
		}
	}
	if q := exprQuantile(a.Expr); q != "" && w.stat == "" {
		w.stat = q
	}
	return w, len(w.words) > 0 || len(w.labels) > 0 || w.stat != ""
}

// targetWanted reads --target's words: a SIGNAL word that is not the
// signal's own name (an alias such as ttft) names the series.
func targetWanted(raw string, t tcg.Target) (seriesWanted, bool) {
	parts := strings.Split(raw, ":")
	if len(parts) < 2 {
		return seriesWanted{}, false
	}
	word := strings.ToLower(parts[1])
	if word == t.Signal.String() || word == t.Stat {
		return seriesWanted{}, false
	}
	return seriesWanted{words: []string{word}, stat: t.Stat, strict: true}, true
}

// pickSeries sets g.TargetSeries to the target node's series that w
// describes best: a series that moved in the window (the alert fired on
// one that did) before one that did not, then the best match (words and
// labels), then the larger deviation, then the graph's own choice. It
// keeps the graph's choice when nothing matches, and says so in a note
// when the series that matches best did not move while the graph's did.
func pickSeries(g *tcg.Graph, w seriesWanted) (note string) {
	if g.Target < 0 || g.TargetSeries == nil {
		return ""
	}
	n := g.Nodes[g.Target]
	th := g.Threshold
	if th <= 0 {
		th = tcg.DefaultThreshold
	}
	type cand struct {
		s          *ingest.Series
		score, dev float64
		moved      bool
		original   bool
	}
	var cs []cand
	for _, s := range n.Series {
		score, ok := seriesScore(s, w)
		if !ok || score <= 0 {
			continue
		}
		dev := badDeviation(g, s, n.Dir)
		cs = append(cs, cand{s: s, score: score, dev: dev, moved: dev/madToSigma >= th, original: s == g.TargetSeries})
	}
	if len(cs) == 0 {
		return ""
	}
	slices.SortStableFunc(cs, func(a, b cand) int {
		switch {
		case a.moved != b.moved:
			if a.moved {
				return -1
			}
			return 1
		case a.score != b.score:
			return cmpDesc(a.score, b.score)
		case a.dev != b.dev && !math.IsNaN(a.dev) && !math.IsNaN(b.dev):
			return cmpDesc(a.dev, b.dev)
		case a.original != b.original:
			if a.original {
				return -1
			}
			return 1
		}
		return strings.Compare(a.s.Key(), b.s.Key())
	})
	best := cs[0]
	if !best.moved {
		if orig := badDeviation(g, g.TargetSeries, n.Dir); orig/madToSigma >= th {
			return "the alert's own series " + best.s.Name + best.s.Labels.String() + " did not move in the window; the card explains " +
				g.TargetSeries.Name + g.TargetSeries.Labels.String() + ", which did"
		}
	}
	g.TargetSeries = best.s
	return ""
}

// madToSigma turns a median absolute deviation into a robust σ.
const madToSigma = 1.4826

func cmpDesc(a, b float64) int {
	if a > b {
		return -1
	}
	return 1
}

// seriesScore is how well a series matches: one point per wanted word its
// name carries (a run of wanted words its name abbreviates, "ttft" for
// "time to first token", counts each word), one per agreeing label; ok is
// false when a label or the statistic disagrees.
func seriesScore(s *ingest.Series, w seriesWanted) (float64, bool) {
	if w.stat != "" && s.Stat != "" && !strings.EqualFold(w.stat, s.Stat) {
		return 0, false
	}
	score := 0.0
	if w.stat != "" && strings.EqualFold(w.stat, s.Stat) {
		score += 0.5
	}
	for k, v := range w.labels {
		if sv := s.Labels.Get(k); sv != "" {
			if sv != v {
				score -= 0.5 // another service's, pod's ... series
				continue
			}
			score += 0.5
		}
	}
	have := nameWords(s.Name)
	score += float64(wordMatches(w.words, have))
	return score, true
}

// wordMatches counts the wanted words found in have, directly or through
// an abbreviation in have of a run of wanted words (each of the run
// counts).
func wordMatches(want, have []string) int {
	used := make([]bool, len(want))
	for i, x := range want {
		if slices.Contains(have, x) || abbreviates(x, have) {
			used[i] = true
		}
	}
	for _, h := range have {
		if len(h) < 2 {
			continue
		}
		for i := 0; i+len(h) <= len(want); i++ {
			ok := true
			for k := 0; k < len(h); k++ {
				if want[i+k] == "" || want[i+k][0] != h[k] {
					ok = false
					break
				}
			}
			if ok && h != want[i] {
				for k := 0; k < len(h); k++ {
					used[i+k] = true
				}
			}
		}
	}
	n := 0
	for _, u := range used {
		if u {
			n++
		}
	}
	return n
}

// abbreviates reports whether word is the initials of a run of words
// ("ttft" of time, to, first, token).
func abbreviates(word string, words []string) bool {
	if len(word) < 2 {
		return false
	}
	for i := 0; i+len(word) <= len(words); i++ {
		ok := true
		for k := 0; k < len(word); k++ {
			if words[i+k] == "" || words[i+k][0] != word[k] {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

// nameWords splits a name into lowercase words at every character that
// is not a letter or digit ("gateway_ttft_p99" → gateway, ttft, p99).
func nameWords(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// trimSuffixes drops the suffixes of a histogram's or counter's series
// (_bucket, _count, _sum, _total).
func trimSuffixes(n string) string {
	for _, suf := range []string{"_bucket", "_count", "_sum", "_total"} {
		n = strings.TrimSuffix(n, suf)
	}
	return n
}

// promqlKeywords are PromQL's functions, aggregations and keywords: words
// of an expression that are not metric names.
var promqlKeywords = map[string]bool{"sum": true, "avg": true, "min": true, "max": true, "count": true, "rate": true, "irate": true,
	"increase": true, "delta": true, "idelta": true, "histogram_quantile": true, "quantile": true, "by": true, "without": true,
	"on": true, "ignoring": true, "group_left": true, "group_right": true, "and": true, "or": true, "unless": true, "bool": true,
	"offset": true, "topk": true, "bottomk": true, "stddev": true, "stdvar": true, "abs": true, "clamp_min": true, "clamp_max": true,
	"avg_over_time": true, "max_over_time": true, "min_over_time": true, "sum_over_time": true, "quantile_over_time": true,
	"count_over_time": true, "absent": true, "vector": true, "scalar": true, "le": true, "label_replace": true, "deriv": true}

// exprMetricNames are the metric names of a PromQL expression: the
// identifiers that are no keyword or function, outside label matchers
// and strings, and not a label name of a by/without clause.
func exprMetricNames(expr string) []string {
	var out []string
	inBraces, inParenGroup := 0, false
	prev := ""
	for i := 0; i < len(expr); {
		c := expr[i]
		switch {
		case c == '"' || c == '\'' || c == '`':
			j := i + 1
			for j < len(expr) && expr[j] != c {
				if expr[j] == '\\' {
					j++
				}
				j++
			}
			i = j + 1
			continue
		case c == '{':
			inBraces++
		case c == '}':
			inBraces--
		case c == '(':
			inParenGroup = prev == "by" || prev == "without" || prev == "on" || prev == "ignoring"
		case c == ')':
			inParenGroup = false
		case c == '[':
			for i < len(expr) && expr[i] != ']' {
				i++
			}
		case isIdentStart(c):
			j := i
			for j < len(expr) && (isIdentStart(expr[j]) || expr[j] >= '0' && expr[j] <= '9') {
				j++
			}
			id := expr[i:j]
			prev = id
			if inBraces == 0 && !inParenGroup && !promqlKeywords[id] {
				out = append(out, id)
			}
			i = j
			continue
		}
		if c != ' ' {
			prev = ""
		}
		i++
	}
	return out
}

func isIdentStart(c byte) bool {
	return c == '_' || c == ':' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// exprMatchers are the equality label matchers of an expression
// (name="value"), the last value of a name winning.
func exprMatchers(expr string) map[string]string {
	out := map[string]string{}
	for i := 0; i < len(expr); i++ {
		if expr[i] != '{' {
			continue
		}
		end := strings.IndexByte(expr[i:], '}')
		if end < 0 {
			break
		}
		for _, m := range strings.Split(expr[i+1:i+end], ",") {
			k, v, ok := strings.Cut(m, "=")
			k, v = strings.TrimSpace(k), strings.TrimSpace(v)
			if !ok || strings.HasSuffix(k, "!") || strings.HasPrefix(v, "~") || len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' {
				continue // != and =~ are no equality
			}
			out[k] = v[1 : len(v)-1]
		}
		i += end
	}
	return out
}

// exprQuantile is the statistic of histogram_quantile(0.99, ...): "p99".
func exprQuantile(expr string) string {
	const f = "histogram_quantile("
	i := strings.Index(expr, f)
	if i < 0 {
		return ""
	}
	arg, _, ok := strings.Cut(expr[i+len(f):], ",")
	if !ok {
		return ""
	}
	arg = strings.TrimSpace(arg)
	if !strings.HasPrefix(arg, "0.") {
		return ""
	}
	return "p" + strings.TrimRight(strings.TrimPrefix(arg, "0."), "0")
}

// badDeviation is how far a series' window went from its baseline's
// median in the bad direction, in baseline MADs (NaN when unknown).
func badDeviation(g *tcg.Graph, s *ingest.Series, dir int) float64 {
	if g.B1 <= g.B0 || g.W1 <= g.W0 || g.W1 > len(s.V) {
		return math.NaN()
	}
	var base []float64
	for _, v := range s.V[g.B0:g.B1] {
		if !math.IsNaN(v) {
			base = append(base, v)
		}
	}
	if len(base) == 0 {
		return math.NaN()
	}
	slices.Sort(base)
	med := measure.QuantileSorted(base, 0.5)
	for i := range base {
		base[i] = math.Abs(base[i] - med)
	}
	slices.Sort(base)
	mad := math.Max(measure.QuantileSorted(base, 0.5), 1e-9*math.Max(math.Abs(med), 1))
	best := math.NaN()
	for _, v := range s.V[g.W0:g.W1] {
		if math.IsNaN(v) {
			continue
		}
		z := (v - med) / mad
		switch {
		case dir < 0:
			z = -z
		case dir == 0:
			z = math.Abs(z)
		}
		if math.IsNaN(best) || z > best {
			best = z
		}
	}
	return best
}
