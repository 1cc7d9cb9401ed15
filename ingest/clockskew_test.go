package ingest

import (
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// checkParents asserts that b.Parent is consistent with b.Spans: Parent[i]
// is the index of the span of the same trace whose ID is Spans[i].ParentID,
// or -1 when there is none (root, orphan).
func checkParents(t *testing.T, b *Bundle) {
	t.Helper()
	if len(b.Spans) == 0 {
		return
	}
	if len(b.Parent) != len(b.Spans) {
		t.Fatalf("%d parent indexes for %d spans", len(b.Parent), len(b.Spans))
	}
	ids := make(map[SpanKey]int32, len(b.Spans))
	for i := range b.Spans {
		ids[SpanKey{Trace: b.Spans[i].TraceID, Span: b.Spans[i].SpanID}] = int32(i)
	}
	for i, p := range b.Parent {
		s := &b.Spans[i]
		want, ok := ids[SpanKey{Trace: s.TraceID, Span: s.ParentID}]
		if s.ParentID == 0 || !ok {
			want = -1
		}
		if p != want {
			t.Fatalf("Parent[%d] = %d, want %d (span %v/%v, parent ID %v)", i, p, want, s.TraceID, s.SpanID, s.ParentID)
		}
	}
}

// TestClockSkewAdjust: a child on another host outside its parent is moved
// into it with its whole subtree, like Jaeger's adjuster; same-host children,
// roots, fitting children and huge corrections are left alone.
func TestClockSkewAdjust(t *testing.T) {
	const t0 = Time(1_700_000_000_000_000_000)
	ms := func(n int64) Time { return Time(n * int64(time.Millisecond)) }
	span := func(id, parent SpanID, svc, node string, start Time, dur time.Duration) Span {
		return Span{TraceID: TraceID{Low: 1}, SpanID: id, ParentID: parent, Service: Intern(svc), Node: Intern(node), Start: start, Duration: dur}
	}
	tests := []struct {
		name      string
		spans     []Span
		want      map[SpanID]Time // expected start per span ID (all spans listed)
		wantMsg   string          // substring of a clock-skew warning; "" = no adjustment warning
		wantOther string          // substring of another clock-skew warning, if any
	}{
		{
			name: "two hosts: child 2 s before parent moves in with its grandchild; same-host child untouched",
			spans: []Span{
				span(1, 0, "front", "h1", t0, 100*time.Millisecond),
				span(2, 1, "back", "h2", t0-ms(2000), 50*time.Millisecond),
				span(3, 2, "back", "h2", t0-ms(1990), 20*time.Millisecond), // grandchild, same host as 2
				span(4, 1, "front", "h1", t0+ms(150), 10*time.Millisecond), // async, same host: never adjusted
				span(5, 1, "front", "h1", t0+ms(10), 10*time.Millisecond),  // fits
			},
			// 2 is centred: t0 + (100-50)/2 ms; 3 keeps its 10 ms offset from 2.
			want:      map[SpanID]Time{1: t0, 2: t0 + ms(25), 3: t0 + ms(35), 4: t0 + ms(150), 5: t0 + ms(10)},
			wantMsg:   "adjusted 2 spans on 1 hosts by up to 2.025s",
			wantOther: "1 spans start before or end after their parent",
		},
		{
			name: "grandchild on a third host that fitted its parent moves with it",
			spans: []Span{
				span(1, 0, "front", "h1", t0, 100*time.Millisecond),
				span(2, 1, "back", "h2", t0+ms(5000), 50*time.Millisecond),
				span(3, 2, "db", "h3", t0+ms(5010), 20*time.Millisecond),
			},
			want:    map[SpanID]Time{1: t0, 2: t0 + ms(25), 3: t0 + ms(35)},
			wantMsg: "adjusted 2 spans on 2 hosts",
		},
		{
			name: "grandchild on a third host outside its shifted parent is centred in it",
			spans: []Span{
				span(1, 0, "front", "h1", t0, 100*time.Millisecond),
				span(2, 1, "back", "h2", t0-ms(1000), 50*time.Millisecond),
				span(3, 2, "db", "h3", t0+ms(7000), 30*time.Millisecond),
			},
			want:    map[SpanID]Time{1: t0, 2: t0 + ms(25), 3: t0 + ms(35)},
			wantMsg: "adjusted 2 spans on 2 hosts",
		},
		{
			name: "child longer than its parent: starts aligned",
			spans: []Span{
				span(1, 0, "front", "h1", t0, 100*time.Millisecond),
				span(2, 1, "back", "h2", t0-ms(300), 200*time.Millisecond),
			},
			want:    map[SpanID]Time{1: t0, 2: t0},
			wantMsg: "adjusted 1 spans on 1 hosts by up to 300ms",
		},
		{
			name: "child inside its parent on another host: untouched",
			spans: []Span{
				span(1, 0, "front", "h1", t0, 100*time.Millisecond),
				span(2, 1, "back", "h2", t0+ms(1), 98*time.Millisecond),
			},
			want: map[SpanID]Time{1: t0, 2: t0 + ms(1)},
		},
		{
			name: "no host known: different services adjusted, same service not",
			spans: []Span{
				span(1, 0, "front", "", t0, 100*time.Millisecond),
				span(2, 1, "back", "", t0-ms(500), 40*time.Millisecond),
				span(3, 1, "front", "", t0-ms(500), 40*time.Millisecond),
			},
			want:      map[SpanID]Time{1: t0, 2: t0 + ms(30), 3: t0 - ms(500)},
			wantMsg:   "adjusted 1 spans on 1 hosts",
			wantOther: "1 spans start before or end after",
		},
		{
			name: "skew beyond maxSkewAdjust is reported, not applied",
			spans: []Span{
				span(1, 0, "front", "h1", t0, 100*time.Millisecond),
				span(2, 1, "back", "h2", t0-Time(2*time.Hour), 50*time.Millisecond),
			},
			want:      map[SpanID]Time{1: t0, 2: t0 - Time(2*time.Hour)},
			wantMsg:   "",
			wantOther: "would need a clock-skew shift of more than 1h0m0s",
		},
		{
			name: "parent cycle: left alone, no hang",
			spans: []Span{
				span(1, 2, "front", "h1", t0, 100*time.Millisecond),
				span(2, 1, "back", "h2", t0-ms(900), 50*time.Millisecond),
			},
			want: map[SpanID]Time{1: t0, 2: t0 - ms(900)},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := &Bundle{Spans: tc.spans, Inputs: []Input{{Path: "t.json"}}}
			Finalize(b, Options{})
			if err := b.Validate(); err != nil {
				t.Fatalf("Validate: %v", err)
			}
			checkParents(t, b)
			if len(b.Spans) != len(tc.want) {
				t.Fatalf("%d spans, want %d", len(b.Spans), len(tc.want))
			}
			for _, s := range b.Spans {
				if w := tc.want[s.SpanID]; s.Start != w {
					t.Errorf("span %v starts at %+v, want %+v", s.SpanID, time.Duration(s.Start-t0), time.Duration(w-t0))
				}
			}
			var msgs []string
			for _, w := range b.Warnings {
				if errors.Is(w, ErrClockSkew) {
					msgs = append(msgs, w.Message)
				}
			}
			all := strings.Join(msgs, "\n")
			adjusted := strings.Contains(all, "adjusted ")
			if tc.wantMsg == "" && adjusted {
				t.Errorf("unexpected adjustment: %s", all)
			}
			if tc.wantMsg != "" && (!strings.Contains(all, tc.wantMsg) || !strings.Contains(all, "like Jaeger's clock-skew adjuster")) {
				t.Errorf("clock-skew warnings %q, want one containing %q", all, tc.wantMsg)
			}
			if tc.wantOther != "" && !strings.Contains(all, tc.wantOther) {
				t.Errorf("clock-skew warnings %q, want one containing %q", all, tc.wantOther)
			}
		})
	}
}

