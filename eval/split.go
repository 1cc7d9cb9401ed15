package eval

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"slices"
	"sort"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/internal/boundedfile"
)

// Split halves of a development set (eval --split): rules are designed while
// looking at the design half only, and the check half is only measured.
const (
	SplitAll    = "all"
	SplitDesign = "design"
	SplitCheck  = "check"
)

// caseHalf is a case's half of its set: "design" or "check". Within a set,
// the cases are ordered by fault and then by the SHA-256 of the case id,
// and alternate between the halves in that order: every fault with two
// cases has one in each half (a stratified split), and the halves differ
// by at most one case. The assignment depends only on the set's case ids
// and faults, never on results.
func caseHalves(cases []splitCase) map[string]string {
	bySet := map[string][]splitCase{}
	for _, c := range cases {
		bySet[c.set] = append(bySet[c.set], c)
	}
	out := map[string]string{}
	for _, set := range slices.Sorted(maps.Keys(bySet)) {
		cs := bySet[set]
		sort.Slice(cs, func(i, j int) bool {
			if cs[i].fault != cs[j].fault {
				return cs[i].fault < cs[j].fault
			}
			hi, hj := sha256.Sum256([]byte(cs[i].id)), sha256.Sum256([]byte(cs[j].id))
			if c := slices.Compare(hi[:], hj[:]); c != 0 {
				return c < 0
			}
			return cs[i].id < cs[j].id
		})
		for k, c := range cs {
			h := SplitDesign
			if k%2 == 1 {
				h = SplitCheck
			}
			out[c.dir] = h
		}
	}
	return out
}

// splitCase is what the split reads of a case: its directory, id, set and
// fault.
type splitCase struct {
	dir, id, set, fault string
}

// setSummary aggregates one set × method.
type setSummary struct {
	Set    string `json:"set"`
	Method string `json:"method"`
	evalSummary
}

// summarizeSets aggregates the results per set and method (sets sorted,
// methods in the order given).
func summarizeSets(rs []caseResult, methods []string) []setSummary {
	sets := map[string][]caseResult{}
	for _, r := range rs {
		sets[r.Set] = append(sets[r.Set], r)
	}
	var out []setSummary
	for _, s := range slices.Sorted(maps.Keys(sets)) {
		sum := summarize(sets[s], methods)
		for _, m := range sum[len(sum)-len(methods):] { // the "overall" rows
			out = append(out, setSummary{Set: s, Method: m.Method, evalSummary: m})
		}
	}
	return out
}

// printSets prints the per-set table: every method beside the default,
// at the service (AC@k, Avg@5) and the component level (C@1, C@3).
func printSets(w io.Writer, sum []setSummary, half string) {
	title := "per set, every method"
	if half != SplitAll {
		title += fmt.Sprintf(" (the %s half)", half)
	}
	fmt.Fprintln(w, title)
	fmt.Fprintf(w, "%-16s %-10s %4s  %4s  %4s  %4s  %5s  %4s  %4s\n", "set", "method", "n", "AC@1", "AC@3", "AC@5", "Avg@5", "C@1", "C@3")
	for _, s := range sum {
		fmt.Fprintf(w, "%-16s %-10s %4d  %4.2f  %4.2f  %4.2f  %5.2f  %4.2f  %4.2f\n", truncateRunes(s.Set, 16), s.Method, s.N, s.AC1, s.AC3, s.AC5, s.Avg5, s.Comp1, s.Comp3)
	}
	fmt.Fprintln(w)
}

// describeCases reads each case's id, set and fault (its label's fault; a
// case whose label cannot be read has none) for the split.
func describeCases(dirs, roots []string) []splitCase {
	out := make([]splitCase, 0, len(dirs))
	for _, d := range dirs {
		c := splitCase{dir: d, id: filepath.Base(d), set: setOf(d, roots)}
		if data, err := boundedfile.ReadFile(filepath.Join(d, "label.json"), ingest.DefaultLimits().MaxDocumentBytes, ""); err == nil {
			var lb label
			if json.Unmarshal(data, &lb) == nil {
				c.fault = lb.Fault
			}
		}
		out = append(out, c)
	}
	return out
}

// printEvalOverall prints the overall row of every method and the
// failures' count: what --split check shows of its half (no fault rows,
// no case names).
func printEvalOverall(w io.Writer, rs []caseResult, sum []evalSummary, methods []string) {
	fmt.Fprintln(w, "overall, every method (the check half: aggregates only)")
	fmt.Fprintf(w, "%-26s %4s  %4s  %4s  %4s  %5s  %4s  %4s\n", "method", "n", "AC@1", "AC@3", "AC@5", "Avg@5", "C@1", "C@3")
	for j, m := range methods {
		s := sum[len(sum)-len(methods)+j]
		fmt.Fprintf(w, "%-26s %4d  %4.2f  %4.2f  %4.2f  %5.2f  %4.2f  %4.2f\n", m, s.N, s.AC1, s.AC3, s.AC5, s.Avg5, s.Comp1, s.Comp3)
	}
	failures := 0
	for _, r := range rs {
		if r.Error != "" {
			failures++
		}
	}
	fmt.Fprintf(w, "failures: %d (counted as misses)\n\n", failures)
}

// truncateRunes cuts s to n runes, ending in "…".
func truncateRunes(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
