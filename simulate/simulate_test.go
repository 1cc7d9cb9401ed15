package simulate

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/pipeline-analyze/pipeline-analyze/fixtures"
)

func TestParseSeeds(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     []uint64
		err      string
	}{
		{name: "list", in: "101, 102,,103", want: []uint64{101, 102, 103}},
		{name: "empty", in: " , ", err: "no seeds"},
		{name: "bad", in: "1,x", err: `bad seed "x"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseSeeds(tc.in)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil || !slices.Equal(got, tc.want) {
				t.Fatalf("ParseSeeds(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
			}
		})
	}
}

// failWriter fails every write.
type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestPrintFaults(t *testing.T) {
	var sb strings.Builder
	if err := PrintFaults(&sb, 80); err != nil {
		t.Fatal(err)
	}
	for _, f := range fixtures.Faults() {
		if !strings.Contains(sb.String(), f.Name) {
			t.Errorf("catalog lacks %s", f.Name)
		}
	}
	if err := PrintFaults(failWriter{}, 80); err == nil || err.Error() != "disk full" {
		t.Errorf("PrintFaults on a failing writer: %v, want disk full", err)
	}
}

func TestWriteSummaryFixed(t *testing.T) {
	var sb strings.Builder
	WriteSummary(&sb, "out", fixtures.Label{Fault: "tool_api_slow", Fixed: true})
	want := "wrote out\nfault:      tool_api_slow, fixed (never injected)\nalert:      never (SLO not breached)\n"
	if sb.String() != want {
		t.Errorf("got %q, want %q", sb.String(), want)
	}
}
