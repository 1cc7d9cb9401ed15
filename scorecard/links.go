package scorecard

import (
	"math"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/internal/reportview"
	"github.com/pipeline-analyze/pipeline-analyze/tcg"
)

// StepLinks are the user's UIs that next steps link to; each empty one
// gives no link.
type StepLinks struct {
	// JaegerUI is the Jaeger UI's base URL (--jaeger-ui-url): a latency or
	// error cause measured on spans gets a search for its slow or failed
	// traces of the window.
	JaegerUI string
	// GrafanaURL is Grafana's base URL (--grafana-url): the PromQL of the
	// series that moved gets an Explore link over the baseline and window.
	GrafanaURL string
	// GrafanaDatasource is the UID of Grafana's Prometheus data source
	// (--grafana-datasource); empty opens Explore on the default one.
	GrafanaDatasource string
}

// jaegerSearch is the Jaeger UI's search of service's traces from "from"
// to "to", longer than minDuration (0: any) or with an error tag.
func jaegerSearch(base, service string, from, to time.Time, minDuration time.Duration, errorsOnly bool) string {
	v := url.Values{}
	v.Set("service", service)
	v.Set("start", strconv.FormatInt(from.UnixMicro(), 10))
	v.Set("end", strconv.FormatInt(to.UnixMicro(), 10))
	v.Set("lookback", "custom")
	v.Set("limit", "20")
	if minDuration > 0 {
		v.Set("minDuration", strconv.FormatInt(max(1, minDuration.Milliseconds()), 10)+"ms")
	}
	if errorsOnly {
		v.Set("tags", `{"error":"true"}`)
	}
	return strings.TrimRight(base, "/") + "/search?" + v.Encode()
}

// spanMeasured reports whether a node's representative series was derived
// from spans (so the Jaeger UI holds the requests behind it).
func spanMeasured(n *tcg.Node) bool {
	if n.Rep < 0 || n.Rep >= len(n.Series) {
		return false
	}
	return n.Series[n.Rep].Source == ingest.DerivedSource
}

// linkSteps are the steps that open the user's UIs on a cause: the slow or
// failed traces of its service in the Jaeger UI, when its signal was
// measured on spans. The Grafana link rides on the PromQL step (see
// queryStep).
func linkSteps(g *tcg.Graph, n *tcg.Node, links StepLinks) []Step {
	if links.JaegerUI == "" || !spanMeasured(n) || n.Entity.Service == "" {
		return nil
	}
	from, to := g.Incident.WindowStart.Std(), g.Incident.WindowEnd.Std()
	switch n.Signal {
	case ingest.SignalLatency:
		var minDur time.Duration
		if t := n.Tail; t != nil && t.Threshold > 0 && !math.IsInf(t.Threshold, 0) && t.Threshold < 1e6 {
			minDur = time.Duration(t.Threshold * float64(time.Second))
		}
		text := "the window's slow traces through " + n.Entity.Service
		if minDur > 0 {
			text += " (longer than the baseline's p" + strconv.Itoa(int(math.Round(n.Tail.Q*100))) + ")"
		}
		return []Step{{Kind: StepConfirm, Text: text + ", in the Jaeger UI",
			URL: jaegerSearch(links.JaegerUI, n.Entity.Service, from, to, minDur, false), Source: "built-in"}}
	case ingest.SignalErrors:
		return []Step{{Kind: StepConfirm, Text: "the window's failed traces through " + n.Entity.Service + ", in the Jaeger UI",
			URL: jaegerSearch(links.JaegerUI, n.Entity.Service, from, to, 0, true), Source: "built-in"}}
	}
	return nil
}

// queryStep is the step showing the series that moved: its PromQL, and an
// Explore link over the baseline and the window when Grafana is known.
func queryStep(g *tcg.Graph, n *tcg.Node, links StepLinks) (Step, bool) {
	q := movedQuery(n)
	if q == "" {
		return Step{}, false
	}
	s := Step{Kind: StepConfirm, Text: "the series that moved, in Prometheus or Grafana Explore", Query: q, Source: "built-in"}
	if links.GrafanaURL != "" {
		from := g.Incident.WindowStart.Std()
		if g.B0 >= 0 && g.B0 < len(g.Grid) {
			from = g.Grid[g.B0].Std()
		}
		s.URL = reportview.GrafanaExplore(links.GrafanaURL, links.GrafanaDatasource, q, from, g.Incident.WindowEnd.Std())
	}
	return s, true
}