// TestClockSkewSortAndParents: after adjustment the spans are re-sorted by
// (start, trace, span) and Parent follows them, over many interleaved traces.
func TestClockSkewSortAndParents(t *testing.T) {
	const t0 = Time(1_700_000_000_000_000_000)
	var spans []Span
	for tr := uint64(1); tr <= 200; tr++ {
		start := t0 + Time(tr)*Time(time.Millisecond)
		skew := Time(int64(tr%7)-3) * Time(time.Second) // -3 s .. +3 s
		spans = append(spans,
			Span{TraceID: TraceID{Low: tr}, SpanID: 1, Service: Intern("front"), Node: Intern("h1"), Start: start, Duration: 100 * time.Millisecond},
			Span{TraceID: TraceID{Low: tr}, SpanID: 2, ParentID: 1, Service: Intern("back"), Node: Intern("h2"), Start: start + skew + Time(10*time.Millisecond), Duration: 50 * time.Millisecond},
			Span{TraceID: TraceID{Low: tr}, SpanID: 3, ParentID: 2, Service: Intern("back"), Node: Intern("h2"), Start: start + skew + Time(20*time.Millisecond), Duration: 10 * time.Millisecond},
		)
	}
	b := &Bundle{Spans: spans, Inputs: []Input{{Path: "t.json"}}}
	Finalize(b, Options{})
	if err := b.Validate(); err != nil {
		t.Fatalf("Validate: %v", err)
	}
	checkParents(t, b)
	for i, p := range b.Parent {
		if p < 0 {
			continue
		}
		s, ps := &b.Spans[i], &b.Spans[p]
		if outside(s.Start, s.Duration, ps.Start, ps.Duration, 0) {
			t.Errorf("span %v/%v still outside its parent", s.TraceID, s.SpanID)
		}
	}
	// 6 of 7 skews are non-zero; each moves the child and the grandchild.
	moved := 0
	for tr := uint64(1); tr <= 200; tr++ {
		if tr%7 != 3 {
			moved += 2
		}
	}
	want := "adjusted " + strconv.Itoa(moved) + " spans on 1 hosts"
	found := false
	for _, w := range b.Warnings {
		found = found || strings.Contains(w.Message, want)
	}
	if !found {
		t.Errorf("no warning %q in %v", want, b.Warnings)
	}
}

