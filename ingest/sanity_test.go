package ingest

import (
	"database/sql"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// warningsOf returns the messages of the warnings of kind.
func warningsOf(b *Bundle, kind error) string {
	var msgs []string
	for _, w := range b.Warnings {
		if errors.Is(w, kind) {
			msgs = append(msgs, w.Message)
		}
	}
	return strings.Join(msgs, "\n")
}

// TestImpossibleValues: years 1 and 9999, int64-max durations and spans
// that are their own parent are warned and bounded, never wrapped into a
// plausible date or accepted silently.
func TestImpossibleValues(t *testing.T) {
	const t0 = 1700000000000000 // µs
	year1, year9999 := int64(-62135596800000000), int64(253402300799000000)
	spans := jaegerTrace(
		jaegerSpan("1", "", "p1", t0, 100),
		jaegerSpan("2", "1", "p2", t0+10, 50),
		jaegerSpan("3", "", "p1", year1, 10),
		jaegerSpan("4", "", "p1", year9999, 10),
		jaegerSpan("5", "", "p1", t0+20, math.MaxInt64),
		jaegerSpan("6", "6", "p1", t0+30, 10),
	)
	prom := `{"status":"success","data":{"resultType":"matrix","result":[{"metric":{"__name__":"x"},"values":[[1700000000,"1"],[253402300799,"2"],[-62135596800,"3"],[1700000015,"4"]]}]}}`
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "t.json"), []byte(spans), 0o644)
	os.WriteFile(filepath.Join(dir, "m.json"), []byte(prom), 0o644)
	b, err := Read([]string{dir}, nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Validate(); err != nil {
		t.Fatal(err)
	}
	msgs := warningsOf(b, ErrBadValue)
	for _, want := range []string{"2 spans start before 1970 or after 2200", "1 spans have a duration that ends after 2200",
		"1 spans name themselves as their parent", "2 points of 1 series"} {
		if !strings.Contains(msgs, want) {
			t.Errorf("no warning %q in:\n%s", want, msgs)
		}
	}
	if len(b.Spans) != 4 {
		t.Errorf("%d spans kept, want 4", len(b.Spans))
	}
	if b.End.Std().Year() > 2100 || b.Start.Std().Year() < 2000 {
		t.Errorf("data range %v → %v", b.Start, b.End)
	}
	for i, s := range b.Spans {
		if s.SpanID == 6 && b.Parent[i] != -1 {
			t.Errorf("a self-parented span has parent %d", b.Parent[i])
		}
		if s.End() < s.Start {
			t.Errorf("span %v ends before it starts", s.SpanID)
		}
	}
	if FromUnixMicro(year9999) != math.MaxInt64 || FromUnixMicro(year1) != math.MinInt64 || FromUnixSeconds(1e300) != math.MaxInt64 ||
		FromTime(time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)) != math.MaxInt64 {
		t.Error("out-of-range times do not saturate")
	}
}

// TestParentCycles: parent cycles (two spans, and a longer ring with a
// tail) are cut with a warning; every parent chain then ends at a root.
func TestParentCycles(t *testing.T) {
	const t0 = 1700000000000000
	spans := jaegerTrace(
		jaegerSpan("1", "2", "p1", t0, 100), jaegerSpan("2", "1", "p1", t0+1, 100),
		jaegerSpan("a", "c", "p1", t0+2, 10), jaegerSpan("b", "a", "p1", t0+3, 10), jaegerSpan("c", "b", "p1", t0+4, 10),
		jaegerSpan("d", "a", "p1", t0+5, 10),
	)
	path := filepath.Join(t.TempDir(), "t.json")
	os.WriteFile(path, []byte(spans), 0o644)
	b, err := Read([]string{path}, nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(warningsOf(b, ErrBadValue), "2 parent cycles") {
		t.Errorf("warnings: %v", b.Warnings)
	}
	checkParents(t, b)
	for i := range b.Spans {
		steps := 0
		for j := int32(i); j >= 0; j = b.Parent[j] {
			if steps++; steps > len(b.Spans) {
				t.Fatalf("span %v: the parent chain does not end", b.Spans[i].SpanID)
			}
		}
	}
}

// TestManyReferencesAndHugeTrace: a span with 100k references and a trace
// of more spans than --max-trace-spans are bounded with a warning, on the
// fast and the general path alike.
func TestManyReferencesAndHugeTrace(t *testing.T) {
	const t0 = 1700000000000000
	var refs strings.Builder
	for i := 0; i < 100_000; i++ {
		if i > 0 {
			refs.WriteByte(',')
		}
		fmt.Fprintf(&refs, `{"refType":"FOLLOWS_FROM","traceID":"1","spanID":"%x"}`, i+100)
	}
	many := `{"traceID":"1","spanID":"2","operationName":"op","startTime":` + fmt.Sprint(t0+5) + `,"duration":5,"processID":"p1","references":[` + refs.String() + `]}`
	var big []string
	for i := 0; i < 300; i++ {
		big = append(big, jaegerSpan(fmt.Sprintf("%x", i+1000), "", "p1", t0+int64(i), 10))
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "refs.json"), []byte(jaegerTrace(jaegerSpan("1", "", "p1", t0, 100), many)), 0o644)
	os.WriteFile(filepath.Join(dir, "big.json"), []byte(jaegerTrace(big...)), 0o644)
	b, err := Read([]string{dir}, nil, Options{Limits: Limits{MaxTraceSpans: 100}})
	if err != nil {
		t.Fatal(err)
	}
	if msg := warningsOf(b, ErrBadValue); !strings.Contains(msg, "1 spans carry more than 1000 references (up to 100000)") {
		t.Errorf("no reference warning: %s", msg)
	}
	if msg := warningsOf(b, ErrLimit); !strings.Contains(msg, "200 spans of 1 traces with more than 100 spans dropped") {
		t.Errorf("no per-trace limit warning: %s", msg)
	}
	if n := b.Inputs[0].Counts.Spans; n != 100 { // big.json sorts first
		t.Errorf("big.json kept %d spans, want 100", n)
	}
}

