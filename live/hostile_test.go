package live

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestRedirectStripsCredentials: a redirect to another port of the same
// host (curl's CVE-2022-27776), to another scheme or host, gets no
// Authorization; one within the origin keeps it; a loop stops.
func TestRedirectStripsCredentials(t *testing.T) {
	var got atomic.Value
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got.Store(r.Header.Get("Authorization"))
		fmt.Fprint(w, `{}`)
	}))
	defer other.Close()
	var self *httptest.Server
	self = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/cross":
			http.Redirect(w, r, other.URL+"/x", http.StatusTemporaryRedirect)
		case "/same":
			http.Redirect(w, r, "/final", http.StatusTemporaryRedirect)
		case "/final":
			got.Store(r.Header.Get("Authorization"))
			fmt.Fprint(w, `{}`)
		case "/loop":
			http.Redirect(w, r, "/loop", http.StatusFound)
		}
	}))
	defer self.Close()
	for _, opt := range []TransportOptions{{BearerToken: secret}, {BasicUser: "u", BasicPassword: secret}} {
		c := newTestClient(t, self.URL, opt)
		got.Store("unset")
		if _, err := c.Get(context.Background(), "/cross", nil); err != nil {
			t.Fatal(err)
		}
		if a := got.Load().(string); a != "" {
			t.Errorf("cross-port redirect carried Authorization %q", a)
		}
		if _, err := c.Get(context.Background(), "/same", nil); err != nil {
			t.Fatal(err)
		}
		if a := got.Load().(string); a == "" {
			t.Error("a same-origin redirect lost the credentials")
		}
		_, err := c.Get(context.Background(), "/loop", nil)
		if err == nil || !strings.Contains(err.Error(), "redirects") {
			t.Errorf("redirect loop: %v", err)
		}
	}
	if sameOrigin(mustURL(t, "http://h:80/a"), mustURL(t, "http://h/b")) != true || sameOrigin(mustURL(t, "http://h:81"), mustURL(t, "http://h")) ||
		sameOrigin(mustURL(t, "https://h"), mustURL(t, "http://h")) {
		t.Error("sameOrigin")
	}
}

// TestRetryAfterAndPOSTLabel: a 429 with Retry-After is retried after the
// delay it asks for (capped); errors of POST requests say POST.
func TestRetryAfterAndPOSTLabel(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if hits.Add(1) == 1 {
			w.Header().Set("Retry-After", "7")
			w.WriteHeader(http.StatusTooManyRequests)
			return
		}
		if r.Method == http.MethodPost {
			http.Error(w, "bad query", http.StatusBadRequest)
			return
		}
		fmt.Fprint(w, `{}`)
	}))
	defer srv.Close()
	c := newTestClient(t, srv.URL, TransportOptions{Retries: 2})
	var slept []time.Duration
	c.sleep = func(_ context.Context, d time.Duration) error { slept = append(slept, d); return nil }
	if _, err := c.Get(context.Background(), "/x", nil); err != nil {
		t.Fatal(err)
	}
	if len(slept) != 1 || slept[0] != 7*time.Second {
		t.Errorf("slept %v, want [7s]", slept)
	}
	_, err := c.PostForm(context.Background(), "/q", nil)
	if err == nil || !strings.HasPrefix(err.Error(), "POST /q: HTTP 400") {
		t.Errorf("POST error = %v", err)
	}
	for _, tc := range []struct {
		v    string
		want time.Duration
	}{{"3", 3 * time.Second}, {time.Unix(1000, 0).UTC().Format(http.TimeFormat), 10 * time.Second}} {
		if d, ok := retryAfter(tc.v, time.Unix(990, 0)); !ok || d != tc.want {
			t.Errorf("retryAfter(%q) = %v %v", tc.v, d, ok)
		}
	}
}

