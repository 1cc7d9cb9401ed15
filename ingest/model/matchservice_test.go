package model

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"
)

// TestMatchServicePrefixes checks matchService against the definition it
// implements (the longest known service that prefixes the name followed by
// "-", after the exact and workload matches), on random names built from
// the known services' parts.
func TestMatchServicePrefixes(t *testing.T) {
	parts := []string{"a", "b", "cart", "cart-svc", "svc", "-", "x1", "7f9c4d5b8-abcde", "redis"}
	r := rand.New(rand.NewPCG(3, 4))
	word := func() string {
		var sb strings.Builder
		for n := 1 + r.IntN(4); n > 0; n-- {
			if sb.Len() > 0 && r.IntN(3) > 0 {
				sb.WriteByte('-')
			}
			sb.WriteString(parts[r.IntN(len(parts))])
		}
		return sb.String()
	}
	for trial := 0; trial < 2000; trial++ {
		known := map[string]bool{}
		for n := r.IntN(6); n >= 0; n-- {
			known[word()] = true
		}
		delete(known, "")
		name := word()
		if got, want := matchService(name, known), refMatchService(name, known); got != want {
			t.Fatalf("matchService(%q, %v) = %q, want %q", name, known, got, want)
		}
	}
}

// refMatchService is matchService as it was: a scan of every known service.
func refMatchService(name string, known map[string]bool) string {
	if name == "" {
		return ""
	}
	if known[name] {
		return name
	}
	if w := WorkloadOf(name); known[w] {
		return w
	}
	sorted := make([]string, 0, len(known))
	for s := range known {
		sorted = append(sorted, s)
	}
	sort.Strings(sorted)
	best := ""
	for _, s := range sorted {
		if len(s) > len(best) && strings.HasPrefix(name, s+"-") {
			best = s
		}
	}
	return best
}

// BenchmarkMatchService matches pod names of untraced services (the
// fallback path) against 10,000 known services: the scan against the
// prefix lookups (the scan's sort is outside the loop, as in Finalize).
func BenchmarkMatchService(b *testing.B) {
	known := map[string]bool{}
	for i := range 10_000 {
		known[fmt.Sprintf("svc-%05d", i)] = true
	}
	sorted := make([]string, 0, len(known))
	for s := range known {
		sorted = append(sorted, s)
	}
	sort.Strings(sorted)
	names := []string{"svc-99999-7f9c4d5b8-abcde", "other-7f9c4d5b8-abcde", "svc-00042-x-1"}
	b.Run("scan", func(b *testing.B) {
		for b.Loop() {
			for _, n := range names {
				best := ""
				for _, s := range sorted {
					if len(s) > len(best) && strings.HasPrefix(n, s+"-") {
						best = s
					}
				}
			}
		}
	})
	b.Run("prefixes", func(b *testing.B) {
		for b.Loop() {
			for _, n := range names {
				matchService(n, known)
			}
		}
	})
}
