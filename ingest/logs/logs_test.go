package logs

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/features"
	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/ingest/internal/bundletest"
)

func TestParseHeader(t *testing.T) {
	for _, tc := range []struct {
		line    string
		sev     ingest.Severity
		content string
	}{
		{"16:42:10.175 INFO  a.c.AssuranceController#75 msg", ingest.SeverityInfo, "  a.c.AssuranceController#75 msg"},
		{"2023-01-29 08:42:09.706  WARN 1 --- [main] o.s.Foo : x", ingest.SeverityWarn, " 1 --- [main] o.s.Foo : x"},
		{"[ERROR] something broke", ingest.SeverityError, " something broke"},
		{"ERROR:root:division by zero", ingest.SeverityError, "root:division by zero"},
		{"E0129 16:42:10.175123   12 main.go:42] failed", ingest.SeverityError, " main.go:42] failed"},
		{`time=2023-01-29T08:42:09Z level=warn msg="slow"`, ingest.SeverityWarn, `time=2023-01-29T08:42:09Z level=warn msg="slow"`},
		{"Information: the host started", ingest.SeverityInfo, " the host started"},
		{"user admin deleted error logs", ingest.SeverityUnknown, "user admin deleted error logs"},
		{"connection error: reset", ingest.SeverityUnknown, "connection error: reset"},
	} {
		sev, at := parseHeader(tc.line)
		if sev != tc.sev || tc.line[at:] != tc.content {
			t.Errorf("parseHeader(%q) = %v, %q; want %v, %q", tc.line, sev, tc.line[at:], tc.sev, tc.content)
		}
	}
}

func TestFindTraceContext(t *testing.T) {
	for _, tc := range []struct {
		line        string
		trace, span string
	}{
		{"INFO x TraceID: 93bead877ae15b6d9cdf1c1569881314 SpanID: 0097be32380fb3eb [op]", "93bead877ae15b6d9cdf1c1569881314", "0097be32380fb3eb"},
		{"trace_id=4bf92f3577b34da6a3ce929d0e0e4736 span_id=00f067aa0ba902b7 done", "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"},
		{`{"traceId":"4bf92f3577b34da6","msg":"x"}`, "4bf92f3577b34da6", "0000000000000000"},
		{"traceparent: 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"},
		{"retrace 4bf92f3577b34da6a3ce929d0e0e4736", "4bf92f3577b34da6a3ce929d0e0e4736", "0000000000000000"}, // a key containing "trace"
		{"trace: 00000000000000000000000000000000", "0000000000000000", "0000000000000000"},
		{"trace id is 4bf92f35 short", "0000000000000000", "0000000000000000"},
		{"id 4bf92f3577b34da6a3ce929d0e0e4736 alone", "0000000000000000", "0000000000000000"},
	} {
		tr, sp := findTraceContext(tc.line)
		if tr.String() != tc.trace || sp.String() != tc.span {
			t.Errorf("findTraceContext(%q) = %v %v; want %s %s", tc.line, tr, sp, tc.trace, tc.span)
		}
	}
}

