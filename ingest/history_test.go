package ingest

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestHistoryEvents: the events of a History format (change records, a
// snapshot of cluster objects) neither stretch the grid nor widen the
// robust range, and are kept within the look-back (a day before the
// data), quietly left out beyond it; read alone, they set the range as any
// events do.
func TestHistoryEvents(t *testing.T) {
	hist := FormatOTLPLogsProto + 2 // past the built-in formats (registerFormat takes +1)
	RegisterFormat(FormatSpec{Format: hist, History: true, Decode: func(string, io.Reader, Limits) (*Bundle, error) { return &Bundle{}, nil }})
	t.Cleanup(func() { unregisterFormat(hist) })

	t0 := Time(1_794_487_000 * int64(time.Second))
	series := func() *Series {
		s := &Series{Name: "latency", Entity: Entity{Kind: KindService, Name: "router", Service: "router"}}
		for i := range 240 { // an hour at 15 s
			s.T = append(s.T, t0.Add(time.Duration(i)*15*time.Second))
			s.V = append(s.V, 0.1)
		}
		return s
	}
	change := func(ago time.Duration, src string) Event {
		return Event{Time: t0.Add(-ago), Entity: Entity{Kind: KindService, Name: "router", Service: "router"}, Kind: EventDeploy, Count: 1, Source: src}
	}
	tests := []struct {
		name       string
		b          *Bundle
		start, end Time
		events     int
	}{
		{"history beside metrics", &Bundle{
			Inputs: []Input{{Path: "metrics.json", Format: FormatPromQueryRange}, {Path: "changes.csv", Format: hist}},
			Series: []*Series{series()},
			Events: []Event{change(20*time.Hour, "changes.csv"), change(90*24*time.Hour, "changes.csv"), change(-10*time.Minute, "changes.csv")},
		}, t0, t0.Add(239 * 15 * time.Second), 2}, // 90 days before: beyond the look-back
		{"other events still stretch the grid, and strays go", &Bundle{
			Inputs: []Input{{Path: "metrics.json", Format: FormatPromQueryRange}, {Path: "events.json", Format: FormatK8sEvents}, {Path: "changes.csv", Format: hist}},
			Series: []*Series{series()},
			Events: []Event{change(5*time.Minute, "events.json"), change(400*24*time.Hour, "events.json"), change(20*time.Hour, "changes.csv")},
		}, t0.Add(-5 * time.Minute), t0.Add(239 * 15 * time.Second), 2},
		{"history alone sets the range", &Bundle{
			Inputs: []Input{{Path: "changes.csv", Format: hist}},
			Events: []Event{change(2*time.Hour, "changes.csv"), change(time.Hour, "changes.csv")},
		}, t0.Add(-2 * time.Hour), t0.Add(-time.Hour), 2},
		{"a skipped input is no history", &Bundle{
			Inputs: []Input{{Path: "metrics.json", Format: FormatPromQueryRange}, {Path: "changes.csv", Format: hist, Skipped: true}},
			Series: []*Series{series()},
			Events: []Event{change(10*time.Minute, "changes.csv")},
		}, t0.Add(-10 * time.Minute), t0.Add(239 * 15 * time.Second), 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := tt.b
			Finalize(b, Options{})
			if b.Start != tt.start || b.End != tt.end {
				t.Errorf("range %v → %v, want %v → %v", b.Start, b.End, tt.start, tt.end)
			}
			if len(b.Events) != tt.events {
				t.Errorf("%d events kept, want %d: %+v", len(b.Events), tt.events, b.Events)
			}
			for _, w := range b.Warnings {
				if !strings.Contains(w.Message, "events timed far outside") {
					t.Errorf("unexpected warning %v", w)
				}
			}
			if err := b.Validate(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestHistoryInputsNotDisjoint: a history input (a snapshot whose
// ReplicaSets span five years) is never left out as disjoint, nor does it
// bridge a stale file of 2017 to the 2022 incident.
func TestHistoryInputsNotDisjoint(t *testing.T) {
	hist := FormatOTLPLogsProto + 2 // past the built-in formats (registerFormat takes +1)
	const magic = "history-v1\n"
	RegisterFormat(FormatSpec{Format: hist, History: true,
		Sniff: []SniffRule{{Priority: 2, Match: func(h *Head) bool { return strings.HasPrefix(string(h.Raw), magic) }}},
		Decode: func(name string, r io.Reader, _ Limits) (*Bundle, error) {
			body, err := io.ReadAll(r)
			if err != nil {
				return nil, err
			}
			b := &Bundle{}
			for _, f := range strings.Fields(strings.TrimPrefix(string(body), magic)) {
				sec, err := strconv.ParseInt(f, 10, 64)
				if err != nil {
					return nil, ErrorAt(name, 0, err)
				}
				b.Events = append(b.Events, Event{Time: Time(sec * 1e9), Entity: Entity{Kind: KindService, Name: "router", Service: "router"},
					Kind: EventDeploy, Count: 1, Source: name})
			}
			return b, nil
		}})
	t.Cleanup(func() { unregisterFormat(hist) })
	const day = int64(24 * 3600 * 1e6)
	t2022, t2017 := int64(1661140279000000), int64(1485467191000000)
	dir := t.TempDir()
	write := func(name, body string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	trace := func(startUs int64) string {
		var spans []string
		for i := range 50 {
			spans = append(spans, jaegerSpan(fmt.Sprintf("%x", i+1), "", "p1", startUs+int64(i)*1e6, 100))
		}
		return jaegerTrace(spans...)
	}
	write("a-2022.json", trace(t2022))
	write("z-2017.json", trace(t2017))
	write("snapshot.txt", magic+fmt.Sprintf("%d %d %d\n", t2017/1e6-30*day/1e6, (t2017+t2022)/2e6, t2022/1e6-3600))
	write("old-changes.txt", magic+fmt.Sprintf("%d\n", t2022/1e6-40*day/1e6))
	b, err := Read([]string{dir}, nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var skipped []string
	for _, in := range b.Inputs {
		if in.Skipped {
			skipped = append(skipped, filepath.Base(in.Path))
		}
	}
	if !slices.Equal(skipped, []string{"z-2017.json"}) {
		t.Errorf("left out %q, want only z-2017.json", skipped)
	}
	if len(b.Events) != 1 || b.Start.Std().Year() != 2022 || b.End.Sub(b.Start) > time.Hour { // the hour before the data
		t.Errorf("%d events, data range %v → %v", len(b.Events), b.Start, b.End)
	}
}
