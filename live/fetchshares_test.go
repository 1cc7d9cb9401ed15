package live

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// hangHandler never answers until the client gives up. It reads the body
// first: the server notices a client hanging up only once the body is read.
func hangHandler(w http.ResponseWriter, r *http.Request) {
	r.ParseForm()
	<-r.Context().Done()
}

// vlogsServer answers every VictoriaLogs query with one page of 3 records.
func vlogsServer(t *testing.T, t0 time.Time, calls *atomic.Int32) *httptest.Server {
	t.Helper()
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		for i := range 3 {
			rec := map[string]string{"_time": t0.Add(time.Duration(i) * time.Second).Format(time.RFC3339Nano), "_msg": "hello", "service_name": "api"}
			b, _ := json.Marshal(rec)
			w.Write(append(b, '\n'))
		}
	}))
}

// TestHungSourceDegradesAlone: a hung source (Loki, Prometheus) uses up
// only its own share of the fetch deadline: the healthy VictoriaLogs and
// Jaeger are still asked and deliver, and the notes name the hung source
// and the deadline it ran out of.
func TestHungSourceDegradesAlone(t *testing.T) {
	t0 := time.Date(2026, 11, 30, 2, 0, 0, 0, time.UTC)
	hung := httptest.NewServer(http.HandlerFunc(hangHandler))
	defer hung.Close()
	tests := []struct {
		name       string
		loki, prom bool // hung sources given
		selector   string
		wantFiles  []string // path prefixes that must be fetched
		wantNotes  []string
	}{
		{"hung Loki, services selector", true, false, "", []string{"logs/victorialogs_", "traces."},
			[]string{`"source":"loki"`, "deadline"}},
		{"hung Loki, explicit selector", true, false, `{namespace="x"}`, []string{"logs/victorialogs_", "traces."},
			[]string{`"source":"loki"`, "deadline"}},
		{"hung Loki and Prometheus", true, true, "", []string{"logs/victorialogs_", "traces."},
			[]string{`"source":"loki"`, `"source":"prometheus"`, "request aggregates"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var jcalls, vcalls atomic.Int32
			jaeger := fakeJaeger(t, testSpans(t0), true, &jcalls)
			defer jaeger.Close()
			vl := vlogsServer(t, t0.Add(5*time.Minute), &vcalls)
			defer vl.Close()
			opt := Options{JaegerURL: jaeger.URL, VictoriaLogsURL: vl.URL, Start: t0, End: t0.Add(30 * time.Minute),
				WindowStart: t0.Add(25 * time.Minute), WindowEnd: t0.Add(30 * time.Minute), MaxTraces: 20, LogSelector: tc.selector,
				FetchTimeout: 3 * time.Second, Transport: TransportOptions{Timeout: time.Minute}}
			if tc.loki {
				opt.LokiURL = hung.URL
			}
			if tc.prom {
				opt.PrometheusURL = hung.URL
				opt.Queries = []Query{{Pack: "p", Name: "q", Expr: "up"}}
			}
			start := time.Now()
			m, files, err := Fetch(context.Background(), opt)
			if err != nil {
				t.Fatal(err)
			}
			if d := time.Since(start); d > 8*time.Second {
				t.Errorf("took %v with a 3s deadline", d)
			}
			for _, want := range tc.wantFiles {
				found := false
				for _, f := range files {
					found = found || strings.HasPrefix(f.Path, want)
				}
				if !found {
					t.Errorf("no %s* fetched: %d files; VictoriaLogs asked %d times, Jaeger %d", want, len(files), vcalls.Load(), jcalls.Load())
				}
			}
			notes, _ := json.Marshal(m.Notes)
			for _, want := range tc.wantNotes {
				if !strings.Contains(string(notes), want) {
					t.Errorf("notes lack %q: %s", want, notes)
				}
			}
		})
	}
}

func TestDeadlineText(t *testing.T) {
	if got := deadlineText(Options{FetchTimeout: 90 * time.Second}); got != "the fetch deadline (1m30s, --fetch-timeout)" {
		t.Errorf("whole: %q", got)
	}
	if got := deadlineText(Options{FetchTimeout: 90 * time.Second, share: time.Minute}); got != "its share (1m0s) of the fetch deadline (1m30s, --fetch-timeout)" {
		t.Errorf("share: %q", got)
	}
}
