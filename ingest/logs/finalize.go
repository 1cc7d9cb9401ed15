package logs

import (
	"cmp"
	"slices"
	"strings"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/ingest/model"
	"github.com/pipeline-analyze/pipeline-analyze/logtemplate"
)

// What finalizing a bundle does with log records (finalizeLogs, in
// ingest.Prepare, then the features stage's matchLogStreams once the trace
// services are known):
//  1. streams that name no entity take Options.LogEntity;
//  2. the templates of all files are merged: the distinct (group, pattern)
//     pairs, sorted, are mined again per group into a fresh miner (Drain over
//     patterns), equal final patterns are merged, and the result is sorted
//     by (group, pattern), so that a template's index — its ID — depends on
//     the inputs only, not on file order or read parallelism;
//  3. records are sorted by time (ties in input order);
//  4. a record whose stream names no service but whose (trace, span) is a
//     span of the bundle moves to a stream of that span's service.

func init() { ingest.RegisterLogFinalizer(finalizeLogs) }

// finalizeLogs runs steps 1–4 (ingest.Prepare calls it: registered from
// init); the spans must be sorted and deduplicated.
func finalizeLogs(b *ingest.Bundle, opt ingest.Options) {
	if len(b.Logs) == 0 && len(b.LogStreams) == 0 {
		return
	}
	lim := opt.Limits.WithDefaults()
	applyLogEntity(b, opt.LogEntity)
	mergeLogTemplates(b, lim)
	sortLogs(b)
	attachLogsToSpans(b)
	capLogEntities(b, lim.MaxLogEntities)
}

// applyLogEntity gives the streams without labels the entity of the flag.
func applyLogEntity(b *ingest.Bundle, name string) {
	name = strings.TrimSpace(name)
	if name == "" {
		return
	}
	var ls ingest.LogStream
	switch {
	case strings.HasPrefix(name, "pod/"):
		ls.Pod = name[len("pod/"):]
	case strings.HasPrefix(name, "service/"):
		ls.Service = name[len("service/"):]
	case ingest.WorkloadOf(name) != name:
		ls.Pod = name
	default:
		ls.Service = name
	}
	for i := range b.LogStreams {
		s := &b.LogStreams[i]
		if s.EntityFrom == "" || s.EntityFrom == "file name" {
			s.Service, s.Pod, s.EntityFrom = ls.Service, ls.Pod, "flag"
		}
	}
}

// mergeLogTemplates is step 2, within the template budgets of lim.
func mergeLogTemplates(b *ingest.Bundle, lim ingest.Limits) {
	type key struct{ group, pattern string }
	distinct := map[key]int{}
	var keys []key
	toDistinct := make([]int, len(b.LogTemplates))
	for i := range b.LogTemplates {
		t := &b.LogTemplates[i]
		k := key{t.Group, t.Pattern}
		d, ok := distinct[k]
		if !ok {
			d = len(keys)
			distinct[k] = d
			keys = append(keys, k)
		}
		toDistinct[i] = d
	}
	order := make([]int, len(keys))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(x, y int) int {
		return cmp.Or(strings.Compare(keys[x].group, keys[y].group), strings.Compare(keys[x].pattern, keys[y].pattern))
	})
	// Mine the sorted patterns again, one miner per group.
	miners := map[string]*logtemplate.Miner{}
	budget := logtemplate.NewBudget(lim.MaxLogTemplatesTotal)
	var groups []string               // in order
	cluster := make([]int, len(keys)) // distinct → cluster of its group's miner
	for _, d := range order {
		k := keys[d]
		m := miners[k.group]
		if m == nil {
			m = logtemplate.New(MinerParams(lim, budget))
			miners[k.group] = m
			groups = append(groups, k.group)
		}
		if k.pattern == logtemplate.Other {
			cluster[d] = -1 // the Other buckets of a group merge as they are
			continue
		}
		cluster[d] = m.AddMasked(k.pattern)
	}
	var cuts MinerCuts
	for _, g := range groups {
		cuts.Add(miners[g].Stats())
	}
	cuts.Warn(b, "logs", "templates of the inputs", lim)
	final := make([]key, len(keys)) // distinct → its merged pattern
	for d, k := range keys {
		final[d] = k
		if cluster[d] >= 0 {
			final[d].pattern = miners[k.group].Template(cluster[d]).Pattern
		}
	}
	// Merge by final pattern; aggregate.
	merged := map[key]int{}
	var out []ingest.LogTemplate
	remap := make([]int32, len(b.LogTemplates))
	for i := range b.LogTemplates {
		t := &b.LogTemplates[i]
		k := final[toDistinct[i]]
		j, ok := merged[k]
		if !ok {
			j = len(out)
			merged[k] = j
			out = append(out, ingest.LogTemplate{Group: k.group, Pattern: k.pattern, First: t.First, Example: t.Example,
				ExampleSource: t.ExampleSource, ExampleLine: t.ExampleLine})
		}
		o := &out[j]
		if earlierExample(t, o) {
			o.First, o.Example, o.ExampleSource, o.ExampleLine = t.First, t.Example, t.ExampleSource, t.ExampleLine
		}
		o.Count += t.Count
		for s := range t.Severities {
			o.Severities[s] += t.Severities[s]
		}
		remap[i] = int32(j)
	}
	ids := make([]int32, len(out))
	for i := range ids {
		ids[i] = int32(i)
	}
	slices.SortFunc(ids, func(x, y int32) int {
		return cmp.Or(strings.Compare(out[x].Group, out[y].Group), strings.Compare(out[x].Pattern, out[y].Pattern))
	})
	pos := make([]int32, len(out))
	sorted := make([]ingest.LogTemplate, len(out))
	for newID, old := range ids {
		pos[old] = int32(newID)
		sorted[newID] = out[old]
	}
	for i := range b.Logs {
		r := &b.Logs[i]
		r.Template = pos[remap[r.Template]]
	}
	b.LogTemplates = sorted
}