// TestDisjointInputs: an input far from the others in time is left out and
// named; inputs close together are all kept.
func TestDisjointInputs(t *testing.T) {
	const day = int64(24 * 3600 * 1e6)
	t2022, t2017 := int64(1661140279000000), int64(1485467191000000)
	dir := t.TempDir()
	write := func(name string, startUs int64, n int) {
		var spans []string
		for i := 0; i < n; i++ {
			spans = append(spans, jaegerSpan(fmt.Sprintf("%x", i+1), "", "p1", startUs+int64(i)*1e6, 100))
		}
		os.WriteFile(filepath.Join(dir, name), []byte(jaegerTrace(spans...)), 0o644)
	}
	write("a-2022.json", t2022, 50)
	write("b-2022.json", t2022+3600e6, 50)
	write("c-2022-next-day.json", t2022+day/2, 5) // within a day: kept
	write("z-2017.json", t2017, 50)
	b, err := Read([]string{dir}, nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var skipped []string
	for _, in := range b.Inputs {
		if in.Skipped {
			skipped = append(skipped, filepath.Base(in.Path)+": "+in.Error)
		}
	}
	if len(skipped) != 1 || !strings.HasPrefix(skipped[0], "z-2017.json: its data (2017-") || !strings.Contains(skipped[0], "disjoint") {
		t.Errorf("skipped = %q", skipped)
	}
	if !strings.Contains(warningsOf(b, ErrSkippedInput), "left out") {
		t.Errorf("no warning names the file: %v", b.Warnings)
	}
	if b.Start.Std().Year() != 2022 || b.End.Sub(b.Start) > 48*time.Hour {
		t.Errorf("data range %v → %v", b.Start, b.End)
	}
}

// TestExpandPathsHostile: FIFOs, devices, dangling and looping symlinks and
// symlinked directories are read or named, never hang a run or abort it.
func TestExpandPathsHostile(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.json")
	os.WriteFile(good, []byte(jaegerTrace(jaegerSpan("1", "", "p1", 1700000000000000, 100))), 0o644)
	sub := filepath.Join(dir, "case")
	os.Mkdir(sub, 0o755)
	os.Symlink(good, filepath.Join(sub, "link.json"))
	os.Symlink("/dev/zero", filepath.Join(sub, "zero.json"))
	os.Symlink("missing", filepath.Join(sub, "dangling.json"))
	os.Symlink("..", filepath.Join(sub, "loop"))
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	if err := syscall.Mkfifo(filepath.Join(sub, "fifo.json"), 0o644); err != nil {
		t.Fatal(err)
	}
	linked := filepath.Join(dir, "linked")
	os.Symlink(sub, linked)

	files, skipped := expandPaths([]string{linked, filepath.Join(dir, "nope"), fifo})
	if len(files) != 2 || files[0] != filepath.Join(linked, "link.json") || files[1] != fifo {
		t.Errorf("files = %q", files)
	}
	why := map[string]string{}
	for _, in := range skipped {
		why[filepath.Base(in.Path)] = in.Error
	}
	for name, want := range map[string]string{"zero.json": "character device", "dangling.json": "dangling symlink", "loop": "not followed",
		"fifo.json": "FIFO", "nope": "no such file"} {
		if !strings.Contains(why[name], want) {
			t.Errorf("%s: %q, want %q", name, why[name], want)
		}
	}
	// A FIFO nobody writes to fails at the stall timeout; the good file
	// beside the bad paths is analysed.
	start := time.Now()
	b, err := Read([]string{fifo, filepath.Join(dir, "nope"), linked}, nil, Options{Limits: Limits{StallTimeout: 200 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("took %v", d)
	}
	if len(b.Spans) != 1 {
		t.Errorf("%d spans", len(b.Spans))
	}
	found := false
	for _, in := range b.Inputs {
		if in.Path == fifo {
			found = in.Skipped && strings.Contains(in.Error, "--stall-timeout")
		}
	}
	if !found {
		t.Errorf("FIFO nobody writes to: not a skipped input at the stall timeout: %+v", b.Inputs)
	}
	if _, err := Read([]string{"/dev/zero"}, nil, Options{}); err == nil || !strings.Contains(err.Error(), "character device") {
		t.Errorf("/dev/zero: %v", err)
	}
}

// TestFIFOStall: a FIFO whose writer never writes fails at the stall
// timeout, not never.
func TestFIFOStall(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	done := make(chan struct{})
	defer close(done)
	go func() {
		w, err := os.OpenFile(fifo, os.O_WRONLY, 0) // blocks until the reader opens
		if err != nil {
			return
		}
		w.Write([]byte(`{"data":[`))
		<-done
		w.Close()
	}()
	start := time.Now()
	_, err := Read([]string{fifo}, nil, Options{Limits: Limits{StallTimeout: 300 * time.Millisecond}})
	if err == nil || !strings.Contains(err.Error(), "--stall-timeout") {
		t.Fatalf("err = %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %v", d)
	}
}

// TestFIFOWriterLate: a FIFO read before its writer opens it waits for the
// writer (it does not read as empty), and its end after the data is the end.
func TestFIFOWriterLate(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	go func() {
		time.Sleep(300 * time.Millisecond) // the reader is waiting by now
		w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		w.Write([]byte(jaegerTrace(jaegerSpan("1", "", "p1", 1700000000000000, 100), jaegerSpan("2", "1", "p2", 1700000000000010, 50))))
		w.Close()
	}()
	b, err := Read([]string{fifo}, nil, Options{Limits: Limits{StallTimeout: 20 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Spans) != 2 {
		t.Errorf("%d spans, warnings %v", len(b.Spans), b.Warnings)
	}
}

// TestFIFOWaitSaid: a FIFO read before its writer opens it says so on
// Options.Notice at once (before the writer comes), once, naming the FIFO
// and the wait's bound; the data then reads as usual.
func TestFIFOWaitSaid(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	said := make(chan string, 4)
	go func() {
		var first string
		select {
		case first = <-said: // the notice came while no writer was there
		case <-time.After(10 * time.Second):
		}
		said <- first
		w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		w.Write([]byte(jaegerTrace(jaegerSpan("1", "", "p1", 1700000000000000, 100))))
		w.Close()
	}()
	notice := func(format string, args ...any) { said <- fmt.Sprintf(format, args...) }
	b, err := Read([]string{fifo}, nil, Options{Limits: Limits{StallTimeout: 20 * time.Second}, Notice: notice})
	if err != nil {
		t.Fatal(err)
	}
	if want := "waiting up to 20s for a writer on " + fifo + " (--stall-timeout)"; <-said != want {
		t.Errorf("notice before the writer: want %q", want)
	}
	if len(said) != 0 {
		t.Errorf("more than one notice: %q", <-said)
	}
	if len(b.Spans) != 1 {
		t.Errorf("%d spans, warnings %v", len(b.Spans), b.Warnings)
	}
}

// TestProcessSubstitution: a pipe given as /dev/fd/N (what <(cmd) expands
// to) is read as a stream, once, and hashed while read; it does not read as
// empty.
func TestProcessSubstitution(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	path := fmt.Sprintf("/dev/fd/%d", r.Fd())
	if _, err := os.Stat(path); err != nil {
		t.Skipf("no /dev/fd: %v", err)
	}
	go func() {
		w.Write([]byte(jaegerTrace(jaegerSpan("1", "", "p1", 1700000000000000, 100), jaegerSpan("2", "1", "p2", 1700000000000010, 50))))
		w.Close()
	}()
	b, err := Read([]string{path}, nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Spans) != 2 || b.Inputs[0].SHA256 == "" || b.Inputs[0].Skipped || hasWarning(b, ErrPartialInput) {
		t.Errorf("%d spans, input %+v, warnings %v", len(b.Spans), b.Inputs[0], b.Warnings)
	}
}

// TestSQLiteReadInPlace: a regular SQLite export is read where it is (no
// temporary copy, not bounded by --max-file-size, which bounds streams), and
// its size and sha256 are the file's.
func TestSQLiteReadInPlace(t *testing.T) {
	path := filepath.Join(t.TempDir(), "k.sqlite")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER, end INTEGER, deviceId INTEGER, shortName TEXT)`,
		`WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i+1 FROM n WHERE i < 9999) INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL SELECT 1700000000000000000+i*1000000, 1700000000000000000+i*1000000+500000, 0, printf('k%d', i%7) FROM n`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	st, _ := os.Stat(path)
	sum, _, _ := hashFile(path, new([]byte))
	for _, read := range []string{"ReadFile", "Read"} {
		var in Input
		switch read {
		case "ReadFile":
			b, err := ReadFile(path, nil, Limits{MaxFileBytes: 70_000})
			if err != nil {
				t.Fatal(err)
			}
			in = b.Inputs[0]
		default:
			b, err := Read([]string{path}, nil, Options{Limits: Limits{MaxFileBytes: 70_000}, TempDir: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			in = b.Inputs[0]
		}
		if in.Skipped || in.Size != st.Size() || in.SHA256 != sum || in.Counts.Series == 0 {
			t.Errorf("%s: %+v, want size %d sha %s", read, in, st.Size(), sum)
		}
	}
}

// TestReadUnalignedThenAlign: ReadUnaligned leaves the bundle prepared
// (grid step chosen, series not yet on the grid, no entity list, inputs
// not yet hashed); a series added before Align, as the features stage adds
// its own, is aligned like the rest, and the result is Read's plus that
// series.
func TestReadUnalignedThenAlign(t *testing.T) {
	const t0 = 1700000000000000 // µs
	spans := jaegerTrace(jaegerSpan("1", "", "p1", t0, 100), jaegerSpan("2", "1", "p2", t0+10, 50))
	prom := `{"status":"success","data":{"resultType":"matrix","result":[{"metric":{"__name__":"x","pod":"p1"},"values":[[1700000000,"1"],[1700000015,"2"],[1700000030,"3"]]}]}}`
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "t.json"), []byte(spans), 0o644)
	os.WriteFile(filepath.Join(dir, "m.json"), []byte(prom), 0o644)
	whole, err := Read([]string{dir}, nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	r, err := ReadUnaligned([]string{dir}, nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	b := r.Bundle
	if b.Step != 15*time.Second || len(b.Grid) == 0 || len(b.Series) != 1 || b.Series[0].Aligned || len(b.Entities) != 0 || b.Inputs[0].SHA256 != "" {
		t.Fatalf("prepared: step %v, %d cells, %d series (aligned %v), %d entities, sha %q",
			b.Step, len(b.Grid), len(b.Series), len(b.Series) > 0 && b.Series[0].Aligned, len(b.Entities), b.Inputs[0].SHA256)
	}
	b.Series = append(b.Series, &Series{Name: "derived", Source: DerivedSource, T: []Time{b.Grid[0]}, V: []float64{1}})
	if got := r.Align(); got != b {
		t.Fatal("Align returned another bundle")
	}
	if err := b.Validate(); err != nil {
		t.Fatal(err)
	}
	if len(b.Series) != 2 || !b.Series[0].Aligned || !b.Series[1].Aligned || len(b.Series[1].T) != len(b.Grid) {
		t.Errorf("aligned: %d series, want 2 on the %d-cell grid", len(b.Series), len(b.Grid))
	}
	if len(b.Entities) != len(whole.Entities) || b.Inputs[0].SHA256 != whole.Inputs[0].SHA256 || b.Inputs[1].SHA256 != whole.Inputs[1].SHA256 ||
		fmt.Sprint(b.Warnings) != fmt.Sprint(whole.Warnings) || fmt.Sprint(b.Series[0].V) != fmt.Sprint(whole.Series[0].V) {
		t.Errorf("ReadUnaligned then Align differs from Read:\n%+v\n%+v", b, whole)
	}
}
