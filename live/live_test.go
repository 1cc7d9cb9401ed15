package live

import (
	"context"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"log"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

const secret = "s3cr3t-t0ken-PLANTED"

func noSleep(context.Context, time.Duration) error { return nil }

func newTestClient(t *testing.T, url string, opt TransportOptions) *Client {
	t.Helper()
	c, err := NewClient(url, opt)
	if err != nil {
		t.Fatal(err)
	}
	c.sleep = noSleep
	return c
}

func TestRetries(t *testing.T) {
	tests := []struct {
		name     string
		codes    []int // answers in order; the last repeats
		retries  int
		wantErr  bool
		wantHits int32
	}{
		{"ok first", []int{200}, 2, false, 1},
		{"503 then ok", []int{503, 503, 200}, 2, false, 3},
		{"429 exhausts", []int{429}, 2, true, 3},
		{"400 not retried", []int{400}, 3, true, 1},
		{"no retries", []int{502}, 0, true, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var hits atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				n := int(hits.Add(1)) - 1
				code := tt.codes[min(n, len(tt.codes)-1)]
				w.WriteHeader(code)
				fmt.Fprintf(w, `{"n":%d}`, n)
			}))
			defer srv.Close()
			c := newTestClient(t, srv.URL, TransportOptions{Retries: tt.retries})
			_, err := c.Get(context.Background(), "/x", nil)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, want error %v", err, tt.wantErr)
			}
			if got := hits.Load(); got != tt.wantHits {
				t.Errorf("requests = %d, want %d", got, tt.wantHits)
			}
		})
	}
}

func TestTimeoutRetried(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if hits.Add(1) == 1 {
			select {
			case <-r.Context().Done():
			case <-time.After(2 * time.Second):
			}
			return
		}
		fmt.Fprint(w, `{}`)
	}))
	defer srv.Close()
	c := newTestClient(t, srv.URL, TransportOptions{Retries: 1, Timeout: 100 * time.Millisecond})
	if _, err := c.Get(context.Background(), "/x", nil); err != nil {
		t.Fatalf("second attempt should succeed: %v", err)
	}
}

func TestAuthHeaders(t *testing.T) {
	tests := []struct {
		name string
		url  func(base string) string
		opt  TransportOptions
		want string
	}{
		{"bearer", func(b string) string { return b }, TransportOptions{BearerToken: secret}, "Bearer " + secret},
		{"basic", func(b string) string { return b }, TransportOptions{BasicUser: "u", BasicPassword: secret}, "Basic dTpzM2NyM3QtdDBrZW4tUExBTlRFRA=="},
		{"userinfo becomes basic", func(b string) string { return strings.Replace(b, "http://", "http://u:"+secret+"@", 1) }, TransportOptions{}, "Basic dTpzM2NyM3QtdDBrZW4tUExBTlRFRA=="},
		{"none", func(b string) string { return b }, TransportOptions{}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got string
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				got = r.Header.Get("Authorization")
				w.WriteHeader(500)
			}))
			defer srv.Close()
			c := newTestClient(t, tt.url(srv.URL), tt.opt)
			_, err := c.Get(context.Background(), "/x", nil)
			if got != tt.want {
				t.Errorf("Authorization = %q, want %q", got, tt.want)
			}
			if err == nil || strings.Contains(err.Error(), secret) || strings.Contains(c.URL(), secret) {
				t.Errorf("secret leaked or no error: err=%v url=%s", err, c.URL())
			}
		})
	}
}

func TestTLS(t *testing.T) {
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, `{}`) }))
	srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	srv.StartTLS()
	defer srv.Close()
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(ca, certPEM(srv.Certificate().Raw), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		opt  TransportOptions
		ok   bool
	}{
		{"unknown CA fails", TransportOptions{}, false},
		{"custom CA", TransportOptions{CAFile: ca}, true},
		{"insecure", TransportOptions{InsecureSkipVerify: true}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newTestClient(t, srv.URL, tt.opt)
			_, err := c.Get(context.Background(), "/", nil)
			if (err == nil) != tt.ok {
				t.Errorf("err = %v, want ok %v", err, tt.ok)
			}
		})
	}
}