// TestSecretsRedacted: a 401 whose body quotes the token, in plain and
// base64 form, yields an error without either.
func TestSecretsRedacted(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprintf(w, "bad token %q (header %s, b64 %s)", secret, r.Header.Get("Authorization"), base64.StdEncoding.EncodeToString([]byte(secret)))
	}))
	defer srv.Close()
	for _, opt := range []TransportOptions{{BearerToken: secret}, {BasicUser: "admin", BasicPassword: secret}} {
		c := newTestClient(t, srv.URL, opt)
		_, err := c.Get(context.Background(), "/x", nil)
		if err == nil {
			t.Fatal("no error")
		}
		if strings.Contains(err.Error(), secret) || strings.Contains(err.Error(), base64.StdEncoding.EncodeToString([]byte(secret))) ||
			strings.Contains(err.Error(), base64.StdEncoding.EncodeToString([]byte("admin:"+secret))) {
			t.Errorf("secret in error: %v", err)
		}
		if !strings.Contains(err.Error(), "[REDACTED]") {
			t.Errorf("nothing redacted: %v", err)
		}
	}
}

// TestBodyBounds: a body over MaxBody, counted after decompression (a gzip
// bomb), is refused without being held whole.
func TestBodyBounds(t *testing.T) {
	var member, bomb bytes.Buffer // one 1 MiB member written 256 times: 256 MiB inflated
	zw := gzip.NewWriter(&member)
	zw.Write(bytes.Repeat([]byte(" "), 1<<20))
	zw.Close()
	for i := 0; i < 256; i++ {
		bomb.Write(member.Bytes())
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/bomb" {
			w.Header().Set("Content-Encoding", "gzip")
			w.Write(bomb.Bytes())
			return
		}
		w.Write(bytes.Repeat([]byte("x"), 3<<20))
	}))
	defer srv.Close()
	c := newTestClient(t, srv.URL, TransportOptions{MaxBody: 1 << 20})
	for _, p := range []string{"/bomb", "/big"} {
		_, err := c.Get(context.Background(), p, nil)
		if err == nil || !strings.Contains(err.Error(), "larger than 1 MiB") {
			t.Errorf("%s: %v", p, err)
		}
	}
}

// TestFetchDeadlineKeepsWhatArrived: with a hanging Prometheus query and a
// hanging Jaeger, the fetch returns at its deadline with the queries that
// answered and a note per source saying what is missing.
func TestFetchDeadlineKeepsWhatArrived(t *testing.T) {
	hang := func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }
	jaeger := httptest.NewServer(http.HandlerFunc(hang))
	defer jaeger.Close()
	prom := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.ParseForm()
		if r.Form.Get("query") == "slow" {
			hang(w, r)
			return
		}
		fmt.Fprint(w, `{"status":"success","data":{"resultType":"matrix","result":[{"metric":{"__name__":"up"},"values":[[1,"1"],[2,"1"]]}]}}`)
	}))
	defer prom.Close()
	end := time.Unix(1700000000, 0)
	start := time.Now()
	m, files, err := Fetch(context.Background(), Options{JaegerURL: jaeger.URL, PrometheusURL: prom.URL, Start: end.Add(-time.Hour), End: end,
		WindowStart: end.Add(-5 * time.Minute), WindowEnd: end, Queries: []Query{{Pack: "p", Name: "fast", Expr: "up"}, {Pack: "p", Name: "slow", Expr: "slow"}},
		FetchTimeout: time.Second, Transport: TransportOptions{Timeout: 30 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("took %v with a 1s deadline", d)
	}
	if len(files) != 1 || files[0].Path != "prometheus/qr_fast.json" {
		t.Errorf("files %v", files)
	}
	notes, _ := json.Marshal(m.Notes)
	for _, want := range []string{`"source":"jaeger"`, `"source":"prometheus"`, "deadline"} {
		if !strings.Contains(string(notes), want) {
			t.Errorf("notes lack %q: %s", want, notes)
		}
	}
}

// TestJaegerServiceAndRequestBounds: a Jaeger listing 100k services is
// sampled within the service and request bounds.
func TestJaegerServiceAndRequestBounds(t *testing.T) {
	var reqs atomic.Int32
	var list strings.Builder
	list.WriteString(`{"services":[`)
	for i := 0; i < 100_000; i++ {
		if i > 0 {
			list.WriteByte(',')
		}
		fmt.Fprintf(&list, `"svc-%06d"`, i)
	}
	list.WriteString(`]}`)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reqs.Add(1)
		switch r.URL.Path {
		case "/api/v3/services":
			fmt.Fprint(w, list.String())
		case "/api/v3/operations":
			fmt.Fprint(w, `{"operations":[{"name":"op"}]}`)
		default:
			fmt.Fprint(w, `{"result":{"resourceSpans":[]}}`)
		}
	}))
	defer srv.Close()
	c := newTestClient(t, srv.URL, TransportOptions{})
	end := time.Unix(1700000000, 0)
	res, err := FetchJaeger(context.Background(), c, JaegerOptions{Start: end.Add(-time.Hour), End: end, WindowStart: end.Add(-time.Minute), WindowEnd: end,
		MaxServices: 50, MaxRequests: 300})
	if err != nil {
		t.Fatal(err)
	}
	if res.Listed != 100_000 || len(res.Services) != 50 {
		t.Errorf("listed %d, sampled %d", res.Listed, len(res.Services))
	}
	if n := reqs.Load(); n > 300 {
		t.Errorf("%d requests with --max-requests 300", n)
	}
}

