package reportview

import (
	"encoding/json"
	"net/url"
	"testing"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
)

// TestSeriesQuery: a Prometheus series' name and labels, values quoted as
// PromQL strings and names PromQL cannot select dropped; nothing for a
// derived series or an invalid name.
func TestSeriesQuery(t *testing.T) {
	for _, c := range []struct {
		s    ingest.Series
		want string
	}{
		{ingest.Series{Name: "up", Source: "prom.json"}, "up"},
		{ingest.Series{Name: "http_requests_total", Source: "prom.json", Labels: ingest.Labels{{Name: "job", Value: `a"b`}, {Name: "bad-name", Value: "x"}, {Name: "a:b", Value: "y"}}},
			`http_requests_total{job="a\"b"}`},
		{ingest.Series{Name: "latency", Source: "derived:traces"}, ""},
		{ingest.Series{Name: "9lives", Source: "prom.json"}, ""},
	} {
		if got := SeriesQuery(&c.s); got != c.want {
			t.Errorf("SeriesQuery(%s) = %q, want %q", c.s.Name, got, c.want)
		}
	}
}

// TestGrafanaExplore: one Explore pane on the data source with the query
// over the range in Unix milliseconds, the base URL's trailing slash
// dropped.
func TestGrafanaExplore(t *testing.T) {
	from, to := time.UnixMilli(1000), time.UnixMilli(2000)
	u, err := url.Parse(GrafanaExplore("https://g.example/", "prom-1", `up{job="a"}`, from, to))
	if err != nil || u.Host != "g.example" || u.Path != "/explore" {
		t.Fatalf("URL %v (%v)", u, err)
	}
	q := u.Query()
	if q.Get("schemaVersion") != "1" || q.Get("orgId") != "1" {
		t.Errorf("query %v", q)
	}
	var panes map[string]struct {
		Datasource string `json:"datasource"`
		Queries    []struct {
			Expr       string `json:"expr"`
			Datasource struct{ Type, UID string }
		} `json:"queries"`
		Range map[string]string `json:"range"`
	}
	if err := json.Unmarshal([]byte(q.Get("panes")), &panes); err != nil {
		t.Fatal(err)
	}
	p := panes["pa"]
	if p.Datasource != "prom-1" || len(p.Queries) != 1 || p.Queries[0].Expr != `up{job="a"}` || p.Queries[0].Datasource.UID != "prom-1" ||
		p.Range["from"] != "1000" || p.Range["to"] != "2000" {
		t.Errorf("panes %+v", panes)
	}
	if u, _ := url.Parse(GrafanaExplore("https://g.example", "", "up", from, to)); u.Query().Get("panes") == "" || u.Path != "/explore" {
		t.Errorf("default data source: %v", u)
	}
}
