package jaeger

import (
	"fmt"
	"math"
	"math/rand"
	"strconv"
	"strings"
	"testing"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
)

// idCases are IDs of every length around Jaeger's, with each kind of
// byte next to the hex ranges in each position.
func idCases() []string {
	cases := []string{"", "0", "dfa31798eedbf9048ebeaedb1b2b67d9", "22b3d98aff76dc58", "DFA31798EEDBF904", "ffffffffffffffff",
		"0000000000000000", "ffffffffffffffffffffffffffffffff", "00000000000000000000000000000001", "1234567890abcdef1"}
	base := "0123456789abcdef"
	for _, c := range "/0:9@AFG`afg \x00\x7f\x80\xff-+x" {
		for i := range 16 {
			cases = append(cases, base[:i]+string(c)+base[i+1:])
			cases = append(cases, base+base[:i]+string(c)+base[i+1:])
			cases = append(cases, base[:i]+string(c)+base[i+1:]+base)
		}
	}
	for n := 1; n <= 34; n++ {
		cases = append(cases, strings.Repeat("a", n), strings.Repeat("F", n), strings.Repeat("9", n))
	}
	return cases
}

// TestParseIDsMatchIngest: parseSpanID and parseTraceID return what
// ingest's parsers return, errors included.
func TestParseIDsMatchIngest(t *testing.T) {
	for _, s := range idCases() {
		gs, ges := parseSpanID(s)
		ws, wes := ingest.ParseSpanID(s)
		if gs != ws || fmt.Sprint(ges) != fmt.Sprint(wes) {
			t.Errorf("parseSpanID(%q) = %v, %v; ingest %v, %v", s, gs, ges, ws, wes)
		}
		gt, get := parseTraceID(s)
		wt, wet := ingest.ParseTraceID(s)
		if gt != wt || fmt.Sprint(get) != fmt.Sprint(wet) {
			t.Errorf("parseTraceID(%q) = %v, %v; ingest %v, %v", s, gt, get, wt, wet)
		}
	}
}

// TestHex8AllBytes: hex8 accepts a word exactly when each byte is a hex
// digit, whichever byte holds which value.
func TestHex8AllBytes(t *testing.T) {
	for c := range 256 {
		for pos := range 8 {
			b := []byte("a0F93bE7")
			b[pos] = byte(c)
			s := string(b)
			v, ok := hex8(le64(s, 0))
			var want uint64
			_, err := fmt.Sscanf(s, "%x", &want)
			wantOK := err == nil && strings.IndexFunc(s, func(r rune) bool { return !strings.ContainsRune("0123456789abcdefABCDEF", r) }) < 0
			if ok != wantOK || ok && uint64(v) != want {
				t.Errorf("hex8(%q) = %x, %v; want %x, %v", s, v, ok, want, wantOK)
			}
		}
	}
}

// TestCachesMatchLookups: the reader's sym and llmAttr return what the
// Interner and ingest.LLMAttrOf return, truncation counts included, for
// strings that collide in the cache and ones over the length bound.
func TestCachesMatchLookups(t *testing.T) {
	keys := []string{"", "a", "gen_ai.usage.input_tokens", "gen_ai.usage.output_tokens", "llm.usage.prompt_tokens", "gen_ai.system",
		"llm.streaming", "gpu.uuid", "g", "l", "glue", "span.kind", strings.Repeat("x", 300), strings.Repeat("y", 300) + "z"}
	for i := range 2000 {
		keys = append(keys, fmt.Sprintf("gen_ai.op%d", i), fmt.Sprintf("op-%d", i%300))
	}
	lim := ingest.Limits{MaxStringBytes: 200}.WithDefaults()
	r := &jaegerReader{lim: lim, in: ingest.NewInterner(lim.MaxStringBytes)}
	ref := ingest.NewInterner(lim.MaxStringBytes)
	for round := range 3 {
		for _, k := range keys {
			view := string([]byte(k)) // a fresh copy, as a buffer view would be
			if got, want := r.sym(view), ref.Sym(k); got != want {
				t.Fatalf("round %d: sym(%q) = %v, want %v", round, k, got, want)
			}
			if got, want := r.llmAttr(view), ingest.LLMAttrOf(k); got != want {
				t.Fatalf("round %d: llmAttr(%q) = %v, want %v", round, k, got, want)
			}
		}
	}
	if r.in.Truncated != ref.Truncated || ref.Truncated != 6 {
		t.Errorf("truncations %d, the Interner alone %d (want 6)", r.in.Truncated, ref.Truncated)
	}
	if strSlot("abc") != strSlot(string([]byte("abc"))) {
		t.Error("strSlot depends on more than the bytes")
	}
}

