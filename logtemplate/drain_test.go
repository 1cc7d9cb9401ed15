package logtemplate

import (
	"fmt"
	"strings"
	"testing"
)

func TestMask(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"connected to 10.0.0.1:8080 in 12ms", "connected to <IP> in <DUR>"},
		{"took 1h2m3.5s, retry 3 of 5", "took <DUR>, retry <NUM> of <NUM>"},
		{"id=42 user=alice size=10MB ratio=0.75", "id=<NUM> user=alice size=<NUM> ratio=<NUM>"},
		{"order 04027d90-a300-4e50-b380-200e58bce4ff]", "order <UUID>]"},
		{"TraceID: 93bead877ae15b6d9cdf1c1569881314 SpanID: 0097be32380fb3eb", "TraceID: <HEX> SpanID: <HEX>"},
		{"addr 0xDEADBEEF fe80::1ff:fe23:4567:890a [::1]:9090", "addr <HEX> <IP> <IP>"},
		{"at 2023-01-29T08:42:09.706182947Z and 16:42:10.175, 2023-01-29", "at <TS> and <TS>, <TS>"},
		{`GET "/api/users?id=1" said 'hello world' don't`, "GET <STR> said <STR> don't"},
		{"GET /api/orders/8812/items/5b67c48447bcd5fa", "GET /api/orders/<NUM>/items/<HEX>"},
		{"pod ts-order-service-5b67c48447-mv5hb ready", "pod <ID> ready"},
		{"c.s.ContactsServiceImpl#31 log4j2 v1.2.3", "c.s.ContactsServiceImpl#31 log4j2 v1.2.3"},
		{"  spaced\tout   words ", "spaced out words"},
		{"<NUM> <*> <IP>", "<NUM> <*> <IP>"}, // idempotent on placeholders
		{"-5 +3.5e-3 .5 100% 7x", "<NUM> <NUM> <NUM> <NUM> <NUM>"},
		{"version 1.2.3.4.5 at 300.1.1.1", "version 1.2.3.4.5 at 300.1.1.1"},
		{`unclosed "quote here`, `unclosed "quote here`},
		// A quote closing beyond maxQuoted is dropped; kept, it would pair
		// with its closer once the run of spaces between is one space.
		{`a "` + strings.Repeat(" ", maxQuoted) + `x" b`, `a x" b`},
		{`''` + strings.Repeat("0", maxQuoted-1) + `'`, `<STR>`}, // the second opens once the first is dropped
	} {
		t.Run(tc.in, func(t *testing.T) {
			if got := string(Mask(nil, tc.in)); got != tc.want {
				t.Errorf("Mask(%q)\n got %q\nwant %q", tc.in, got, tc.want)
			}
			// Masking is idempotent.
			if again := string(Mask(nil, tc.want)); again != tc.want {
				t.Errorf("Mask is not idempotent on %q: %q", tc.want, again)
			}
		})
	}
}

func TestMinerClusters(t *testing.T) {
	m := New(Params{})
	lines := []string{
		"connected to 10.0.0.1",
		"connected to 10.0.0.2",
		"user davidoh logged in",
		"user eranr logged in",
		"Hex number 0xDEADBEAF",
		"Hex number 0x10000",
		"user faceair logged in from 10.1.1.1",
		"c.s.ContactsServiceImpl#31 FIND CONTACTS BY ID: 415d1665-fbb2-4ec9-83f5-5ebe51dc1825",
		"c.s.ContactsServiceImpl#34 FIND CONTACTS BY ID: 415d1665-fbb2-4ec9-83f5-5ebe51dc1825",
	}
	ids := make([]int, len(lines))
	for i, l := range lines {
		ids[i] = m.Add(l)
	}
	want := []string{
		"connected to <IP>",
		"user <*> logged in",
		"Hex number <HEX>",
		"user faceair logged in from <IP>",
		"c.s.ContactsServiceImpl#31 FIND CONTACTS BY ID: <UUID>",
		"c.s.ContactsServiceImpl#34 FIND CONTACTS BY ID: <UUID>",
	}
	got := m.Templates()
	if len(got) != len(want) {
		t.Fatalf("%d templates, want %d: %v", len(got), len(want), got)
	}
	for i, w := range want {
		if got[i].Pattern != w {
			t.Errorf("template %d = %q, want %q", i, got[i].Pattern, w)
		}
	}
	if ids[0] != ids[1] || ids[2] != ids[3] || ids[7] == ids[8] {
		t.Errorf("ids %v: lines of one statement must share a template, two statements (#31, #34) must not", ids)
	}
	if got[1].Count != 2 || got[0].Count != 2 || got[3].Count != 1 {
		t.Errorf("counts %v", got)
	}
}