// BenchmarkCheckSpansClockSkew: checkSpans over 300k spans (100k traces of
// three spans on two hosts), with and without skew to adjust.
func BenchmarkCheckSpansClockSkew(b *testing.B) {
	const t0 = Time(1_700_000_000_000_000_000)
	for _, skewed := range []bool{false, true} {
		var spans []Span
		for tr := uint64(1); tr <= 100_000; tr++ {
			start := t0 + Time(tr)*Time(time.Millisecond)
			skew := Time(0)
			if skewed {
				skew = Time(int64(tr%7)-3) * Time(time.Second)
			}
			spans = append(spans,
				Span{TraceID: TraceID{Low: tr}, SpanID: 1, Service: Intern("front"), Node: Intern("h1"), Start: start, Duration: 100 * time.Millisecond},
				Span{TraceID: TraceID{Low: tr}, SpanID: 2, ParentID: 1, Service: Intern("back"), Node: Intern("h2"), Start: start + skew + Time(10*time.Millisecond), Duration: 50 * time.Millisecond},
				Span{TraceID: TraceID{Low: tr}, SpanID: 3, ParentID: 2, Service: Intern("back"), Node: Intern("h2"), Start: start + skew + Time(20*time.Millisecond), Duration: 10 * time.Millisecond},
			)
		}
		b.Run(map[bool]string{false: "clean", true: "skewed"}[skewed], func(b *testing.B) {
			bd := &Bundle{}
			for b.Loop() {
				bd.Spans, bd.Warnings = slices.Clone(spans), nil
				checkSpans(bd)
			}
		})
	}
}
