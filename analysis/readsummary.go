package analysis

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
)

// ReadSummary is the one line saying what was read, as the CLI's
// progress says it after a read (Progress.Read): "read 14 inputs in 0.4s
// (prometheus-query-range 9, jaeger-json 1, ...): 4210 spans, 312 series,
// 0 log records, 2026-… → 2026-… (14m0s); 1 skipped".
func ReadSummary(b *ingest.Bundle, took time.Duration) string {
	n := map[string]int{}
	read, skipped := 0, 0
	for _, in := range b.Inputs {
		if in.Skipped {
			skipped++
			continue
		}
		read++
		n[in.Format.String()]++
	}
	formats := make([]string, 0, len(n))
	for f := range n {
		formats = append(formats, f)
	}
	sort.Slice(formats, func(i, j int) bool {
		if n[formats[i]] != n[formats[j]] {
			return n[formats[i]] > n[formats[j]]
		}
		return formats[i] < formats[j]
	})
	for i, f := range formats {
		formats[i] = fmt.Sprintf("%s %d", f, n[f])
	}
	s := fmt.Sprintf("read %s in %s (%s): %d spans, %d series, %d log records", plural(read, "input"), took.Round(10*time.Millisecond),
		strings.Join(formats, ", "), len(b.Spans), len(b.Series), len(b.Logs))
	if b.End != 0 {
		s += ", " + DataRange(b)
	}
	if skipped > 0 {
		s += fmt.Sprintf("; %d skipped (see the report's inputs; -v names them)", skipped)
	}
	return s
}

// plural is "1 input", "3 inputs".
func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}