func TestMinerBounds(t *testing.T) {
	m := New(Params{MaxTemplates: 3, MaxTokens: 4})
	for i := 0; i < 10; i++ {
		m.Add(fmt.Sprintf("statement%c alpha beta", 'a'+i))
	}
	if m.Len() != 4 {
		t.Fatalf("%d templates, want 3 and Other", m.Len())
	}
	if o := m.Template(3); o.Pattern != Other || o.Count != 7 {
		t.Errorf("Other template %+v, want 7 lines", o)
	}
	// A long line keeps MaxTokens tokens, the last a wildcard for the rest.
	m2 := New(Params{MaxTokens: 4})
	id := m2.Add("a b c d e f g")
	if p := m2.Template(id).Pattern; p != "a b c <*>" {
		t.Errorf("long line pattern %q", p)
	}
	// The wildcard branch takes tokens past MaxChildren.
	m3 := New(Params{MaxChildren: 3, SimThreshold: 0.9, Depth: 5})
	for i := 0; i < 6; i++ {
		m3.Add(fmt.Sprintf("w%c x y", 'a'+i))
	}
	if n := len(m3.root[3].children); n > 3 {
		t.Errorf("%d children, want at most MaxChildren 3", n)
	}
}

func TestMinerDeterministicMerge(t *testing.T) {
	// Two files mined separately, merged in either order through sorted
	// patterns, give the same templates.
	a := New(Params{})
	b := New(Params{})
	for i := 0; i < 5; i++ {
		a.Add(fmt.Sprintf("user %s logged in", []string{"ann", "bob", "cid", "dan", "eve"}[i]))
	}
	b.Add("user zed logged in")
	b.Add("disk full on /dev/sda1")
	merge := func(ms ...*Miner) []Template {
		var pats []string
		for _, m := range ms {
			for _, t := range m.Templates() {
				pats = append(pats, t.Pattern)
			}
		}
		sortStrings(pats)
		out := New(Params{})
		for _, p := range pats {
			out.AddMasked(p)
		}
		return out.Templates()
	}
	x, y := merge(a, b), merge(b, a)
	if fmt.Sprint(x) != fmt.Sprint(y) {
		t.Fatalf("merge depends on order:\n%v\n%v", x, y)
	}
	found := false
	for _, tp := range x {
		if tp.Pattern == "user <*> logged in" {
			found = true
		}
	}
	if !found {
		t.Errorf("merged templates %v lack the generalised %q", x, "user <*> logged in")
	}
}

func sortStrings(s []string) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

func FuzzMiner(f *testing.F) {
	f.Add("connected to 10.0.0.1:8080 in 12ms\nuser \"a b\" id=7")
	f.Add("'x' \"y")
	f.Fuzz(func(t *testing.T, in string) {
		m := New(Params{MaxTemplates: 50, MaxTokens: 16})
		for _, l := range strings.Split(in, "\n") {
			id := m.Add(l)
			if id < 0 || id >= m.Len() {
				t.Fatalf("id %d of %d", id, m.Len())
			}
			masked := string(Mask(nil, l))
			if again := string(Mask(nil, masked)); again != masked {
				t.Fatalf("Mask not idempotent: %q → %q → %q", l, masked, again)
			}
		}
		if m.Len() > 51 {
			t.Fatalf("%d templates over the bound", m.Len())
		}
	})
}

func BenchmarkMiner(b *testing.B) {
	lines := make([]string, 1000)
	for i := range lines {
		lines[i] = fmt.Sprintf("c.s.Service%d#%d TraceID: %032x SpanID: %016x [op%d][processed order %d in %dms]", i%20, i%7, i*7919, i*31, i%5, i, i%300)
	}
	m := New(Params{})
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		m.Add(lines[i%len(lines)])
	}
}
