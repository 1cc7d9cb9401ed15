package ingest

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// countDigest is a SpanDigest that counts the spans it was given.
type countDigest struct{ spans, files int }

func (c *countDigest) Merge(o SpanDigest) {
	c.spans += o.(*countDigest).spans
	c.files += o.(*countDigest).files
}

func countSpans(b *Bundle, parent []int32) SpanDigest {
	if len(parent) != len(b.Spans) {
		panic("parent and spans differ in length")
	}
	return &countDigest{spans: len(b.Spans), files: 1}
}

// manyTraces is a Jaeger file of n traces of three spans each, trace IDs
// from first.
func manyTraces(first, n int) string {
	var ts []string
	for i := range n {
		id := fmt.Sprintf("%032x", first+i)
		sp := func(s, parent string, off int) string {
			ref := ""
			if parent != "" {
				ref = fmt.Sprintf(`{"refType":"CHILD_OF","traceID":"%s","spanID":"%s"}`, id, parent)
			}
			return fmt.Sprintf(`{"traceID":"%s","spanID":"%s","operationName":"op","references":[%s],"startTime":%d,"duration":50,"processID":"p1"}`,
				id, s, ref, 1700000000000000+int64(i)*1000+int64(off))
		}
		ts = append(ts, `{"traceID":"`+id+`","processes":{"p1":{"serviceName":"front"}},"spans":[`+
			sp("a1", "", 0)+","+sp("a2", "a1", 1)+","+sp("a3", "a2", 2)+`]}`)
	}
	return `{"data":[` + strings.Join(ts, ",") + `]}`
}

// TestPlanStream: the plan counts the bytes of trace files only (a gzip
// file by its uncompressed size), and streams only above the budget.
func TestPlanStream(t *testing.T) {
	dir := t.TempDir()
	plain := manyTraces(0, 50)
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(plain))
	zw.Close()
	files := []string{
		write("a.json", []byte(plain)),
		write("b.json.gz", gz.Bytes()),
		write("m.json", []byte(`{"status":"success","data":{"resultType":"matrix","result":[]}}`+strings.Repeat(" ", 100_000))),
	}
	streams := make([]bool, len(files))
	opt := Options{Stream: countSpans}
	total := int64(2 * len(plain))
	if p := planStream(files, streams, Limits{SpanBudget: total}, opt); p != nil {
		t.Errorf("streams at exactly the budget: %+v", p)
	}
	p := planStream(files, streams, Limits{SpanBudget: total - 1}, opt)
	if p == nil || p.bytes != total || p.files != 2 {
		t.Fatalf("plan %+v, want both trace files' %d bytes", p, total)
	}
	if want := float64((total-1)/streamKeep) / float64(total); p.rate != want {
		t.Errorf("rate %v, want %v", p.rate, want)
	}
	if p := planStream(files, streams, Limits{SpanBudget: 1}, Options{}); p != nil {
		t.Errorf("streams without a Stream function")
	}
}

// TestStreamedRead: over the budget every file's spans reach the digest
// (all of them, checked and linked), the bundle keeps whole traces whose
// IDs hash into the rate and nothing else, the counts add up, the
// warning is there, and a second read gives the same sample.
func TestStreamedRead(t *testing.T) {
	dir := t.TempDir()
	var files []string
	for f := range 3 {
		p := filepath.Join(dir, fmt.Sprintf("t%d.json", f))
		if err := os.WriteFile(p, []byte(manyTraces(f*1000, 400)), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, p)
	}
	read := func() *Bundle {
		b, err := Read(files, nil, Options{Stream: countSpans, Limits: Limits{SpanBudget: 100_000}})
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	b := read()
	dg, ok := b.Digest.(*countDigest)
	if !ok || dg.spans != 3*400*3 || dg.files != 3 {
		t.Fatalf("digest %+v, want 3600 spans of 3 files", b.Digest)
	}
	s := b.SpanSample
	if s == nil || s.ReadSpans != 3600 || s.ReadTraces != 1200 || s.KeptSpans != len(b.Spans) || s.KeptTraces*3 != s.KeptSpans {
		t.Fatalf("sample %+v, %d spans kept", s, len(b.Spans))
	}
	plan := &streamPlan{keepLess: uint64(s.Rate * (1 << 64))}
	perTrace := map[TraceID]int{}
	for i := range b.Spans {
		perTrace[b.Spans[i].TraceID]++
		if !plan.keeps(b.Spans[i].TraceID) {
			t.Fatalf("kept a span of trace %v, not in the sample", b.Spans[i].TraceID)
		}
	}
	for id, n := range perTrace {
		if n != 3 {
			t.Errorf("trace %v: %d of its 3 spans kept", id, n)
		}
	}
	want := s.Rate * 1200
	if got := float64(s.KeptTraces); got < want/2 || got > want*2 {
		t.Errorf("%d traces kept, expected about %.0f (rate %.3f)", s.KeptTraces, want, s.Rate)
	}
	if !strings.Contains(warningsOf(b, ErrLimit), "--span-budget") {
		t.Errorf("no span-budget warning: %v", b.Warnings)
	}
	again := read()
	if len(again.Spans) != len(b.Spans) {
		t.Fatalf("a second read kept %d spans, the first %d", len(again.Spans), len(b.Spans))
	}
	for i := range b.Spans {
		if again.Spans[i] != b.Spans[i] {
			t.Fatalf("span %d differs between two reads", i)
		}
	}
	// Under the budget: no digest, every span.
	whole, err := Read(files, nil, Options{Stream: countSpans})
	if err != nil {
		t.Fatal(err)
	}
	if whole.Digest != nil || whole.SpanSample != nil || len(whole.Spans) != 3600 {
		t.Errorf("under the budget: digest %v, sample %v, %d spans", whole.Digest, whole.SpanSample, len(whole.Spans))
	}
	// A streamed read hashes as it reads: the same sums and sizes.
	for i := range whole.Inputs {
		if w, s := whole.Inputs[i], b.Inputs[i]; w.SHA256 == "" || w.SHA256 != s.SHA256 || w.Size != s.Size {
			t.Errorf("input %d: streamed %s (%d bytes), whole %s (%d bytes)", i, s.SHA256, s.Size, w.SHA256, w.Size)
		}
	}
}
