package model

import (
	"cmp"
	"slices"
)

// LogJoin says how a log record was joined to the span of the request
// that wrote it.
type LogJoin uint8

// Joins, most certain first.
const (
	JoinNone      LogJoin = iota
	JoinSpanID            // the record names its trace and span (OTLP traceId/spanId, "SpanID: …" in the line)
	JoinTraceTime         // it names its trace only: the span of its service in that trace that was open when it was written
	JoinPodTime           // it names no trace: the span of its pod (or service) open when it was written, the latest begun
)

var logJoinNames = [...]string{"none", "span id", "trace and time", "pod and time"}

func (j LogJoin) String() string {
	if int(j) < len(logJoinNames) {
		return logJoinNames[j]
	}
	return "join?"
}

// maxJoinScan bounds how many earlier spans of a pod the time join looks
// at for one record: spans are sorted by start, and a record belongs to
// one that began shortly before it.
const maxJoinScan = 64

// LogSpans joins every log record to the span of the request that wrote
// it: by its trace and span IDs; else, when it names only its trace, the
// span of its stream's service in that trace whose interval holds the
// record's time (the innermost: the latest begun); else the span of its
// stream's pod (its service when the stream names no pod) that holds its
// time, the latest begun. It returns the span index of each record (-1
// when none) and how each was joined. O(records · log spans + spans).
func (b *Bundle) LogSpans() ([]int32, []LogJoin) {
	span := make([]int32, len(b.Logs))
	how := make([]LogJoin, len(b.Logs))
	for i := range span {
		span[i] = -1
	}
	if len(b.Spans) == 0 || len(b.Logs) == 0 {
		return span, how
	}
	index := NewSpanTable(len(b.Spans), 1)
	for i := range b.Spans {
		if index.Lookup(b.Spans, b.Spans[i].TraceID, b.Spans[i].SpanID) < 0 {
			index.Insert(b.Spans, int32(i))
		}
	}
	// Spans by trace and service, and by pod (else service), each sorted
	// by start, built only when a record needs them.
	type traceSvc struct {
		trace TraceID
		svc   string
	}
	var byTrace map[traceSvc][]int32
	var byPlace map[string][]int32
	sortByStart := func(m map[string][]int32) {
		for _, ix := range m {
			slices.SortFunc(ix, func(x, y int32) int {
				return cmp.Or(cmp.Compare(b.Spans[x].Start, b.Spans[y].Start), cmp.Compare(x, y))
			})
		}
	}
	// holding returns, of spans sorted by start, the latest begun at or
	// before t whose end is at or after t (-1 when none).
	holding := func(ix []int32, t Time) int32 {
		k, _ := slices.BinarySearchFunc(ix, t, func(i int32, t Time) int {
			if b.Spans[i].Start <= t {
				return -1
			}
			return 1
		})
		for j := k - 1; j >= 0 && j >= k-maxJoinScan; j-- {
			if s := &b.Spans[ix[j]]; s.End() >= t {
				return ix[j]
			}
		}
		return -1
	}
	for i := range b.Logs {
		r := &b.Logs[i]
		if r.TraceID != (TraceID{}) && r.SpanID != 0 {
			if si := index.Lookup(b.Spans, r.TraceID, r.SpanID); si >= 0 {
				span[i], how[i] = si, JoinSpanID
				continue
			}
		}
		ls := &b.LogStreams[r.Stream]
		if r.TraceID != (TraceID{}) {
			if byTrace == nil {
				byTrace = map[traceSvc][]int32{}
				for k := range b.Spans {
					key := traceSvc{b.Spans[k].TraceID, b.Spans[k].Service.String()}
					byTrace[key] = append(byTrace[key], int32(k))
				}
				for _, ix := range byTrace {
					slices.SortFunc(ix, func(x, y int32) int {
						return cmp.Or(cmp.Compare(b.Spans[x].Start, b.Spans[y].Start), cmp.Compare(x, y))
					})
				}
			}
			if si := holding(byTrace[traceSvc{r.TraceID, ls.Service}], r.Time); si >= 0 {
				span[i], how[i] = si, JoinTraceTime
			}
			continue // a record of another trace never joins by time alone
		}
		place := ls.Pod
		if place == "" {
			place = "service:" + ls.Service
		}
		if place == "service:" {
			continue
		}
		if byPlace == nil {
			byPlace = map[string][]int32{}
			for k := range b.Spans {
				s := &b.Spans[k]
				if !s.Pod.IsEmpty() {
					byPlace[s.Pod.String()] = append(byPlace[s.Pod.String()], int32(k))
				}
				byPlace["service:"+s.Service.String()] = append(byPlace["service:"+s.Service.String()], int32(k))
			}
			sortByStart(byPlace)
		}
		if si := holding(byPlace[place], r.Time); si >= 0 {
			span[i], how[i] = si, JoinPodTime
		}
	}
	return span, how
}
