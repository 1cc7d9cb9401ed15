package logs

import (
	"cmp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/logtemplate"
)

// Log budgets: every structure the log readers build grows with the input
// only up to a bound of Limits, and what a bound cuts is said in a warning
// that names the flag raising it.
//
//   - records of one input: MaxLogRecords (--max-log-records-per-input);
//     the rest of the input is not read;
//   - bytes of one record's text: MaxLogRecordBytes (--max-log-record-size),
//     a physical line at most MaxLineBytes; a longer record is cut;
//   - records waiting for their continuation lines: MaxPendingBytes over
//     all streams of an input; past it every pending record is finished
//     (a stack trace split there is mined as two records);
//   - streams of one input: MaxLogStreams (--max-log-streams); records of
//     further streams go to one unlabelled overflow stream (they keep their
//     trace links, so a span can still place them);
//   - templates: MaxLogTemplates per service of one input
//     (--max-log-templates), MaxLogTemplatesTotal per input and over all
//     inputs once merged (--max-log-templates-total); the miner's own bounds
//     (a leaf of its tree, a token's length) are fixed. Lines past a bound
//     count in their service's "<other>" template;
//   - services and pods with log series: MaxLogEntities
//     (--max-log-entities); the ones with the most records are kept, the
//     streams of the others lose their labels (their records stay).
//
// Each bound costs O(1) per line; Finalize's entity cap is one pass over
// the records and a sort of the entities.

// MaxPendingBytes bounds the text of the records of one input waiting for
// continuation lines, over all its streams.
const MaxPendingBytes = 32 << 20

// OverflowEntity marks the stream that collects the records of the streams
// past MaxLogStreams (it names no entity; LogEntity does not apply to it).
const OverflowEntity = "overflow"

// MinerParams are the miner parameters of the budgets lim (one budget b
// shared by the miners of an input, or of the merge).
func MinerParams(lim ingest.Limits, b *logtemplate.Budget) logtemplate.Params {
	return logtemplate.Params{MaxTemplates: lim.MaxLogTemplates, Budget: b}
}

// MinerCuts sums what the miners' bounds cut.
type MinerCuts struct {
	perService, total, leaf, tokens int
}

// Add sums one miner's cuts.
func (c *MinerCuts) Add(s logtemplate.Stats) {
	c.perService += s.OtherTemplates
	c.total += s.OtherBudget
	c.leaf += s.OtherLeaf
	c.tokens += s.LongTokens
}

// Warn adds one warning per bound that cut something; what names the
// things counted ("log lines", or "templates" when merging the inputs').
func (c MinerCuts) Warn(b *ingest.Bundle, source, what string, lim ingest.Limits) {
	if c.perService > 0 {
		b.Warn(ingest.ErrLimit, source, c.perService, "%d %s counted in their service's <other> template: more than %d templates in one service (--max-log-templates)", c.perService, what, lim.MaxLogTemplates)
	}
	if c.total > 0 {
		b.Warn(ingest.ErrLimit, source, c.total, "%d %s counted in their service's <other> template: more than %d templates in all (--max-log-templates-total)", c.total, what, lim.MaxLogTemplatesTotal)
	}
	if c.leaf > 0 {
		b.Warn(ingest.ErrLimit, source, c.leaf, "%d %s counted in their service's <other> template: more than %d templates of the same length and first word", c.leaf, what, logtemplate.DefaultParams().MaxLeafTemplates)
	}
	if c.tokens > 0 {
		b.Warn(ingest.ErrLimit, source, c.tokens, "%d words of %s longer than %d bytes mined by their start", c.tokens, what, logtemplate.DefaultParams().MaxTokenBytes)
	}
}

// CutText returns the first n bytes of s, at a character boundary.
func CutText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// capLogEntities keeps the streams of the max busiest services and the max
// busiest pods (ties by name); the others' streams lose their labels (their
// records are kept, with their trace links), with a warning: every service
// and pod with records costs a few series over the whole grid.
func capLogEntities(b *ingest.Bundle, max int) {
	if max <= 0 || len(b.LogStreams) <= max {
		return // fewer streams than the bound: fewer entities too
	}
	type ent struct {
		name string
		n    int
	}
	per := make([]int, len(b.LogStreams)) // records per stream
	for i := range b.Logs {
		per[b.Logs[i].Stream]++
	}
	count := func(name func(ls *ingest.LogStream) string) (keep map[string]bool, cut int) {
		idx := map[string]int{}
		var ents []ent
		for i := range b.LogStreams {
			k := name(&b.LogStreams[i])
			if k == "" || per[i] == 0 {
				continue
			}
			j, ok := idx[k]
			if !ok {
				j = len(ents)
				idx[k] = j
				ents = append(ents, ent{name: k})
			}
			ents[j].n += per[i]
		}
		if len(ents) <= max {
			return nil, 0
		}
		slices.SortFunc(ents, func(x, y ent) int { return cmp.Or(cmp.Compare(y.n, x.n), strings.Compare(x.name, y.name)) })
		keep = make(map[string]bool, max)
		for _, e := range ents[:max] {
			keep[e.name] = true
		}
		return keep, len(ents) - max
	}
	svc, cutSvc := count(func(ls *ingest.LogStream) string { return ls.Service })
	pods, cutPods := count(func(ls *ingest.LogStream) string { return ls.Pod })
	if svc == nil && pods == nil {
		return
	}
	moved := 0
	for i := range b.LogStreams {
		ls := &b.LogStreams[i]
		if svc != nil && ls.Service != "" && !svc[ls.Service] || pods != nil && ls.Pod != "" && !pods[ls.Pod] {
			moved += per[i] // its records stay, unlabelled: they keep their trace links
			ls.Service, ls.Pod, ls.Namespace, ls.Container, ls.EntityFrom = "", "", "", "", OverflowEntity
		}
	}
	b.Warn(ingest.ErrLimit, "logs", moved, "%d log records of %d services and %d pods kept unlabelled: only the %d busiest services and pods keep log series (--max-log-entities)",
		moved, cutSvc, cutPods, max)
}