// earlierExample reports whether t's example should replace o's: the
// earlier record, ties broken by source, line and text (never by file
// order).
func earlierExample(t, o *ingest.LogTemplate) bool {
	if t.First != o.First {
		return t.First < o.First
	}
	return cmp.Or(strings.Compare(t.ExampleSource, o.ExampleSource), cmp.Compare(t.ExampleLine, o.ExampleLine),
		strings.Compare(t.Example, o.Example)) < 0
}

// sortLogs sorts the records by time, ties in input order, in place: a
// copy of 10M records would be another 480 MB.
func sortLogs(b *ingest.Bundle) {
	byTime := func(x, y ingest.LogRecord) int { return cmp.Compare(x.Time, y.Time) }
	if !slices.IsSortedFunc(b.Logs, byTime) {
		slices.SortStableFunc(b.Logs, byTime)
	}
}

// attachLogsToSpans is step 4.
func attachLogsToSpans(b *ingest.Bundle) {
	if len(b.Spans) == 0 {
		return
	}
	need := false
	for i := range b.Logs {
		r := &b.Logs[i]
		if r.SpanID != 0 && b.LogStreams[r.Stream].Service == "" && b.LogStreams[r.Stream].Pod == "" {
			need = true
			break
		}
	}
	if !need {
		return
	}
	index := model.NewSpanTable(len(b.Spans), 1)
	for i := range b.Spans {
		if index.Lookup(b.Spans, b.Spans[i].TraceID, b.Spans[i].SpanID) < 0 {
			index.Insert(b.Spans, int32(i))
		}
	}
	derived := map[ingest.LogStream]int32{}
	for i := range b.Logs {
		r := &b.Logs[i]
		ls := b.LogStreams[r.Stream]
		if r.SpanID == 0 || ls.Service != "" || ls.Pod != "" {
			continue
		}
		si := index.Lookup(b.Spans, r.TraceID, r.SpanID)
		if si < 0 || b.Spans[si].Service.IsEmpty() {
			continue
		}
		sp := &b.Spans[si]
		ls.Service, ls.Pod, ls.EntityFrom = sp.Service.String(), sp.Pod.String(), "trace"
		if ls.Node == "" {
			ls.Node = sp.Node.String()
		}
		st, ok := derived[ls]
		if !ok {
			st = int32(len(b.LogStreams))
			b.LogStreams = append(b.LogStreams, ls)
			derived[ls] = st
		}
		r.Stream = st
	}
}
