package logs

import (
	"fmt"
	"strings"
	"testing"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/ingest/internal/bundletest"
)

// vlogsLines is a VictoriaLogs export of n lines, line i on stream
// stream(i) with text msg(i), one second apart.
func vlogsLines(n int, stream func(int) string, msg func(int) string) string {
	var sb strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&sb, `{"_time":"2026-11-30T03:%02d:%02dZ","_stream":"{%s}","_msg":%q}`+"\n", i/60%60, i%60, stream(i), msg(i))
	}
	return sb.String()
}

func TestLogStreamBudget(t *testing.T) {
	p := bundletest.WriteTemp(t, t.TempDir(), "v.jsonl", vlogsLines(50, func(i int) string { return fmt.Sprintf(`app=\"svc-%d\"`, i%10) },
		func(i int) string { return "request done" }))
	b := bundletest.ReadLimited(t, p, ingest.Limits{MaxLogStreams: 4})
	if len(b.Logs) != 50 {
		t.Fatalf("%d records, want all 50 (the overflow stream keeps them)", len(b.Logs))
	}
	labelled, overflow := 0, 0
	for _, r := range b.Logs {
		switch ls := b.LogStreams[r.Stream]; {
		case ls.EntityFrom == OverflowEntity && ls.Service == "" && ls.Pod == "":
			overflow++
		case ls.Service != "":
			labelled++
		}
	}
	if labelled != 20 || overflow != 30 {
		t.Errorf("%d labelled and %d overflow records, want 20 and 30", labelled, overflow)
	}
	if !bundletest.HasWarning(b, ingest.ErrLimit, "30 log lines of streams past the first 4 kept in one unlabelled stream (--max-log-streams)") {
		t.Errorf("no stream budget warning: %v", b.Warnings)
	}
}

func TestLogRecordBytesBudget(t *testing.T) {
	long := "2026-11-30T03:12:00Z ERROR " + strings.Repeat("é", 3000) + "\n"
	p := bundletest.WriteTemp(t, t.TempDir(), "app.log", long+"2026-11-30T03:12:01Z INFO short\n")
	b := bundletest.ReadLimited(t, p, ingest.Limits{MaxLogRecordBytes: 1001})
	if len(b.Logs) != 2 {
		t.Fatalf("%d records, want 2", len(b.Logs))
	}
	for _, tp := range b.LogTemplates {
		if strings.ContainsRune(tp.Example, '\uFFFD') {
			t.Errorf("the cut split a character")
		}
	}
	if !bundletest.HasWarning(b, ingest.ErrLimit, "1 log records longer than 1001 bytes cut (--max-log-record-size)") {
		t.Errorf("no record size warning: %v", b.Warnings)
	}
}

func TestLogTemplateBudgets(t *testing.T) {
	// Every line its own template: a distinct first word per line.
	distinct := func(i int) string { return fmt.Sprintf("op%d happened here", i) }
	dir := t.TempDir()
	p := bundletest.WriteTemp(t, dir, "v.jsonl", vlogsLines(60, func(i int) string { return fmt.Sprintf(`app=\"svc-%d\"`, i%3) }, distinct))

	b := bundletest.ReadLimited(t, p, ingest.Limits{MaxLogTemplates: 5})
	other := 0
	for _, tp := range b.LogTemplates {
		if tp.Pattern == "<other>" {
			other += tp.Count
		}
	}
	if len(b.LogTemplates) != 3*6 || other != 45 {
		t.Errorf("%d templates, %d lines in <other>; want 5 and <other> per service, 45 lines", len(b.LogTemplates), other)
	}
	if !bundletest.HasWarning(b, ingest.ErrLimit, "45 log lines counted in their service's <other> template: more than 5 templates in one service (--max-log-templates)") {
		t.Errorf("no per-service warning: %v", b.Warnings)
	}

	b = bundletest.ReadLimited(t, p, ingest.Limits{MaxLogTemplatesTotal: 7})
	n := 0
	for _, tp := range b.LogTemplates {
		if tp.Pattern != "<other>" {
			n++
		}
	}
	if n != 7 {
		t.Errorf("%d templates, want 7", n)
	}
	if !bundletest.HasWarning(b, ingest.ErrLimit, "53 log lines counted in their service's <other> template: more than 7 templates in all (--max-log-templates-total)") {
		t.Errorf("no total warning: %v", b.Warnings)
	}

	// Two inputs of 7 templates each stay within 7 once merged.
	q := bundletest.WriteTemp(t, dir, "w.jsonl", vlogsLines(60, func(i int) string { return `app=\"svc-0\"` }, func(i int) string { return distinct(i + 100) }))
	b, err := ingest.Read([]string{p, q}, nil, ingest.Options{Limits: ingest.Limits{MaxLogTemplatesTotal: 7}})
	if err != nil {
		t.Fatal(err)
	}
	n = 0
	for _, tp := range b.LogTemplates {
		if tp.Pattern != "<other>" {
			n++
		}
	}
	if n != 7 || !bundletest.HasWarning(b, ingest.ErrLimit, "templates of the inputs counted in their service's <other> template") {
		t.Errorf("%d templates after merging, want 7 and a warning: %v", n, b.Warnings)
	}
}

