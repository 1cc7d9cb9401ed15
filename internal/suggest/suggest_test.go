package suggest

import "testing"

func TestDidYouMean(t *testing.T) {
	for _, tc := range []struct {
		typed string
		from  []string
		want  string
	}{
		{"api-gatewy", []string{"api-gateway", "vllm", "router"}, "; did you mean api-gateway?"},
		{"p42", []string{"p50", "p90", "p99", "mean"}, ""},
		{"methd", []string{"method", "methods", "at"}, "; did you mean method?"},
		{"zzz", []string{"eval", "simulate"}, ""},
	} {
		if got := DidYouMean(tc.typed, tc.from, nil); got != tc.want {
			t.Errorf("DidYouMean(%q) = %q, want %q", tc.typed, got, tc.want)
		}
	}
	if d := EditDistance("kitten", "sitting"); d != 3 {
		t.Errorf("EditDistance(kitten, sitting) = %d", d)
	}
	if got := KnownList([]string{"c", "a", "b", "a"}, 2); got != "a, b, … (3 in all)" {
		t.Errorf("KnownList = %q", got)
	}
	if OrPeriod("") != ";" || OrNone("") != "none" || OrNone("x") != "x" {
		t.Error("OrPeriod or OrNone")
	}
}