// TestSaveAtomic: a bundle is written into a fresh directory and renamed
// into place; a planted symlink in an earlier bundle is never followed (the
// earlier bundle is replaced as a whole, leftovers gone); a non-empty
// directory that is not a bundle and a symlinked directory are refused.
func TestSaveAtomic(t *testing.T) {
	root := t.TempDir()
	outside := filepath.Join(root, "outside.txt")
	os.WriteFile(outside, []byte("keep"), 0o644)
	dir := filepath.Join(root, "bundle")
	m := &Manifest{Version: 1}
	if err := Save(dir, m, []File{{Path: "prometheus/qr_a.json", Data: []byte("{}")}, {Path: "old.json", Data: []byte("{}")}}); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(dir, "prometheus", "qr_a.json"))
	os.Symlink(outside, filepath.Join(dir, "prometheus", "qr_a.json")) // planted
	if err := Save(dir, m, []File{{Path: "prometheus/qr_a.json", Data: []byte(`{"new":1}`)}}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(outside); string(b) != "keep" {
		t.Errorf("a planted symlink was followed: outside.txt = %q", b)
	}
	if _, err := os.Stat(filepath.Join(dir, "old.json")); err == nil {
		t.Error("a leftover of the earlier bundle survived")
	}
	if b, err := os.ReadFile(filepath.Join(dir, "prometheus", "qr_a.json")); err != nil || string(b) != `{"new":1}` {
		t.Errorf("new file: %q %v", b, err)
	}
	ents, _ := os.ReadDir(root)
	if len(ents) != 2 {
		t.Errorf("temporary directories left: %v", ents)
	}
	other := filepath.Join(root, "notabundle")
	os.Mkdir(other, 0o755)
	os.WriteFile(filepath.Join(other, "data.txt"), []byte("x"), 0o644)
	if err := Save(other, m, nil); err == nil || !strings.Contains(err.Error(), "not a saved bundle") {
		t.Errorf("non-empty dir: %v", err)
	}
	link := filepath.Join(root, "link")
	os.Symlink(other, link)
	if err := Save(link, m, nil); err == nil || !strings.Contains(err.Error(), "symlink") {
		t.Errorf("symlinked dir: %v", err)
	}
	if err := Save(filepath.Join(root, "evil"), m, []File{{Path: "../escape.json", Data: []byte("x")}}); err == nil {
		t.Error("a file name leaving the bundle was accepted")
	}
}

// TestCountedArray counts point lists without decoding them.
func TestCountedArray(t *testing.T) {
	for in, want := range map[string]int{`[]`: 0, `[ ]`: 0, `[[1,"2"]]`: 1, `[[1,"a,b"],[2,"]"],[3,"\"]"]]`: 3} {
		var c countedArray
		if err := c.UnmarshalJSON([]byte(in)); err != nil || int(c) != want {
			t.Errorf("%s: %d %v, want %d", in, c, err, want)
		}
	}
	var pr promResponse
	if err := json.Unmarshal([]byte(`{"data":{"result":[{"values":[[1,"1"],[2,"2"]]}]}}`), &pr); err != nil || pr.Data.Result[0].Values != 2 {
		t.Errorf("%+v %v", pr, err)
	}
}

func mustURL(t *testing.T, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}
