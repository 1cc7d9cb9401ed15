package driver

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/fixtures"
	"github.com/pipeline-analyze/pipeline-analyze/internal/cliio"
	"github.com/pipeline-analyze/pipeline-analyze/live"
)

// The misbehaving-server suite of issue 15: fake Jaeger and Prometheus
// servers on 127.0.0.1 that hang, drip, fail, throttle, lie, bloat, bomb,
// loop, redirect elsewhere, list 100k services, inject escapes and echo the
// token. Each scenario runs the real binary with default fetch flags and
// -q; every run stays within 120 s and 1 GiB, names a cause for each source
// that failed (stderr when nothing was fetched, the report's warnings
// otherwise), and the token is never sent to another origin nor found in
// any output or saved file.

const maxServerRun = 120 * time.Second

// promFixture serves a simulated incident's query_range files for the pack
// queries named like them (empty results for the others).
type promFixture struct {
	dir    string
	byExpr map[string]string
	index  map[string]int // pack order of each query
}

func newPromFixture(t *testing.T, dir string) *promFixture {
	qs, err := live.Queries("all", "", 15*time.Second, nil)
	if err != nil {
		t.Fatal(err)
	}
	p := &promFixture{dir: dir, byExpr: map[string]string{}, index: map[string]int{}}
	for i, q := range qs {
		p.byExpr[q.Expr] = q.Name
		p.index[q.Expr] = i
	}
	return p
}

// serve answers one query_range request with the fixture's data.
func (p *promFixture) serve(w http.ResponseWriter, r *http.Request) {
	data, err := os.ReadFile(filepath.Join(p.dir, "metrics_"+p.byExpr[r.Form.Get("query")]+".json"))
	if err != nil {
		fmt.Fprint(w, `{"status":"success","data":{"resultType":"matrix","result":[]}}`)
		return
	}
	w.Write(data)
}

// authed wraps h: requests without the planted token get a 401.
func authed(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+plantedToken {
			http.Error(w, `{"status":"error","errorType":"unauthorized","error":"no token"}`, http.StatusUnauthorized)
			return
		}
		h(w, r)
	}
}

// Misbehaviours.
func hang(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }

func drip(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	for _, c := range []byte(`{"status":"success","data":{"resultType":"matrix","result":[` + strings.Repeat(" ", 1000)) {
		select {
		case <-r.Context().Done():
			return
		case <-time.After(time.Second):
		}
		w.Write([]byte{c})
		w.(http.Flusher).Flush()
	}
}

func status(code int, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) { http.Error(w, body, code) }
}

func huge(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.Write([]byte(`{"status":"success","data":{"resultType":"matrix","result":[`))
	chunk := bytes.Repeat([]byte(" "), 1<<20)
	for i := 0; i < 2048; i++ { // 2 GiB
		if _, err := w.Write(chunk); err != nil {
			return
		}
	}
}

var bombOnce sync.Once
var bombBody []byte

// gzipBomb answers with a gzip body that inflates to 10 GiB.
func gzipBomb(w http.ResponseWriter, r *http.Request) {
	bombOnce.Do(func() {
		// One member of 64 MiB of spaces, repeated: a multi-member body
		// that Go's transport inflates to 10 GiB.
		var member bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&member, gzip.BestCompression)
		zw.Write(bytes.Repeat([]byte(" "), 64<<20))
		zw.Close()
		var buf bytes.Buffer
		zw = gzip.NewWriter(&buf)
		zw.Write([]byte(`{"services":[`))
		zw.Close()
		for i := 0; i < 160; i++ {
			buf.Write(member.Bytes())
		}
		bombBody = buf.Bytes()
	})
	w.Header().Set("Content-Encoding", "gzip")
	w.Header().Set("Content-Type", "application/json")
	w.Write(bombBody)
}

func echo401(w http.ResponseWriter, r *http.Request) {
	w.WriteHeader(http.StatusUnauthorized)
	fmt.Fprintf(w, "token %q rejected (you sent %q; base64 %s)", plantedToken, r.Header.Get("Authorization"),
		base64.StdEncoding.EncodeToString([]byte(plantedToken)))
}

const escapeBody = "\x1b[2J\x1b[H\rpipeline-analyze: all good\n\x1b]0;owned\x07"

