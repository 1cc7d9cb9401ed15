package scorecard

import (
	"encoding/json"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/tcg"
)

// linkGraph is a graph of one span-measured latency node of service
// "cart<x>" and one Prometheus memory node, over a 10-minute grid whose
// window is its last 5 minutes.
func linkGraph() (*tcg.Graph, *tcg.Node, *tcg.Node) {
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	var grid []ingest.Time
	for i := range 20 {
		grid = append(grid, ingest.FromTime(t0.Add(time.Duration(i)*30*time.Second)))
	}
	lat := &tcg.Node{Entity: ingest.Entity{Kind: ingest.KindService, Name: "cart<x>", Service: "cart<x>"}, Signal: ingest.SignalLatency,
		Series: []*ingest.Series{{Name: "latency_p90", Source: ingest.DerivedSource, Signal: ingest.SignalLatency}}}
	lat.Tail = &tcg.TailShift{Q: 0.9, Threshold: 0.250}
	mem := &tcg.Node{Entity: ingest.Entity{Kind: ingest.KindService, Name: "db", Service: "db"}, Signal: ingest.SignalMemory,
		Series: []*ingest.Series{{Name: "container_memory_working_set_bytes", Source: "metrics.json", Signal: ingest.SignalMemory,
			Labels: ingest.Labels{{Name: "pod", Value: `db-0"}`}}}}}
	g := &tcg.Graph{Nodes: []*tcg.Node{lat, mem}, Grid: grid, B0: 0, B1: 10, W0: 10, W1: 20}
	g.Incident.WindowStart, g.Incident.WindowEnd = grid[10], grid[19]
	return g, lat, mem
}

func TestStepLinks(t *testing.T) {
	g, lat, mem := linkGraph()
	links := StepLinks{JaegerUI: "http://jaeger:16686/", GrafanaURL: "https://grafana.example.com", GrafanaDatasource: "prom-1"}

	// Without links: no Jaeger step, a PromQL step without a URL.
	for _, st := range append(nextSteps(g, lat, "", false, nil, StepLinks{}), nextSteps(g, mem, "", false, nil, StepLinks{})...) {
		if st.URL != "" {
			t.Errorf("no links given, but step %+v has a URL", st)
		}
	}

	// The latency node measured on spans: a Jaeger search of its service in
	// the window, longer than the baseline's p90.
	var search *url.URL
	for _, st := range nextSteps(g, lat, "", false, nil, links) {
		if strings.HasPrefix(st.URL, "http://jaeger:16686/search?") {
			u, err := url.Parse(st.URL)
			if err != nil {
				t.Fatal(err)
			}
			search = u
			if !strings.Contains(st.Text, "p90") || st.Kind != StepConfirm {
				t.Errorf("Jaeger step %+v", st)
			}
		}
	}
	if search == nil {
		t.Fatal("no Jaeger search step for a span-measured latency cause")
	}
	q := search.Query()
	if q.Get("service") != "cart<x>" || q.Get("minDuration") != "250ms" || q.Get("lookback") != "custom" ||
		q.Get("start") != "1772359500000000" || q.Get("end") != "1772359770000000" {
		t.Errorf("Jaeger search query %v", q)
	}

	// The Prometheus node: its PromQL and an Explore link over baseline and
	// window, the expression carried intact through the JSON of the panes.
	var explore *Step
	steps := nextSteps(g, mem, "", false, nil, links)
	for i, st := range steps {
		if st.Query != "" {
			explore = &steps[i]
		}
	}
	if explore == nil || !strings.HasPrefix(explore.URL, "https://grafana.example.com/explore?") {
		t.Fatalf("PromQL step %+v: want a Grafana Explore link", explore)
	}
	u, err := url.Parse(explore.URL)
	if err != nil {
		t.Fatal(err)
	}
	var panes map[string]struct {
		Datasource string `json:"datasource"`
		Queries    []struct {
			Expr string `json:"expr"`
		} `json:"queries"`
		Range struct{ From, To string } `json:"range"`
	}
	if err := json.Unmarshal([]byte(u.Query().Get("panes")), &panes); err != nil {
		t.Fatalf("panes: %v", err)
	}
	p := panes["pa"]
	if p.Datasource != "prom-1" || len(p.Queries) != 1 || p.Queries[0].Expr != explore.Query ||
		p.Range.From != "1772359200000" || p.Range.To != "1772359770000" {
		t.Errorf("panes %+v (query %q)", panes, explore.Query)
	}

	// Markdown: the link is a link, the names stay escaped text.
	c := &Cause{NextSteps: steps}
	var md []string
	for _, st := range c.NextSteps {
		md = append(md, mdStep(st))
	}
	joined := strings.Join(md, "\n")
	if !strings.Contains(joined, "([open](https://grafana.example.com/explore?") {
		t.Errorf("Markdown steps lack the Explore link:\n%s", joined)
	}
}