// TestSpanKindAndFloatMatch: the reader's spanKind is ParseSpanKind, and
// tagFloat's digits-only path gives what strconv.ParseFloat gives.
func TestSpanKindAndFloatMatch(t *testing.T) {
	r := &jaegerReader{}
	vals := []string{"", "server", "SERVER", "client", "Client", "span_kind_producer", "SPAN_KIND_CONSUMER", "internal", "other", strings.Repeat("s", 100)}
	for i := range 600 {
		vals = append(vals, fmt.Sprintf("k%d", i))
	}
	for range 2 {
		for _, v := range vals {
			if got, want := r.spanKind(string([]byte(v))), ingest.ParseSpanKind(v); got != want {
				t.Errorf("spanKind(%q) = %v, want %v", v, got, want)
			}
		}
	}
	for _, v := range []string{"0", "315", "0315", "999999999999999", "9999999999999999", "9007199254740993", "12345678901234567890", "1.5", "-3", " 3", "3 ", "", "1e3", "+1", "0x10"} {
		f, ok := tagFloat(&jTag{Value: []byte(v)})
		wf, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if ok != (err == nil) || ok && f != wf {
			t.Errorf("tagFloat(%q) = %v, %v; ParseFloat %v, %v", v, f, ok, wf, err)
		}
		if u, ok := smallUint(v); ok && float64(u) != wf {
			t.Errorf("smallUint(%q) = %d, ParseFloat %v", v, u, wf)
		}
	}
}

// TestStrCacheKeepsTwoOfASlot: two keys of one slot are both found after
// each is put, and a third of the slot displaces the older.
func TestStrCacheKeepsTwoOfASlot(t *testing.T) {
	var c strCache[int]
	var same []string
	for i := 0; len(same) < 3; i++ {
		if k := fmt.Sprintf("key%d", i); strSlot(k) == strSlot("key0") {
			same = append(same, k)
		}
	}
	for i, k := range same[:2] {
		_, slot, ok := c.get(k)
		if ok {
			t.Fatalf("%q found before it was put", k)
		}
		c.put(slot, k, i)
	}
	for i, k := range same[:2] {
		if v, _, ok := c.get(k); !ok || v != i {
			t.Errorf("get(%q) = %d, %v; want %d", k, v, ok, i)
		}
	}
	_, slot, _ := c.get(same[2])
	c.put(slot, same[2], 2)
	if _, _, ok := c.get(same[0]); ok {
		t.Errorf("%q kept after two newer keys of its slot", same[0])
	}
	if v, _, ok := c.get(same[2]); !ok || v != 2 {
		t.Errorf("get(%q) = %d, %v", same[2], v, ok)
	}
	if _, _, ok := c.get(""); ok {
		t.Error(`"" found`)
	}
}

// TestSmallDecimalMatchesParseFloat: where smallDecimal reads a number, it
// is strconv.ParseFloat's value, bit for bit.
func TestSmallDecimalMatchesParseFloat(t *testing.T) {
	cases := []string{"0.0683833", "1.5", "0.1", "0.3", "123456789012.345", "999999999999999", "9999999999999.99", "0.000000000000001",
		"1.", ".5", "1.2.3", "-1.5", "+1.5", "1e5", "1.5e3", " 1.5", "1.5 ", "0x1p3", "1_000", "99999999999999.99", "1234567890123456", "0.00", "00.5", ""}
	rng := rand.New(rand.NewSource(7))
	for range 200000 {
		n := 1 + rng.Intn(16)
		b := make([]byte, n)
		for i := range b {
			b[i] = byte('0' + rng.Intn(10))
		}
		if n > 1 && rng.Intn(4) > 0 {
			b[1+rng.Intn(n-1)] = '.'
		}
		cases = append(cases, string(b))
	}
	accepted := 0
	for _, c := range cases {
		got, ok := smallDecimal(c)
		if !ok {
			continue
		}
		accepted++
		want, err := strconv.ParseFloat(c, 64)
		if err != nil || math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("smallDecimal(%q) = %v; ParseFloat %v, %v", c, got, want, err)
		}
	}
	if accepted < 100000 {
		t.Errorf("smallDecimal read only %d of the decimals", accepted)
	}
}
