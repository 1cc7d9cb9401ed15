package live

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// samplesDir returns ../shared/samples/logs, skipping without it.
func samplesDir(t *testing.T) string {
	t.Helper()
	d := filepath.Join("..", "..", "shared", "samples", "logs")
	if _, err := os.Stat(d); err != nil {
		t.Skipf("shared samples not present: %v", err)
	}
	return d
}

func readSample(t *testing.T, rel string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(samplesDir(t), rel))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestServiceSelector(t *testing.T) {
	if got, want := ServiceSelector([]string{"cart", "ts.order", ""}), `{service_name=~"cart|ts\\.order"}`; got != want {
		t.Errorf("ServiceSelector = %s, want %s", got, want)
	}
	if ServiceSelector(nil) != "" {
		t.Error("no services: want no selector")
	}
}

// TestFetchLokiRecorded pages a query_range against a test server that
// answers with real Loki responses: the recorded 50-entry streams response
// for the first page, the recorded empty one after it.
func TestFetchLokiRecorded(t *testing.T) {
	full := readSample(t, "loki-netobserv/flow_records.json")
	empty := readSample(t, "loki-netobserv/flow_records_dropped.json")
	var calls atomic.Int32
	var starts []int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		q := r.URL.Query()
		if r.URL.Path != "/loki/api/v1/query_range" || q.Get("direction") != "forward" || q.Get("query") != `{app="netobserv-flowcollector"}` ||
			r.Header.Get("Authorization") != "Bearer "+secret {
			http.Error(w, "bad request: "+r.URL.String(), http.StatusBadRequest)
			return
		}
		start, _ := strconv.ParseInt(q.Get("start"), 10, 64)
		starts = append(starts, start)
		if start <= 1708011867087000064 { // before the recorded entries' newest
			w.Write(full)
			return
		}
		w.Write(empty)
	}))
	defer srv.Close()
	c := newTestClient(t, srv.URL, TransportOptions{BearerToken: secret})
	t0 := time.Unix(0, 1708011000000000000)
	res, err := FetchLoki(context.Background(), c, LogOptions{Start: t0, End: t0.Add(time.Hour), Selector: `{app="netobserv-flowcollector"}`, Page: 50})
	if err != nil {
		t.Fatal(err)
	}
	if res.Records != 50 || len(res.Files) != 1 || res.Requests != 2 || res.Capped {
		t.Fatalf("result %+v: want one page of 50 entries, then an empty page", res)
	}
	if string(res.Files[0].Data) != string(full) || res.Files[0].Path != "logs/loki_001.json" {
		t.Error("the page must be saved byte for byte")
	}
	if len(starts) != 2 || starts[1] <= starts[0] {
		t.Errorf("page starts %v: the second must follow the first page's newest entry", starts)
	}
	// A page smaller than the limit ends the paging; Max caps it.
	res, err = FetchLoki(context.Background(), c, LogOptions{Start: t0, End: t0.Add(time.Hour), Selector: `{app="netobserv-flowcollector"}`, Page: 100})
	if err != nil || res.Requests != 1 {
		t.Errorf("short page: %+v, %v", res, err)
	}
	res, err = FetchLoki(context.Background(), c, LogOptions{Start: t0, End: t0.Add(time.Hour), Selector: `{app="netobserv-flowcollector"}`, Page: 50, Max: 50})
	if err != nil || !res.Capped || res.Requests != 1 {
		t.Errorf("capped: %+v, %v", res, err)
	}
	// A selector Loki rejects: the error names the status.
	_, err = FetchLoki(context.Background(), c, LogOptions{Start: t0, End: t0.Add(time.Hour), Selector: `{app="x"}`})
	if err == nil || !strings.Contains(err.Error(), "HTTP 400") {
		t.Errorf("error %v: want the HTTP 400", err)
	}
	// No selector and no services.
	if _, err := FetchLoki(context.Background(), c, LogOptions{Start: t0, End: t0.Add(time.Hour)}); err == nil {
		t.Error("no selector: want an error")
	}
}

// TestFetchVictoriaLogsRecorded pages against real VictoriaLogs query
// output (the recorded JSON Lines), then an empty page.
func TestFetchVictoriaLogsRecorded(t *testing.T) {
	all := readSample(t, "captured/victorialogs-v1.52.2/query_all.jsonl")
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		r.ParseForm()
		if r.URL.Path != "/select/logsql/query" || r.Form.Get("query") != `{namespace="train-ticket"} | sort by (_time)` {
			http.Error(w, "cannot parse `query` arg", http.StatusBadRequest)
			return
		}
		start, _ := time.Parse(time.RFC3339Nano, r.Form.Get("start"))
		if start.Before(time.Date(2023, 1, 29, 8, 45, 0, 0, time.UTC)) {
			w.Write(all)
		}
	}))
	defer srv.Close()
	c := newTestClient(t, srv.URL, TransportOptions{})
	t0 := time.Date(2023, 1, 29, 8, 30, 0, 0, time.UTC)
	res, err := FetchVictoriaLogs(context.Background(), c, LogOptions{Start: t0, End: t0.Add(time.Hour), Selector: `{namespace="train-ticket"}`, Page: 250})
	if err != nil {
		t.Fatal(err)
	}
	if res.Records != 250 || len(res.Files) != 1 || res.Requests != 2 || res.Files[0].Path != "logs/victorialogs_001.jsonl" {
		t.Fatalf("result %+v", res)
	}
	if _, err := FetchVictoriaLogs(context.Background(), c, LogOptions{Start: t0, End: t0.Add(time.Hour), Selector: `{x="y"}`}); err == nil ||
		!strings.Contains(err.Error(), "cannot parse") {
		t.Errorf("error %v: want VictoriaLogs' message", err)
	}
}
