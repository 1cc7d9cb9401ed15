package reportview

import (
	"encoding/json"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
)

// The query links the card's next steps and compare's watch list give: a
// series' PromQL and Grafana's Explore view of it.

// SeriesQuery is the PromQL selecting a series when it came from
// Prometheus ("" for a series derived from spans, logs or peers): its name
// and labels, values escaped as PromQL strings.
func SeriesQuery(s *ingest.Series) string {
	if strings.HasPrefix(s.Source, "derived") || !validMetricName(s.Name) { // derived:traces, derived:peers, ...
		return ""
	}
	var ls []string
	for _, l := range s.Labels {
		if !validMetricName(l.Name) || strings.Contains(l.Name, ":") {
			continue
		}
		ls = append(ls, l.Name+"="+strconv.Quote(l.Value))
	}
	if len(ls) == 0 {
		return s.Name
	}
	return s.Name + "{" + strings.Join(ls, ",") + "}"
}

// validMetricName is Prometheus' [a-zA-Z_:][a-zA-Z0-9_:]*.
func validMetricName(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		ok := r == '_' || r == ':' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9'
		if !ok {
			return false
		}
	}
	return true
}

// GrafanaExplore is Grafana's Explore URL (schemaVersion 1 panes, Grafana
// 10 and later) at base showing the PromQL expr from "from" to "to" on the
// Prometheus data source of UID datasource ("": Grafana's default).
func GrafanaExplore(base, datasource, expr string, from, to time.Time) string {
	type dsRef struct {
		Type string `json:"type"`
		UID  string `json:"uid"`
	}
	type query struct {
		RefID      string `json:"refId"`
		Expr       string `json:"expr"`
		Datasource *dsRef `json:"datasource,omitempty"`
	}
	type pane struct {
		Datasource string            `json:"datasource,omitempty"`
		Queries    []query           `json:"queries"`
		Range      map[string]string `json:"range"`
	}
	q := query{RefID: "A", Expr: expr}
	if datasource != "" {
		q.Datasource = &dsRef{Type: "prometheus", UID: datasource}
	}
	p := map[string]pane{"pa": {
		Datasource: datasource,
		Queries:    []query{q},
		Range: map[string]string{
			"from": strconv.FormatInt(from.UnixMilli(), 10),
			"to":   strconv.FormatInt(to.UnixMilli(), 10),
		},
	}}
	js, _ := json.Marshal(p) // plain structs of strings: cannot fail
	v := url.Values{}
	v.Set("schemaVersion", "1")
	v.Set("panes", string(js))
	v.Set("orgId", "1")
	return strings.TrimRight(base, "/") + "/explore?" + v.Encode()
}
