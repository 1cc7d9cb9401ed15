// Package suggest offers "did you mean" suggestions for names a user typed:
// the nearest known names by edit distance or containment.
package suggest

import (
	"slices"
	"sort"
	"strconv"
	"strings"
)

// EditDistance is the Levenshtein distance between a and b, in runes,
// case-insensitively. O(len(a)·len(b)) time, O(len(b)) space.
func EditDistance(a, b string) int {
	ra, rb := []rune(strings.ToLower(a)), []rune(strings.ToLower(b))
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

// nearest returns the candidates closest to s: those within an edit
// distance of a third of s's length (at least 1, at most 3), or that
// contain s or are contained in it (at least 3 runes), nearest first, ties
// by name. It is what "did you mean" offers.
func nearest(s string, candidates []string) []string {
	type hit struct {
		name string
		d    int
	}
	limit := min(max(1, len([]rune(s))/3), 3)
	ls := strings.ToLower(s)
	var hits []hit
	seen := map[string]bool{}
	for _, c := range candidates {
		if seen[c] || c == "" {
			continue
		}
		seen[c] = true
		d := EditDistance(s, c)
		lc := strings.ToLower(c)
		sub := len(ls) >= 3 && (strings.Contains(lc, ls) || strings.Contains(ls, lc) && len(lc) >= 3)
		if d <= limit || sub {
			hits = append(hits, hit{c, d})
		}
	}
	sort.Slice(hits, func(i, j int) bool {
		if hits[i].d != hits[j].d {
			return hits[i].d < hits[j].d
		}
		return hits[i].name < hits[j].name
	})
	out := make([]string, 0, len(hits))
	for _, h := range hits {
		out = append(out, h.name)
	}
	return out
}

// DidYouMean is "; did you mean X?" (or "X or Y?") for the closest
// candidates, "" when none is close.
func DidYouMean(s string, candidates []string, quote func(string) string) string {
	hits := nearest(s, candidates)
	if len(hits) == 0 {
		return ""
	}
	if quote == nil {
		quote = func(x string) string { return x }
	}
	if len(hits) == 1 || len(hits) > 1 && EditDistance(s, hits[0]) < EditDistance(s, hits[1]) {
		return "; did you mean " + quote(hits[0]) + "?"
	}
	return "; did you mean " + quote(hits[0]) + " or " + quote(hits[1]) + "?"
}

// KnownList is "a, b, c, … (N in all)" with at most n names, sorted.
func KnownList(names []string, n int) string {
	s := append([]string(nil), names...)
	sort.Strings(s)
	s = slices.Compact(s)
	if len(s) <= n {
		return strings.Join(s, ", ")
	}
	return strings.Join(s[:n], ", ") + ", … (" + strconv.Itoa(len(s)) + " in all)"
}

// OrPeriod turns a "; did you mean X?" suggestion into the separator before
// the list of known names.
func OrPeriod(s string) string {
	if s == "" {
		return ";"
	}
	return s
}

// OrNone is s, or "none" when s is empty.
func OrNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}
