package compare

import (
	"encoding/json"
	"math"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/compare/model"
	"github.com/pipeline-analyze/pipeline-analyze/features"
	"github.com/pipeline-analyze/pipeline-analyze/fixtures"
	"github.com/pipeline-analyze/pipeline-analyze/ingest"
)

// TestWatch compares a simulated incident with its fixed follow-up, with a
// cause of BEFORE: the watch list holds every measurement of the target and
// the cause's item, each with the range to stay in, its PromQL when the
// item is a Prometheus series (the query naming that series' labels), and
// an Explore link over BEFORE's data to AFTER's end carrying the query.
func TestWatch(t *testing.T) {
	dir := t.TempDir()
	incDir, fixDir := filepath.Join(dir, "incident"), filepath.Join(dir, "fixed")
	spec := fixtures.Spec{Fault: "tool_api_slow", Seed: simSeed}
	l, err := fixtures.Write(incDir, spec)
	if err != nil {
		t.Fatal(err)
	}
	spec.Fixed = true
	if _, err := fixtures.Write(fixDir, spec); err != nil {
		t.Fatal(err)
	}
	bi, err := features.Read([]string{incDir}, nil, ingest.Options{}, features.Options{})
	if err != nil {
		t.Fatal(err)
	}
	bf, err := features.Read([]string{fixDir}, nil, ingest.Options{}, features.Options{})
	if err != nil {
		t.Fatal(err)
	}
	bs, as, inc, err := ResolveSides(bi, bf, WindowSpec{Window: 5 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	opt := DefaultOptions()
	opt.Target = inc.Target
	opt.GrafanaURL, opt.GrafanaDatasource = "https://grafana.example.com/", "prom"
	first, err := Run(bs, as, opt)
	if err != nil {
		t.Fatal(err)
	}
	// The cause: the root cause service's first decided item.
	for _, it := range first.Items {
		if it.Service == l.RootCause.Service && it.Verdict != model.Insufficient && len(opt.Causes) == 0 {
			opt.Causes = []Cause{{Rank: 1, Service: it.Service, Component: strings.TrimPrefix(it.Entity, it.EntityKind+"/"),
				ComponentKind: it.EntityKind, Signal: it.Signal, Facet: it.Facet}}
		}
	}
	if len(opt.Causes) == 0 {
		t.Fatalf("no decided item of %s", l.RootCause.Service)
	}
	rep, err := Run(bs, as, opt)
	if err != nil {
		t.Fatal(err)
	}
	items := map[string]model.Item{}
	for _, it := range rep.Items {
		items[it.ID] = it
	}
	if len(rep.Watch) < 2 {
		t.Fatalf("watch %+v: want the target's measurements and the cause", rep.Watch)
	}
	seen := map[string]bool{}
	queries := 0
	for _, w := range rep.Watch {
		it, ok := items[w.Item]
		if !ok || seen[w.Item] {
			t.Errorf("watch %+v: not one compared item, once", w)
		}
		seen[w.Item] = true
		if w.Verdict != it.Verdict || w.Text == "" {
			t.Errorf("watch %+v: want the item's verdict %s and a range", w, it.Verdict)
		}
		if w.Query != it.Query {
			t.Errorf("watch %s query %q, item's %q", w.Item, w.Query, it.Query)
		}
		if it.Kind == model.KindSeries && it.Query != "" {
			queries++
			name := it.Series
			if i := strings.IndexByte(name, '{'); i >= 0 {
				name = name[:i]
			}
			if !strings.HasPrefix(w.Query, name) {
				t.Errorf("query %q does not select series %q", w.Query, it.Series)
			}
			u, err := url.Parse(w.URL)
			if err != nil || u.Host != "grafana.example.com" || u.Path != "/explore" {
				t.Fatalf("watch %s: link %q", w.Item, w.URL)
			}
			var panes map[string]struct {
				Datasource string                    `json:"datasource"`
				Queries    []struct{ Expr string }   `json:"queries"`
				Range      struct{ From, To string } `json:"range"`
			}
			if err := json.Unmarshal([]byte(u.Query().Get("panes")), &panes); err != nil {
				t.Fatal(err)
			}
			p := panes["pa"]
			if p.Datasource != "prom" || len(p.Queries) != 1 || p.Queries[0].Expr != w.Query ||
				p.Range.To != strconvMilli(rep.After.End) {
				t.Errorf("panes %+v", p)
			}
		}
		if it.Kind == model.KindDistribution && it.Query != "" {
			t.Errorf("span-derived item %s has a query %q", it.ID, it.Query)
		}
	}
	if queries == 0 {
		t.Error("no watched Prometheus series: the simulated target has p99 series")
	}
	var causeSeen bool
	for _, w := range rep.Watch {
		causeSeen = causeSeen || w.Item == rep.Causes[0].Item && rep.Causes[0].Item != ""
	}
	if !causeSeen {
		t.Errorf("the cause's item %q is not watched: %+v", rep.Causes[0].Item, rep.Watch)
	}
	for _, f := range Formats() {
		out := renderFormat(t, rep, f)
		if !strings.Contains(out, "What to watch") && f != "json" {
			t.Errorf("%s: no watch section", f)
		}
	}
}

func strconvMilli(t ingest.Time) string { return strconv.FormatInt(t.Std().UnixMilli(), 10) }

// TestWatchRange words the range in the bad direction, from the band when
// known, else from the baseline.
func TestWatchRange(t *testing.T) {
	nanS := model.Stats{P99: math.NaN(), Median: math.NaN(), Scale: math.NaN(), Ratio: math.NaN()}
	up := &model.Item{Kind: model.KindSeries, Unit: "s", Direction: 1, Band: model.Band{Known: true, Level: [2]float64{0.1, 0.2}}, Baseline: nanS, After: nanS}
	if got := watchRange(up); !strings.Contains(got, "at most 200 ms") {
		t.Errorf("up: %q", got)
	}
	down := &model.Item{Kind: model.KindSeries, Direction: -1, Band: model.Band{Level: [2]float64{math.NaN(), math.NaN()}},
		Baseline: model.Stats{N: 30, Median: 10, Scale: 1}, After: nanS}
	if got := watchRange(down); !strings.Contains(got, "at least 7") || !strings.Contains(got, "± 3σ") {
		t.Errorf("down: %q", got)
	}
	errs := &model.Item{Kind: model.KindProportion, Band: model.Band{Known: true, Ratio: [2]float64{0, 0.02}}}
	if got := watchRange(errs); !strings.Contains(got, "2.0%") {
		t.Errorf("errors: %q", got)
	}
}