// serverScenario is one misbehaviour of the fake servers.
type serverScenario struct {
	name string
	// jaeger and prom build the handlers; prom gets the good fixture
	// handler and the query's pack index. foreign is a server on another
	// port (the target of cross-origin redirects).
	jaeger   func(foreign string) http.HandlerFunc
	prom     func(good http.HandlerFunc, foreign string, index func(*http.Request) int) http.HandlerFunc
	wantExit int
	// causes are expected on stderr (exit 1) or in the report's warnings
	// (exit 0), each for its source.
	causes []string
	html   bool // render -o html (the report must not carry the token either)
	check  func(t *testing.T, s *serverRun)
}

// serverRun is what a scenario's run left.
type serverRun struct {
	r         binResult
	bundle    string
	jaegerReq atomic.Int64
	promTimes sync.Map // query expr → []time.Time of its requests
}

func serverScenarios() []serverScenario {
	every := func(n int, bad, good http.HandlerFunc, index func(*http.Request) int) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			if index(r)%n == n-1 {
				bad(w, r)
				return
			}
			good(w, r)
		}
	}
	return []serverScenario{
		{name: "hang", wantExit: 0, causes: []string{"live jaeger", "deadline", "live prometheus"},
			jaeger: func(string) http.HandlerFunc { return hang },
			prom: func(good http.HandlerFunc, _ string, index func(*http.Request) int) http.HandlerFunc {
				return every(3, hang, good, index)
			}},
		{name: "1 byte/s drip", wantExit: 0, causes: []string{"live jaeger", "live prometheus"},
			jaeger: func(string) http.HandlerFunc { return drip },
			prom: func(good http.HandlerFunc, _ string, index func(*http.Request) int) http.HandlerFunc {
				return every(4, drip, good, index)
			}},
		{name: "500 and 503", wantExit: 1, causes: []string{"jaeger", "HTTP 503", "prometheus", "HTTP 500"},
			jaeger: func(string) http.HandlerFunc { return status(503, "overloaded") },
			prom: func(http.HandlerFunc, string, func(*http.Request) int) http.HandlerFunc {
				return status(500, "internal error")
			}},
		{name: "429 with Retry-After", wantExit: 0, causes: []string{"live jaeger", "HTTP 429"},
			jaeger: func(string) http.HandlerFunc {
				return func(w http.ResponseWriter, r *http.Request) {
					w.Header().Set("Retry-After", "1")
					http.Error(w, "slow down", http.StatusTooManyRequests)
				}
			},
			prom: func(good http.HandlerFunc, _ string, _ func(*http.Request) int) http.HandlerFunc {
				var seen sync.Map
				return func(w http.ResponseWriter, r *http.Request) {
					if _, again := seen.LoadOrStore(r.Form.Get("query"), true); !again {
						w.Header().Set("Retry-After", "1")
						http.Error(w, "slow down", http.StatusTooManyRequests)
						return
					}
					good(w, r)
				}
			},
			check: func(t *testing.T, s *serverRun) {
				n := 0
				s.promTimes.Range(func(_, v any) bool {
					ts := v.([]time.Time)
					if len(ts) >= 2 && ts[1].Sub(ts[0]) < 900*time.Millisecond {
						t.Errorf("retried after %v, Retry-After said 1s", ts[1].Sub(ts[0]))
					}
					n++
					return true
				})
				if n == 0 {
					t.Error("no Prometheus query was made")
				}
			}},
		{name: "invalid JSON", wantExit: 1, causes: []string{"jaeger", "decode", "prometheus", "decode query_range"},
			jaeger: func(string) http.HandlerFunc { return status(200, `{"services":[`) },
			prom: func(http.HandlerFunc, string, func(*http.Request) int) http.HandlerFunc {
				return status(200, `{"status":"success","data":{`)
			}},
		{name: "HTML", wantExit: 1, causes: []string{"jaeger", "invalid character '<'", "prometheus", "HTTP 502"},
			jaeger: func(string) http.HandlerFunc {
				return func(w http.ResponseWriter, r *http.Request) {
					w.Header().Set("Content-Type", "text/html")
					fmt.Fprint(w, "<html><body><h1>Sign in</h1></body></html>")
				}
			},
			prom: func(http.HandlerFunc, string, func(*http.Request) int) http.HandlerFunc {
				return status(502, "<html><body><h1>502 Bad Gateway</h1>"+strings.Repeat("<p>nginx</p>", 2000)+"</body></html>")
			}},
		{name: "huge body", wantExit: 0, causes: []string{"live jaeger", "larger than", "live prometheus"},
			jaeger: func(string) http.HandlerFunc { return huge },
			prom: func(good http.HandlerFunc, _ string, index func(*http.Request) int) http.HandlerFunc {
				return every(5, huge, good, index)
			}},
		{name: "gzip bomb", wantExit: 0, causes: []string{"live jaeger", "larger than", "live prometheus"},
			jaeger: func(string) http.HandlerFunc { return gzipBomb },
			prom: func(good http.HandlerFunc, _ string, index func(*http.Request) int) http.HandlerFunc {
				return every(5, gzipBomb, good, index)
			}},
		{name: "redirect loop", wantExit: 1, causes: []string{"jaeger", "redirects", "prometheus", "redirects"},
			jaeger: func(string) http.HandlerFunc {
				return func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, r.URL.Path+"x", http.StatusFound) }
			},
			prom: func(http.HandlerFunc, string, func(*http.Request) int) http.HandlerFunc {
				return func(w http.ResponseWriter, r *http.Request) {
					http.Redirect(w, r, r.URL.Path, http.StatusTemporaryRedirect)
				}
			}},
		{name: "cross-origin redirect", wantExit: 0, causes: []string{"live jaeger"},
			jaeger: func(foreign string) http.HandlerFunc {
				return func(w http.ResponseWriter, r *http.Request) {
					http.Redirect(w, r, foreign+r.URL.Path, http.StatusTemporaryRedirect)
				}
			},
			prom: func(_ http.HandlerFunc, foreign string, _ func(*http.Request) int) http.HandlerFunc {
				return func(w http.ResponseWriter, r *http.Request) {
					http.Redirect(w, r, foreign+r.URL.Path, http.StatusTemporaryRedirect) // 307 keeps the POST body
				}
			}},
		{name: "100k services", wantExit: 0, causes: []string{"live jaeger", "--max-services"},
			jaeger: func(string) http.HandlerFunc {
				var list strings.Builder
				list.WriteString(`{"services":[`)
				for i := 0; i < 100_000; i++ {
					if i > 0 {
						list.WriteByte(',')
					}
					fmt.Fprintf(&list, `"svc-%06d"`, i)
				}
				list.WriteString(`]}`)
				return func(w http.ResponseWriter, r *http.Request) {
					switch r.URL.Path {
					case "/api/v3/services":
						fmt.Fprint(w, list.String())
					case "/api/v3/operations":
						fmt.Fprint(w, `{"operations":[{"name":"op"}]}`)
					default:
						fmt.Fprint(w, `{"result":{"resourceSpans":[]}}`)
					}
				}
			},
			prom: func(good http.HandlerFunc, _ string, _ func(*http.Request) int) http.HandlerFunc { return good },
			check: func(t *testing.T, s *serverRun) {
				if n := s.jaegerReq.Load(); n > int64(live.DefaultMaxRequests)+10 {
					t.Errorf("%d Jaeger requests, more than --max-requests %d", n, live.DefaultMaxRequests)
				}
			}},
		{name: "escape-laden error text", wantExit: 1, causes: []string{"jaeger", `\x1b[2J`, "prometheus", `\x1b[2J`},
			jaeger: func(string) http.HandlerFunc { return status(500, escapeBody) },
			prom: func(http.HandlerFunc, string, func(*http.Request) int) http.HandlerFunc {
				return status(400, `{"status":"error","errorType":"bad_data","error":"`+strings.ReplaceAll(escapeBody, "\x1b", `\u001b`)[:20]+`"}`)
			}},
		{name: "token-echoing 401", wantExit: 0, html: true, causes: []string{"live jaeger", "HTTP 401", "[REDACTED]", "live prometheus"},
			jaeger: func(string) http.HandlerFunc { return echo401 },
			prom: func(good http.HandlerFunc, _ string, index func(*http.Request) int) http.HandlerFunc {
				return every(2, echo401, good, index)
			}},
	}
}