func TestSelectorAndPacks(t *testing.T) {
	tests := []struct {
		sel, expr, want string
	}{
		{``, `up{__SEL__}`, `up{}`},
		{`{namespace="llm"}`, `up{__SEL__}`, `up{namespace="llm"}`},
		{`namespace="llm",pod=~"v.*"`, `x{a!="",__SEL__}[__RATE__]`, `x{a!="",namespace="llm",pod=~"v.*"}[1m]`},
		{``, `x{a!="",__SEL__}[__RATE__]`, `x{a!=""}[1m]`},
	}
	for _, tt := range tests {
		t.Run(tt.sel+tt.expr, func(t *testing.T) {
			inner, err := ParseSelector(tt.sel)
			if err != nil {
				t.Fatal(err)
			}
			if got := Render(tt.expr, inner, 15*time.Second); got != tt.want {
				t.Errorf("got %s, want %s", got, tt.want)
			}
		})
	}
	for _, bad := range []string{`{namespace}`, `{a="b",c}`, `{a=b}`} {
		if _, err := ParseSelector(bad); err == nil {
			t.Errorf("ParseSelector(%q) accepted", bad)
		}
	}
	qs, err := Queries("all", `namespace="llm"`, 15*time.Second, []string{"up"})
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range qs {
		if strings.Contains(q.Expr, "__") && !strings.Contains(q.Expr, "__name__") {
			t.Errorf("%s: placeholder left: %s", q.Name, q.Expr)
		}
		if q.Pack != "user" && !strings.Contains(q.Expr, `namespace="llm"`) {
			t.Errorf("%s: selector missing: %s", q.Name, q.Expr)
		}
	}
	if last := qs[len(qs)-1]; last.Name != "query1" || last.Expr != "up" {
		t.Errorf("user query = %+v", last)
	}
	if _, err := Queries("vllm,bogus", "", 0, nil); err == nil {
		t.Error("unknown pack accepted")
	}
	if got := EffectiveStep(time.Unix(0, 0), time.Unix(0, 0).Add(30*24*time.Hour), 15*time.Second); got < 235*time.Second {
		t.Errorf("step for 30d = %v, want raised under the 11000-point limit", got)
	}
}

// fakeJaeger serves api_v3 (or only v1) from a list of traces.
type fakeSpan struct {
	trace, span, svc, op string
	start                time.Time
	dur                  time.Duration
	err                  bool
}

