package ingest

import (
	"math"
	"sort"
	"strings"
	"time"
)

// isRawCounter reports whether a series is a raw (cumulative) counter by the
// Prometheus naming convention: a name ending in "_total" or "_count".
// Sub-second profile timelines (Nsight, Kineto: per-bin counts such as
// kernel_count) and span-derived series are not counters.
func isRawCounter(s *Series) bool {
	if s.Source == DerivedSource || !(strings.HasSuffix(s.Name, "_total") || strings.HasSuffix(s.Name, "_count")) {
		return false
	}
	return len(s.T) < 2 || seriesStep(s) >= time.Second
}

// counterResets counts the drops of a raw counter: points whose value is
// below the previous non-NaN value (a process restart starts it from 0).
func counterResets(s *Series) int {
	n, last := 0, math.NaN()
	for _, v := range s.V {
		if math.IsNaN(v) {
			continue
		}
		if v < last {
			n++
		}
		last = v
	}
	return n
}

// checkCounterResets warns, once per input file, about raw counters
// (isRawCounter) that drop. The values are kept as read: a reset is a fact
// about the process (it restarted), not bad data, and rate-like signals are
// the analysis's business. Must run after cleanSeries (points sorted). O(points).
func checkCounterResets(b *Bundle) {
	type perFile struct {
		resets, series int
		example        string
	}
	files := map[string]*perFile{}
	for _, s := range b.Series {
		if !isRawCounter(s) {
			continue
		}
		n := counterResets(s)
		if n == 0 {
			continue
		}
		f := files[s.Source]
		if f == nil {
			f = &perFile{example: s.Name}
			if len(s.Labels) > 0 {
				f.example += s.Labels.String()
			}
			files[s.Source] = f
		}
		f.resets += n
		f.series++
	}
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		f := files[name]
		b.Warn(ErrCounterReset, name, f.resets, "%d counter resets in %d _total/_count series (e.g. %s): the counter dropped (process restart?); values kept as read",
			f.resets, f.series, f.example)
	}
}