func TestMisbehavingServers(t *testing.T) {
	if testing.Short() {
		t.Skip("the misbehaving-server suite waits for fetch deadlines")
	}
	t.Parallel() // the server suite mostly waits: it overlaps the file suite
	realBinary(t)
	sim := t.TempDir()
	label, err := fixtures.Write(sim, fixtures.Spec{Fault: "gpu_throttling", Seed: 5, Duration: 12 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	pf := newPromFixture(t, sim)
	tokenFile := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(tokenFile, []byte(plantedToken+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, sc := range serverScenarios() {
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel()
			s := &serverRun{}
			var leaked atomic.Value
			// The foreign origin: a good Prometheus that wants no token and
			// must never get one.
			foreign := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if a := r.Header.Get("Authorization"); a != "" {
					leaked.Store(a)
				}
				r.ParseForm()
				if strings.HasPrefix(r.URL.Path, "/api/v1/") {
					pf.serve(w, r)
					return
				}
				http.Error(w, "not here", 404)
			}))
			defer foreign.Close()
			jaeger := httptest.NewServer(func() http.HandlerFunc {
				h := sc.jaeger(foreign.URL)
				return func(w http.ResponseWriter, r *http.Request) { s.jaegerReq.Add(1); h(w, r) }
			}())
			defer jaeger.Close()
			// Tempo misbehaves as Jaeger does (issue 46): the same fault rules hold.
			tempo := httptest.NewServer(sc.jaeger(foreign.URL))
			defer tempo.Close()
			index := func(r *http.Request) int { return pf.index[r.Form.Get("query")] }
			prom := httptest.NewServer(func() http.HandlerFunc {
				h := sc.prom(authed(pf.serve), foreign.URL, index)
				var mu sync.Mutex
				return func(w http.ResponseWriter, r *http.Request) {
					r.ParseForm()
					mu.Lock()
					q := r.Form.Get("query")
					old, _ := s.promTimes.Load(q)
					ts, _ := old.([]time.Time)
					s.promTimes.Store(q, append(ts, time.Now()))
					mu.Unlock()
					h(w, r)
				}
			}())
			defer prom.Close()
			s.bundle = filepath.Join(t.TempDir(), "bundle")
			args := []string{"-q", "--jaeger-url", jaeger.URL, "--tempo-url", tempo.URL, "--prometheus-url", prom.URL, "--token-file", tokenFile,
				"--at", label.AlertTime, "--baseline", "6m", "--target", "vllm:gpu_util", "--save-bundle", s.bundle}
			if sc.html {
				args = append(args, "-o", "html")
			} else {
				args = append(args, "-o", "json")
			}
			s.r = runBinary(t, maxServerRun+30*time.Second, nil, args...)
			r := s.r
			t.Logf("exit %d in %v, %d MiB", r.code, r.wall.Round(time.Millisecond), r.rss>>20)
			reportRun("servers", sc.name, "live", r)
			if r.code < 0 {
				t.Fatalf("killed after %v", r.wall)
			}
			if strings.Contains(r.stderr, "panic:") {
				t.Fatalf("panic:\n%.3000s", r.stderr)
			}
			if r.wall > maxServerRun {
				t.Errorf("took %v > %v", r.wall, maxServerRun)
			}
			if r.rss > maxRunRSS {
				t.Errorf("peak RSS %d MiB", r.rss>>20)
			}
			if r.code != sc.wantExit {
				t.Fatalf("exit %d, want %d; stderr:\n%s", r.code, sc.wantExit, r.stderr)
			}
			for _, l := range strings.Split(strings.TrimSuffix(r.stderr, "\n"), "\n") {
				if len([]rune(l)) > cliio.MaxErrLine || strings.ContainsAny(l, "\x1b\r\x07") {
					t.Errorf("stderr line not safe: %q", l)
				}
			}
			// A cause for each failing source: on stderr when nothing came,
			// else in the report's warnings.
			where := r.stderr
			if sc.wantExit == 0 {
				if sc.html {
					where = r.stdout
				} else {
					var c struct {
						Warnings []struct{ Source, Message string } `json:"warnings"`
					}
					if err := json.Unmarshal([]byte(r.stdout), &c); err != nil {
						t.Fatalf("report: %v", err)
					}
					var ws []string
					for _, w := range c.Warnings {
						ws = append(ws, w.Source+": "+w.Message)
					}
					where = strings.Join(ws, "\n")
				}
			}
			for _, want := range append(sc.causes, "tempo") {
				if !strings.Contains(where, want) {
					t.Errorf("no %q in:\n%.3000s", want, where)
				}
			}
			// The token: never to another origin, never in any output or file.
			if a, ok := leaked.Load().(string); ok {
				t.Errorf("the foreign origin got Authorization %q", a)
			}
			for _, form := range []string{plantedToken, base64.StdEncoding.EncodeToString([]byte(plantedToken))} {
				if strings.Contains(r.stdout, form) || strings.Contains(r.stderr, form) {
					t.Errorf("the token (%q) is in the output", form)
				}
				filepath.WalkDir(s.bundle, func(p string, d os.DirEntry, err error) error {
					if err == nil && !d.IsDir() {
						if data, _ := os.ReadFile(p); bytes.Contains(data, []byte(form)) {
							t.Errorf("the token is in the saved %s", p)
						}
					}
					return nil
				})
			}
			if left := leftovers(r.tmp); len(left) > 0 {
				t.Errorf("left in TMPDIR: %q", left)
			}
			if sc.check != nil {
				sc.check(t, s)
			}
		})
	}
}
