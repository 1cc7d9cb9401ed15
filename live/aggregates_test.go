package live

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
)

// matrixBody is a query_range answer with one series per service: value 1
// (with a little noise) every 15 s, and jump added in [jumpFrom, end) for
// the services in jumps.
func matrixBody(label string, t0 time.Time, n int, jumpFrom int, jumps map[string]float64, svcs ...string) []byte {
	var series []string
	for _, s := range svcs {
		var vals []string
		for i := range n {
			v := 1 + 0.01*float64(i%3)
			if i >= jumpFrom {
				v += jumps[s]
			}
			vals = append(vals, fmt.Sprintf(`[%d,"%g"]`, t0.Add(time.Duration(i)*15*time.Second).Unix(), v))
		}
		series = append(series, fmt.Sprintf(`{"metric":{%q:%q},"values":[%s]}`, label, s, strings.Join(vals, ",")))
	}
	return []byte(`{"status":"success","data":{"resultType":"matrix","result":[` + strings.Join(series, ",") + `]}}`)
}

func TestAggregateScores(t *testing.T) {
	t0 := time.Date(2026, 11, 30, 2, 0, 0, 0, time.UTC)
	ws, we := t0.Add(100*15*time.Second), t0.Add(120*15*time.Second)
	body := matrixBody("server", t0, 120, 100, map[string]float64{"db": 5}, "api", "db")
	rs := []QueryResult{
		{Query: Query{Pack: "servicegraph", Name: "g"}, Body: body},
		// Not an aggregate pack: ignored even though it moved.
		{Query: Query{Pack: "user", Name: "u"}, Body: matrixBody("server", t0, 120, 100, map[string]float64{"api": 9}, "api")},
		// A failed query and an unparsable body are skipped.
		{Query: Query{Pack: "istio", Name: "bad"}, Err: "boom"},
		{Query: Query{Pack: "spanmetrics", Name: "junk"}, Body: []byte("{")},
	}
	got := AggregateScores(rs, ws, we)
	if len(got) != 2 || got["db"] < 100 || got["api"] >= AggregateMinZ {
		t.Fatalf("scores %v: want db far above %g, api below", got, AggregateMinZ)
	}
	order := orderByAggregates([]string{"api", "cache", "db"}, got)
	if strings.Join(order, ",") != "db,cache,api" {
		t.Errorf("order %v: want moved, unknown, quiet", order)
	}
	if !quietByAggregates("api", got) || quietByAggregates("cache", got) || quietByAggregates("db", got) {
		t.Error("only a service the aggregates name and that did not move is quiet")
	}
}

// TestFetchAggregatesFirst: with both sources, the metrics' request
// aggregates order the trace searches: the moved service fills
// --max-services 1 though it is not first by name, and the quiet one's
// window is not searched.
func TestFetchAggregatesFirst(t *testing.T) {
	t0 := time.Date(2026, 11, 30, 2, 0, 0, 0, time.UTC)
	end := t0.Add(30 * time.Minute)
	n := int(30 * time.Minute / (15 * time.Second))
	prom := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write(matrixBody("server", t0, n, n-20, map[string]float64{"db": 3}, "api", "db"))
	}))
	defer prom.Close()
	var calls atomic.Int32
	jg := fakeJaeger(t, testSpans(t0), true, &calls)
	defer jg.Close()
	opt := Options{JaegerURL: jg.URL, PrometheusURL: prom.URL, Start: t0, End: end, WindowStart: end.Add(-5 * time.Minute), WindowEnd: end,
		Queries: []Query{{Pack: "servicegraph", Name: "traces_service_graph_request_server_seconds_p99", Expr: "x"}}, MaxTraces: 40,
		Transport: TransportOptions{Retries: 0, Timeout: 5 * time.Second}}

	opt.MaxServices = 1
	m, _, err := Fetch(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	if m.Jaeger == nil || strings.Join(m.Jaeger.Services, ",") != "db" {
		t.Fatalf("services %v: want the moved db ahead of api", m.Jaeger)
	}

	opt.MaxServices = 0
	m, _, err = Fetch(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(m.Jaeger.Sampling, "1 whose aggregates did not move") {
		t.Errorf("sampling %q: want api's window skipped", m.Jaeger.Sampling)
	}
	c := newTestClient(t, jg.URL, TransportOptions{})
	res, err := FetchJaeger(context.Background(), c, JaegerOptions{Start: t0, End: end, WindowStart: opt.WindowStart, WindowEnd: end, MaxTraces: 40})
	if err != nil {
		t.Fatal(err)
	}
	if res.Quiet != 0 || res.Requests <= 0 {
		t.Errorf("without aggregates nothing is skipped: quiet %d", res.Quiet)
	}
}

// TestSpanmetricsPackClassified: the spanmetrics pack's result names read
// as the signals they are (a series named by the pack keeps the service
// from service_name).
func TestSpanmetricsPackClassified(t *testing.T) {
	want := map[string]ingest.SignalKind{
		"traces_span_metrics_calls_rate":                ingest.SignalTraffic,
		"traces_span_metrics_calls_error_rate":          ingest.SignalErrors,
		"traces_span_metrics_duration_milliseconds_p99": ingest.SignalLatency,
		"traces_span_metrics_duration_seconds_p99":      ingest.SignalLatency,
	}
	seen := 0
	for _, q := range packs {
		if q.Pack != "spanmetrics" {
			continue
		}
		seen++
		s := &ingest.Series{Name: q.Name, Labels: ingest.Labels{{Name: "service_name", Value: "cart"}}}
		ingest.ClassifySeries(s)
		if s.Signal != want[q.Name] || s.Entity.Name != "cart" {
			t.Errorf("%s: signal %v entity %v, want %v of cart", q.Name, s.Signal, s.Entity, want[q.Name])
		}
	}
	if seen != len(want) {
		t.Errorf("%d spanmetrics queries, want %d", seen, len(want))
	}
}