func fakeJaeger(t *testing.T, spans []fakeSpan, withV3 bool, calls *atomic.Int32) *httptest.Server {
	t.Helper()
	svcs := map[string]bool{}
	for _, s := range spans {
		svcs[s.svc] = true
	}
	mux := http.NewServeMux()
	match := func(s fakeSpan, svc, op string, a, b time.Time, minDur time.Duration) bool {
		return s.svc == svc && (op == "" || s.op == op) && !s.start.Before(a) && !s.start.After(b) && s.dur >= minDur
	}
	if withV3 {
		mux.HandleFunc("/api/v3/services", func(w http.ResponseWriter, r *http.Request) {
			json.NewEncoder(w).Encode(map[string]any{"services": slices.Sorted(maps.Keys(svcs))})
		})
		mux.HandleFunc("/api/v3/operations", func(w http.ResponseWriter, r *http.Request) {
			ops := map[string]bool{}
			for _, s := range spans {
				if s.svc == r.URL.Query().Get("service") {
					ops[s.op] = true
				}
			}
			var out []map[string]string
			for _, o := range slices.Sorted(maps.Keys(ops)) {
				out = append(out, map[string]string{"name": o})
			}
			json.NewEncoder(w).Encode(map[string]any{"operations": out})
		})
		mux.HandleFunc("/api/v3/traces", func(w http.ResponseWriter, r *http.Request) {
			calls.Add(1)
			q := r.URL.Query()
			a, err1 := time.Parse(time.RFC3339Nano, q.Get("query.start_time_min"))
			b, err2 := time.Parse(time.RFC3339Nano, q.Get("query.start_time_max"))
			if err1 != nil || err2 != nil || q.Get("query.num_traces") == "" {
				http.Error(w, `{"error":{"message":"bad params"}}`, 400)
				return
			}
			var minDur time.Duration
			if d := q.Get("query.duration_min"); d != "" {
				minDur, _ = time.ParseDuration(d)
			}
			var rs []any
			limit, _ := strconv.Atoi(q.Get("query.num_traces"))
			for _, s := range spans {
				if len(rs) < limit && match(s, q.Get("query.service_name"), q.Get("query.operation_name"), a, b, minDur) {
					code := 0
					if s.err {
						code = 2
					}
					rs = append(rs, map[string]any{
						"resource": map[string]any{"attributes": []any{map[string]any{"key": "service.name", "value": map[string]any{"stringValue": s.svc}}}},
						"scopeSpans": []any{map[string]any{"scope": map[string]any{}, "spans": []any{map[string]any{
							"traceId": s.trace, "spanId": s.span, "name": s.op, "kind": 2,
							"startTimeUnixNano": fmt.Sprint(s.start.UnixNano()), "endTimeUnixNano": fmt.Sprint(s.start.Add(s.dur).UnixNano()),
							"status": map[string]any{"code": code}}}}},
					})
				}
			}
			if len(rs) == 0 {
				http.Error(w, `{"error":{"httpCode":404,"message":"No traces found"}}`, 404)
				return
			}
			json.NewEncoder(w).Encode(map[string]any{"result": map[string]any{"resourceSpans": rs}})
		})
	}
	mux.HandleFunc("/api/services", func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(map[string]any{"data": slices.Sorted(maps.Keys(svcs))})
	})
	mux.HandleFunc("/api/services/{svc}/operations", func(w http.ResponseWriter, r *http.Request) {
		ops := map[string]bool{}
		for _, s := range spans {
			if s.svc == r.PathValue("svc") {
				ops[s.op] = true
			}
		}
		json.NewEncoder(w).Encode(map[string]any{"data": slices.Sorted(maps.Keys(ops))})
	})
	mux.HandleFunc("/api/traces", func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		q := r.URL.Query()
		var a, b int64
		fmt.Sscan(q.Get("start"), &a)
		fmt.Sscan(q.Get("end"), &b)
		var minDur time.Duration
		if d := q.Get("minDuration"); d != "" {
			minDur, _ = time.ParseDuration(d)
		}
		errOnly := q.Get("tags") != ""
		var data []any
		limit, _ := strconv.Atoi(q.Get("limit"))
		for _, s := range spans {
			if len(data) < limit && match(s, q.Get("service"), q.Get("operation"), time.UnixMicro(a), time.UnixMicro(b), minDur) && (!errOnly || s.err) {
				tags := []any{}
				if s.err {
					tags = append(tags, map[string]any{"key": "error", "type": "bool", "value": true})
				}
				data = append(data, map[string]any{"traceID": s.trace, "spans": []any{map[string]any{
					"traceID": s.trace, "spanID": s.span, "operationName": s.op, "processID": "p1",
					"startTime": s.start.UnixMicro(), "duration": s.dur.Microseconds(), "tags": tags}},
					"processes": map[string]any{"p1": map[string]any{"serviceName": s.svc}}})
			}
		}
		json.NewEncoder(w).Encode(map[string]any{"data": data})
	})
	return httptest.NewServer(mux)
}

func testSpans(t0 time.Time) []fakeSpan {
	var spans []fakeSpan
	for i := range 120 {
		svc := []string{"api", "db"}[i%2]
		dur := 10 * time.Millisecond
		if i%17 == 0 {
			dur = time.Second
		}
		spans = append(spans, fakeSpan{trace: fmt.Sprintf("%032x", i+1), span: fmt.Sprintf("%016x", i+1), svc: svc, op: "op" + fmt.Sprint(i%3),
			start: t0.Add(time.Duration(i) * 15 * time.Second), dur: dur, err: i%23 == 0})
	}
	return spans
}

func TestFetchJaeger(t *testing.T) {
	t0 := time.Date(2026, 11, 30, 2, 0, 0, 0, time.UTC)
	for _, v3 := range []bool{true, false} {
		t.Run(fmt.Sprintf("v3=%v", v3), func(t *testing.T) {
			var calls atomic.Int32
			srv := fakeJaeger(t, testSpans(t0), v3, &calls)
			defer srv.Close()
			c := newTestClient(t, srv.URL, TransportOptions{})
			opt := JaegerOptions{Start: t0, End: t0.Add(30 * time.Minute), WindowStart: t0.Add(25 * time.Minute), WindowEnd: t0.Add(30 * time.Minute), MaxTraces: 40}
			res, err := FetchJaeger(context.Background(), c, opt)
			if err != nil {
				t.Fatal(err)
			}
			wantAPI := map[bool]string{true: "v3", false: "v1"}[v3]
			if res.API != wantAPI || len(res.Services) != 2 || len(res.Missing) != 0 {
				t.Fatalf("api %s services %v missing %v", res.API, res.Services, res.Missing)
			}
			// 30 slices of 1 trace per service (40*3/4=30 over 30 slices) + slow ones.
			if res.Traces < 55 || res.Traces > 80 {
				t.Errorf("kept %d traces, want a bounded sample of about 60", res.Traces)
			}
			if !strings.Contains(res.Sampling, "time slices") {
				t.Errorf("sampling statement: %s", res.Sampling)
			}
			again, err := FetchJaeger(context.Background(), c, opt)
			if err != nil || string(again.Body) != string(res.Body) {
				t.Error("two fetches of the same data differ")
			}
			var probe map[string]json.RawMessage
			if err := json.Unmarshal(res.Body, &probe); err != nil {
				t.Fatalf("saved traces are not JSON: %v", err)
			}
			if _, ok := probe[map[bool]string{true: "result", false: "data"}[v3]]; !ok {
				t.Errorf("envelope keys %v", probe)
			}
		})
	}
}

