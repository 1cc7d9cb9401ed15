package main

import (
	"fmt"
	"os"
	"testing"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/tcg"
)

func TestZZDebugLogs(t *testing.T) {
	dir := os.Getenv("DBG_CASE")
	if dir == "" {
		t.Skip()
	}
	b, err := ingest.Read([]string{dir}, nil, ingest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	inc, err := tcg.ResolveIncident(b, tcg.IncidentSpec{})
	if err != nil {
		t.Fatal(err)
	}
	svcs := map[string]bool{}
	for _, e := range b.Entities {
		if e.Kind == ingest.KindService {
			svcs[e.Name] = true
		}
	}
	for s := range svcs {
		ev := b.LogEvidence(ingest.Entity{Kind: ingest.KindService, Name: s, Service: s}, inc.BaselineStart, inc.WindowStart, inc.WindowStart, inc.WindowEnd, 40)
		for _, e := range ev {
			if e.Surprise < 3 {
				continue
			}
			fmt.Printf("%-28s %5.1f new=%v miss=%v sev=%v %5.2f→%5.2f/min %q\n", s, e.Surprise, e.New, e.Missing, e.Severity, e.BaselinePerMin, e.WindowPerMin, trunc(e.Pattern, 110))
		}
	}
}

func trunc(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}