func TestLogEntityBudget(t *testing.T) {
	// svc-0 has 40 records, svc-1 20, svc-2..svc-11 one each.
	stream := func(i int) string {
		switch {
		case i < 40:
			return `app=\"svc-0\"`
		case i < 60:
			return `app=\"svc-1\"`
		}
		return fmt.Sprintf(`app=\"svc-%d\"`, i-58)
	}
	p := bundletest.WriteTemp(t, t.TempDir(), "v.jsonl", vlogsLines(70, stream, func(int) string { return "ok" }))
	b := bundletest.ReadLimited(t, p, ingest.Limits{MaxLogEntities: 2})
	if len(b.Logs) != 70 {
		t.Fatalf("%d records, want 70 (unlabelled, not dropped)", len(b.Logs))
	}
	services := map[string]int{}
	for _, r := range b.Logs {
		services[b.LogStreams[r.Stream].Service]++
	}
	if len(services) != 3 || services["svc-0"] != 40 || services["svc-1"] != 20 || services[""] != 10 {
		t.Errorf("records per service %v, want svc-0 40, svc-1 20 and 10 unlabelled", services)
	}
	if !bundletest.HasWarning(b, ingest.ErrLimit, "10 log records of 10 services and 0 pods kept unlabelled") {
		t.Errorf("no entity warning: %v", b.Warnings)
	}
	for _, s := range b.Series {
		if s.Signal == ingest.SignalLogs && s.Entity.Service != "svc-0" && s.Entity.Service != "svc-1" {
			t.Errorf("a log series of %v", s.Entity)
		}
	}
}

func TestLogPendingBytesBudget(t *testing.T) {
	// 600 pods, each with one 60 KB record waiting for continuation lines:
	// past MaxPendingBytes every pending record is finished early; none
	// is lost.
	var sb strings.Builder
	body := strings.Repeat("z", 60<<10)
	for i := 0; i < 600; i++ {
		fmt.Fprintf(&sb, `{"log":"ERROR %s\n","stream":"stdout","time":"2026-11-30T03:12:%02dZ","kubernetes":{"pod_name":"cart-%d","container_name":"cart"}}`+"\n", body, i%60, i)
	}
	p := bundletest.WriteTemp(t, t.TempDir(), "fluent.jsonl", sb.String())
	b := bundletest.ReadLimited(t, p, ingest.Limits{MaxLogEntities: 1000})
	if len(b.Logs) != 600 {
		t.Errorf("%d records, want 600", len(b.Logs))
	}
	if !bundletest.HasWarning(b, ingest.ErrLimit, "MiB of log records waiting for continuation lines: finished early 1 times") {
		t.Errorf("no pending-bytes warning: %v", b.Warnings)
	}
}