func TestLogFolding(t *testing.T) {
	const ts = "2026-11-30T03:12:00.000000001Z "
	text := ts + "ERROR request failed\n" +
		"java.lang.IllegalStateException: No instances available for food\n" +
		"\tat org.x.Client.call(Client.java:12)\n" +
		"Caused by: java.io.IOException: reset\n" +
		"\t... 5 more\n" +
		ts + "INFO next request\n" +
		ts + "ERROR:root:handler crashed\n" +
		"Traceback (most recent call last):\n" +
		"  File \"app.py\", line 3, in <module>\n" +
		"ValueError: bad input\n" +
		ts + "panic: runtime error: index out of range\n" +
		"\n" +
		"goroutine 1 [running]:\n" +
		"main.main()\n" +
		"\t/src/main.go:5 +0x1d\n" +
		"created by main.start\n" +
		ts + "INFO done\n"
	dir := t.TempDir()
	p := bundletest.WriteTemp(t, dir, "checkout.log", text)
	b, err := ingest.ReadFile(p, nil, ingest.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if b.Inputs[0].Format != ingest.FormatTextLog {
		t.Fatalf("format %v", b.Inputs[0].Format)
	}
	ingest.Finalize(b, ingest.Options{})
	if len(b.Logs) != 5 {
		for _, tp := range b.LogTemplates {
			t.Logf("%q", tp.Example)
		}
		t.Fatalf("%d records, want 5 (three stack traces folded)", len(b.Logs))
	}
	pats := map[string]bool{}
	for _, tp := range b.LogTemplates {
		pats[tp.Pattern] = true
	}
	for _, want := range []string{
		"request failed java.lang.IllegalStateException: No instances available for food",
		"root:handler crashed ValueError: bad input",
		"next request",
	} {
		if !pats[want] {
			t.Errorf("no template %q in %v", want, pats)
		}
	}
	// Bounds: a record keeps at most maxFoldLines lines.
	var sb strings.Builder
	sb.WriteString(ts + "ERROR deep\n")
	for i := 0; i < maxFoldLines+50; i++ {
		fmt.Fprintf(&sb, "\tat frame%d(X.java:%d)\n", i, i)
	}
	p2 := bundletest.WriteTemp(t, dir, "deep.log", sb.String())
	b2, err := ingest.ReadFile(p2, nil, ingest.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if len(b2.Logs) != 1 || strings.Count(b2.LogTemplates[0].Example, "\n") > maxFoldLines {
		t.Errorf("%d records", len(b2.Logs))
	}
	if !bundletest.HasWarning(b2, ingest.ErrLimit, "cut to 200 lines") {
		t.Errorf("no fold-bound warning: %v", b2.Warnings)
	}
}

func TestMalformedLogLines(t *testing.T) {
	dir := t.TempDir()
	cri := "2026-11-30T03:12:00.1Z stdout P hello \n" +
		"2026-11-30T03:12:00.2Z stdout F world\n" +
		"garbage here\n" +
		"2026-11-30T03:12:00.3Z stderr F ERROR boom\n"
	p := bundletest.WriteTemp(t, dir, "var/log/pods/shop_cart-7d4b9c8f6-x2kq9_uid/cart/0.log", cri)
	b, err := ingest.ReadFile(p, nil, ingest.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if b.Inputs[0].Format != ingest.FormatCRILog || len(b.Logs) != 2 {
		t.Fatalf("format %v, %d records; want CRI, 2 (P+F joined, one bad line skipped)", b.Inputs[0].Format, len(b.Logs))
	}
	if !bundletest.HasWarning(b, ingest.ErrBadValue, "0.log:3: not a CRI log line") {
		t.Errorf("warnings %v: want file:3", b.Warnings)
	}
	ingest.Finalize(b, ingest.Options{})
	joined := false
	for _, tp := range b.LogTemplates {
		joined = joined || tp.Example == "hello world"
	}
	if !joined {
		t.Errorf("templates %v: want the P and F parts joined into %q", b.LogTemplates, "hello world")
	}
	if s := b.LogStreams[0]; s.Pod != "cart-7d4b9c8f6-x2kq9" || s.Namespace != "shop" || s.Container != "cart" {
		t.Errorf("stream %+v", s)
	}
	// Loki: a bad entry is a warning with the stream's position.
	loki := `{"status":"success","data":{"resultType":"streams","result":[` + "\n" +
		`{"stream":{"app":"a"},"values":[["1700000000000000000","ok"],["bad","x"],["1700000000000000001"]]}]}}`
	p2 := bundletest.WriteTemp(t, dir, "loki.json", loki)
	b2, err := ingest.ReadFile(p2, nil, ingest.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if len(b2.Logs) != 1 || !bundletest.HasWarning(b2, ingest.ErrBadValue, "loki.json:2:1: stream 1, entry 1: bad timestamp") ||
		!bundletest.HasWarning(b2, ingest.ErrBadValue, "entry 2: 1 elements") {
		t.Errorf("%d records, warnings %v", len(b2.Logs), b2.Warnings)
	}
	// Many bad lines: ten warnings and a summary.
	var sb strings.Builder
	sb.WriteString("2026-11-30T03:12:00.1Z stdout F ok\n")
	for i := 0; i < 25; i++ {
		sb.WriteString("bad\n")
	}
	p3 := bundletest.WriteTemp(t, dir, "many.log", sb.String())
	b3, err := ingest.ReadFile(p3, nil, ingest.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if len(b3.Warnings) != maxMalformedWarnings+1 || !bundletest.HasWarning(b3, ingest.ErrBadValue, "15 more malformed log lines") {
		t.Errorf("%d warnings: %v", len(b3.Warnings), b3.Warnings)
	}
}

// TestLogTemplatesDeterministic: the same files in another order give the
// same templates, IDs and record assignments.
func TestLogTemplatesDeterministic(t *testing.T) {
	dir := t.TempDir()
	var a, c strings.Builder
	for i := 0; i < 30; i++ {
		fmt.Fprintf(&a, "2026-11-30T03:12:%02d.000Z INFO user %s logged in from 10.0.0.%d\n", i, []string{"ann", "bob", "cid"}[i%3], i)
		fmt.Fprintf(&c, "2026-11-30T03:13:%02d.000Z WARN cache miss for key k%d after %dms\n", i, i%4, i)
		if i%5 == 0 {
			fmt.Fprintf(&c, "2026-11-30T03:13:%02d.500Z INFO user zed logged in from 10.0.1.%d\n", i, i)
		}
	}
	pa := bundletest.WriteTemp(t, dir, "a/checkout.log", a.String())
	pc := bundletest.WriteTemp(t, dir, "c/checkout.log", c.String())
	read := func(paths ...string) *ingest.Bundle {
		b, err := ingest.Read(paths, nil, ingest.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	x, y := read(pa, pc), read(pc, pa)
	if fmt.Sprint(x.LogTemplates) != fmt.Sprint(y.LogTemplates) {
		t.Fatalf("templates depend on file order:\n%v\n%v", x.LogTemplates, y.LogTemplates)
	}
	key := func(b *ingest.Bundle) map[string]int32 {
		m := map[string]int32{}
		for _, r := range b.Logs {
			m[fmt.Sprint(r.Time)] = r.Template
		}
		return m
	}
	if fmt.Sprint(key(x)) != fmt.Sprint(key(y)) {
		t.Error("record templates depend on file order")
	}
	found := false
	for _, tp := range x.LogTemplates {
		if tp.Pattern == "user <*> logged in from <IP>" && tp.Count == 36 {
			found = true
		}
	}
	if !found {
		t.Errorf("the two files' login templates were not merged: %v", x.LogTemplates)
	}
}

// logFeatureBundle: service "cart" logs templates A and B every step for
// 40 steps; from step 30 on, B stops and an ERROR template C appears. Its
// records carry trace IDs of spans in the bundle.
func logFeatureBundle(t *testing.T) *ingest.Bundle {
	t.Helper()
	b := &ingest.Bundle{}
	s := NewLogSink("cart.log", ingest.Limits{}, b)
	st := s.Stream(ingest.LogStream{Service: "cart", Pod: "cart-7d4b9c8f6-x2kq9"})
	orphan := s.Stream(ingest.LogStream{})
	t0 := ingest.Time(1_700_000_100e9)
	step := ingest.Time(15 * time.Second)
	for c := 0; c < 40; c++ {
		at := t0 + ingest.Time(c)*step
		for k := 0; k < 3; k++ {
			s.Line(st, at+ingest.Time(k), 0, fmt.Sprintf("INFO order %d accepted", c*10+k), Fields{})
		}
		if c < 30 {
			s.Line(st, at+4, 0, fmt.Sprintf("INFO stock reserved for order %d", c), Fields{})
			s.Line(st, at+5, 0, fmt.Sprintf("INFO stock reserved for order %d", c+1), Fields{})
		} else {
			tid := ingest.TraceID{Low: uint64(c)}
			s.Line(st, at+6, 0, fmt.Sprintf("ERROR payment failed trace_id=%s span_id=%016x", tid, c), Fields{})
			b.Spans = append(b.Spans, ingest.Span{TraceID: tid, SpanID: ingest.SpanID(c), Service: ingest.Intern("cart"), Operation: ingest.Intern("POST /pay"), Start: at, Duration: time.Millisecond, Source: ingest.Intern("t")})
			// A record of a stream without a service, linked to a span.
			s.Line(orphan, at+7, 0, fmt.Sprintf("WARN retry trace_id=%s span_id=%016x", tid, c), Fields{})
		}
	}
	s.Finish()
	// A metric series that starts 10 steps before the logs and ends 10 after.
	m := &ingest.Series{Name: "m", Source: "m.json"}
	for c := -10; c < 50; c++ {
		m.T = append(m.T, t0+ingest.Time(c)*step)
		m.V = append(m.V, 1)
	}
	b.Series = append(b.Series, m)
	b.Inputs = []ingest.Input{{Path: "cart.log"}}
	features.Finalize(b, ingest.Options{Step: 15 * time.Second}, features.Options{})
	if err := b.Validate(); err != nil {
		t.Fatal(err)
	}
	return b
}

func logSeries(b *ingest.Bundle, e ingest.Entity, name string) *ingest.Series {
	for _, s := range b.Series {
		if s.Name == name && s.Entity.ID() == e.ID() {
			return s
		}
	}
	return nil
}

// TestLogEntityOption: Options.LogEntity names the entity of a plain log
// file (over its file-name rule), never of streams whose data names one.
func TestLogEntityOption(t *testing.T) {
	dir := t.TempDir()
	plain := bundletest.WriteTemp(t, dir, "out.log", "2026-11-30T03:12:00.000000001Z ERROR boom\n")
	labelled := bundletest.WriteTemp(t, dir, "loki.json", `{"status":"success","data":{"resultType":"streams","result":[{"stream":{"service_name":"cart"},"values":[["1796008320000000000","INFO ok"]]}]}}`)
	for _, tc := range []struct {
		entity string
		want   ingest.LogStream
	}{
		{"", ingest.LogStream{Service: "out", EntityFrom: "file name"}},
		{"pod/checkout-7d4b9c8f6-x2kq9", ingest.LogStream{Pod: "checkout-7d4b9c8f6-x2kq9", EntityFrom: "flag"}},
		{"checkout-7d4b9c8f6-x2kq9", ingest.LogStream{Pod: "checkout-7d4b9c8f6-x2kq9", EntityFrom: "flag"}},
		{"checkout", ingest.LogStream{Service: "checkout", EntityFrom: "flag"}},
	} {
		b, err := ingest.Read([]string{plain, labelled}, nil, ingest.Options{LogEntity: tc.entity})
		if err != nil {
			t.Fatal(err)
		}
		var got, cart ingest.LogStream
		for _, s := range b.LogStreams {
			if s.Source == plain {
				got = s
			} else {
				cart = s
			}
		}
		got.Source = ""
		if got != tc.want || cart.Service != "cart" || cart.EntityFrom != "labels" {
			t.Errorf("LogEntity %q: streams %+v and %+v, want %+v and the labelled one unchanged", tc.entity, got, cart, tc.want)
		}
	}
}

func TestDeriveLogSeries(t *testing.T) {
	b := logFeatureBundle(t)
	cart := ingest.Entity{Kind: ingest.KindService, Name: "cart"}
	t0 := b.Logs[0].Time
	base := t0
	ws := t0 + ingest.Time(29*15*time.Second)
	features.DeriveLogSeries(b, base, ws, features.Options{})
	before := len(b.Series)
	features.DeriveLogSeries(b, base, ws, features.Options{}) // idempotent: replaces
	if len(b.Series) != before {
		t.Fatalf("%d series after the second call, %d after the first", len(b.Series), before)
	}
	cell := func(s *ingest.Series, c int) float64 { return s.V[c] }
	get := func(name string) *ingest.Series {
		s := logSeries(b, cart, name)
		if s == nil {
			t.Fatalf("no %s series for cart", name)
		}
		return s
	}
	recs, errs, nw, mix, miss := get(ingest.LogRecords), get(ingest.LogErrors), get(ingest.LogNewTemplates), get(ingest.LogMixShift), get(ingest.LogMissingTemplates)
	if recs.Signal != ingest.SignalLogs || recs.Source != ingest.DerivedSource || !recs.Aligned {
		t.Errorf("series %+v", recs)
	}
	// Cells: record times fall just after grid points, so they count at the next one.
	cellAt := func(c int) int {
		for i, g := range b.Grid {
			if g > t0+ingest.Time(c)*ingest.Time(15*time.Second) {
				return i
			}
		}
		return -1
	}
	quiet, hit := cellAt(10), cellAt(37) // a reference cell, an incident cell
	for _, c := range []int{quiet} {
		if cell(errs, c) != 0 || cell(nw, c) != 0 || cell(miss, c) != 0 {
			t.Errorf("reference cell %d: errors %v new %v missing %v, want 0", c, cell(errs, c), cell(nw, c), cell(miss, c))
		}
	}
	if cell(recs, hit) != 4+1 && cell(recs, hit) != 4 {
		t.Logf("records %v", recs.V)
	}
	if cell(errs, hit) != 1 || cell(nw, hit) != 2 {
		t.Errorf("incident cell: errors %v, new %v; want 1, 2 (the error and the linked retry)", cell(errs, hit), cell(nw, hit))
	}
	if cell(miss, hit) < 1 { // λ = 2 for the stopped template, x = 0: 2 − ln 2 (scaled by volume)
		t.Errorf("missing-template score %v in the incident, want about 1.3", cell(miss, hit))
	}
	if cell(mix, hit) <= cell(mix, quiet)+1 {
		t.Errorf("mix shift %v in the incident, %v before: want a clear rise", cell(mix, hit), cell(mix, quiet))
	}
	if !math.IsNaN(recs.V[0]) || !math.IsNaN(recs.V[len(recs.V)-1]) {
		t.Errorf("cells before the first and after the last record = %v, %v; want NaN", recs.V[0], recs.V[len(recs.V)-1])
	}
	// The pod has its own series; the record without a service joined the
	// span's service through its trace link.
	if logSeries(b, ingest.Entity{Kind: ingest.KindPod, Name: "cart-7d4b9c8f6-x2kq9"}, ingest.LogErrors) == nil {
		t.Error("no pod series")
	}
	var fromTrace *ingest.LogStream
	for i := range b.LogStreams {
		if b.LogStreams[i].EntityFrom == "trace" {
			fromTrace = &b.LogStreams[i]
		}
	}
	if fromTrace == nil || fromTrace.Service != "cart" {
		t.Errorf("streams %+v: want one placed by the linked span", b.LogStreams)
	}
}

func TestLogEvidence(t *testing.T) {
	b := logFeatureBundle(t)
	base := b.Logs[0].Time
	ws := base + ingest.Time(30*15*time.Second)
	we := b.Logs[len(b.Logs)-1].Time + 1
	ev := features.LogEvidence(b, ingest.Entity{Kind: ingest.KindService, Name: "cart"}, base, ws, ws, we, 5)
	if len(ev) < 2 {
		t.Fatalf("evidence %+v", ev)
	}
	first := ev[0]
	if !first.New || first.Severity != ingest.SeverityError || !strings.HasPrefix(first.Pattern, "payment failed") || first.BaselineCount != 0 || first.WindowCount != 10 {
		t.Errorf("first evidence %+v: want the new ERROR template", first)
	}
	if len(first.Traces) != 3 || first.Traces[0].Service != "cart" || first.Traces[0].Operation != "POST /pay" {
		t.Errorf("trace links %+v: want 3 resolved to their spans", first.Traces)
	}
	if !strings.Contains(first.Example, "payment failed trace_id=") || first.FirstInWindow == 0 {
		t.Errorf("example %q first %v", first.Example, first.FirstInWindow)
	}
	missing := false
	for _, e := range ev {
		if e.Missing && strings.HasPrefix(e.Pattern, "stock reserved") && e.WindowPerMin == 0 && e.BaselinePerMin > 7.5 {
			missing = true
		}
	}
	if !missing {
		t.Errorf("evidence %+v: want the vanished template with its baseline rate (8/min)", ev)
	}
	if got := features.LogEvidence(b, ingest.Entity{Kind: ingest.KindService, Name: "nobody"}, base, ws, ws, we, 5); got != nil {
		t.Errorf("evidence for an entity without logs: %v", got)
	}
}