func TestFetchPartialAndTotalFailure(t *testing.T) {
	t0 := time.Date(2026, 11, 30, 2, 0, 0, 0, time.UTC)
	prom := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.ParseForm()
		switch r.Form.Get("query") {
		case "bad(":
			w.WriteHeader(400)
			fmt.Fprint(w, `{"status":"error","errorType":"bad_data","error":"parse error"}`)
		case "empty":
			fmt.Fprint(w, `{"status":"success","data":{"resultType":"matrix","result":[]}}`)
		default:
			fmt.Fprintf(w, `{"status":"success","data":{"resultType":"matrix","result":[{"metric":{"__name__":"up"},"values":[[%d,"1"]]}]}}`, t0.Unix())
		}
	}))
	defer prom.Close()
	qs := []Query{{Pack: "user", Name: "query1", Expr: "up"}, {Pack: "user", Name: "query2", Expr: "bad("}, {Pack: "user", Name: "query3", Expr: "empty"}}
	base := Options{Start: t0, End: t0.Add(time.Hour), WindowStart: t0.Add(55 * time.Minute), WindowEnd: t0.Add(time.Hour),
		Transport: TransportOptions{Retries: 0, Timeout: time.Second}}

	t.Run("jaeger down, one query bad", func(t *testing.T) {
		opt := base
		opt.JaegerURL, opt.PrometheusURL, opt.Queries = "http://127.0.0.1:1", prom.URL, qs
		m, files, err := Fetch(context.Background(), opt)
		if err != nil {
			t.Fatal(err)
		}
		if len(files) != 1 || files[0].Path != "prometheus/qr_query1.json" {
			t.Fatalf("files %v", m.Files)
		}
		var msgs []string
		for _, n := range m.Notes {
			msgs = append(msgs, n.Kind+" "+n.Source+": "+n.Message)
		}
		all := strings.Join(msgs, "\n")
		for _, want := range []string{"missing jaeger: no traces", "missing prometheus: 1 of 3 queries failed: query2 (bad_data: parse error)"} {
			if !strings.Contains(all, want) {
				t.Errorf("notes lack %q:\n%s", want, all)
			}
		}
		dir := t.TempDir()
		if err := Save(dir, m, files); err != nil {
			t.Fatal(err)
		}
		got, ok, err := LoadManifest(dir)
		if err != nil || !ok || len(got.Notes) != len(m.Notes) {
			t.Fatalf("LoadManifest: %v %v %+v", ok, err, got)
		}
	})
	t.Run("everything down", func(t *testing.T) {
		opt := base
		opt.JaegerURL, opt.PrometheusURL, opt.Queries = "http://127.0.0.1:1", "http://127.0.0.1:1", qs
		_, _, err := Fetch(context.Background(), opt)
		if !errors.Is(err, ErrNothingFetched) {
			t.Fatalf("err = %v, want ErrNothingFetched", err)
		}
	})
}

func certPEM(der []byte) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}

func TestWriteQueries(t *testing.T) {
	var sb strings.Builder
	if err := WriteQueries(&sb, []Query{{Pack: "user", Name: "q1", Expr: "up"}, {Pack: "vllm", Name: "long_name", Expr: "rate(x[1m])"}}); err != nil {
		t.Fatal(err)
	}
	want := "PACK  NAME       QUERY\nuser  q1         up\nvllm  long_name  rate(x[1m])\n"
	if sb.String() != want {
		t.Errorf("got %q, want %q", sb.String(), want)
	}
}
