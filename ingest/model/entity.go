package model

import (
	"strings"
)

// podNameAlphabet is the alphabet Kubernetes draws generated name parts from
// (k8s.io/apimachinery/pkg/util/rand): consonants and digits without vowels,
// 0, 1 and 3, so that generated suffixes never spell words. Pod-template
// hashes (rand.SafeEncodeString) use the same alphabet.
const podNameAlphabet = "bcdfghjklmnpqrstvwxz2456789"

// isGenerated reports whether s has n in [lo, hi] characters, all drawn from
// podNameAlphabet (and, when needDigit, at least one digit).
func isGenerated(s string, lo, hi int, needDigit bool) bool {
	if len(s) < lo || len(s) > hi {
		return false
	}
	digit := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if strings.IndexByte(podNameAlphabet, c) < 0 {
			return false
		}
		if c >= '0' && c <= '9' {
			digit = true
		}
	}
	return digit || !needDigit
}

// IsDigits reports whether s is non-empty and all ASCII digits.
func IsDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// WorkloadOf maps a Kubernetes pod (or ReplicaSet) name to the name of the
// workload that owns it, using only the name:
//
//   - Deployment pod "<deploy>-<hash>-<sfx>" (hash 6–10, sfx 5 characters of
//     the generated-name alphabet) → "<deploy>":
//     "frontend-579b9bff58-t2dbm" → "frontend";
//   - DaemonSet or Job pod "<name>-<sfx>" → "<name>";
//   - StatefulSet pod "<name>-<ordinal>" → "<name>" ("vllm-0" → "vllm");
//   - ReplicaSet "<deploy>-<hash>" (hash 8–10 generated characters with at
//     least one digit) → "<deploy>".
//
// The generated alphabet has no vowels, so ordinary words ("user-service",
// "redis-cache") are never stripped; names that do not look generated come
// back unchanged. The result is never empty for a non-empty input.
func WorkloadOf(pod string) string {
	name := strings.TrimSpace(pod)
	i := strings.LastIndexByte(name, '-')
	if i <= 0 || i == len(name)-1 {
		return name
	}
	head, last := name[:i], name[i+1:]
	switch {
	case isGenerated(last, 5, 5, false):
		// Deployment pod (strip the template hash too) or DaemonSet/Job pod.
		if j := strings.LastIndexByte(head, '-'); j > 0 && isGenerated(head[j+1:], 6, 10, false) {
			return head[:j]
		}
		return head
	case IsDigits(last) && len(last) <= 5:
		return head
	case isGenerated(last, 8, 10, true):
		return head
	}
	return name
}

// NormalizeHost reduces a host, address or URL to the bare lowercase host
// name used as a node's entity name: it strips a scheme, a path, a ":port"
// and IPv6 brackets ("http://10.0.0.7:9100/metrics" → "10.0.0.7",
// "[::1]:9400" → "::1"). An unbracketed IPv6 address is kept whole.
func NormalizeHost(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.Index(s, "://"); i >= 0 {
		s = s[i+3:]
	}
	if i := strings.IndexByte(s, '/'); i >= 0 {
		s = s[:i]
	}
	if strings.HasPrefix(s, "[") {
		if j := strings.IndexByte(s, ']'); j > 0 {
			return strings.ToLower(s[1:j])
		}
	}
	if strings.Count(s, ":") == 1 {
		if i := strings.LastIndexByte(s, ':'); IsDigits(s[i+1:]) {
			s = s[:i]
		}
	}
	return strings.ToLower(s)
}

// FirstNonEmpty returns the first of vs that is not blank, trimmed ("" when
// none is).
func FirstNonEmpty(vs ...string) string {
	for _, v := range vs {
		if v = strings.TrimSpace(v); v != "" {
			return v
		}
	}
	return ""
}
