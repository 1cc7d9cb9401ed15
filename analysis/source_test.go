package analysis

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/live"
	"github.com/pipeline-analyze/pipeline-analyze/tcg"
)

// TestLiveSourceFallsBackToLocal checks that a live source that fetched
// nothing, with local paths beside it, delivers those paths alone with
// each source's failure as a warning, and the rerun arguments without the
// live flags.
func TestLiveSourceFallsBackToLocal(t *testing.T) {
	down := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "down", http.StatusServiceUnavailable)
	}))
	defer down.Close()
	var said []string
	src := &LiveSource{
		Fetch: LiveFetch{Options: live.Options{PrometheusURL: down.URL, Transport: live.TransportOptions{Timeout: time.Second, MaxBody: 1 << 20},
			MaxTraces: 1, Concurrency: 1, FetchTimeout: 5 * time.Second, MaxServices: 1, MaxRequests: 10, MaxFetchBytes: 1 << 20},
			Window: time.Minute, Packs: "none", Queries: []string{"up"}, WorkDir: t.TempDir(),
			Progress: func(f string, a ...any) { said = append(said, f) }},
		Rerun: func(args []string) []string { return args[2:] },
	}
	var at TimeSpec
	var spec tcg.IncidentSpec
	in, err := src.Open(context.Background(), []string{"--prometheus-url", down.URL, "local.json"}, []string{"local.json"}, &at, &spec)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Cleanup()
	if !slices.Equal(in.Paths, []string{"local.json"}) || !slices.Equal(in.Args, []string{"local.json"}) {
		t.Errorf("paths %q args %q, want the local input alone", in.Paths, in.Args)
	}
	if n := len(in.Warnings); n == 0 || !strings.Contains(in.Warnings[n-1].Message, "the local inputs were analysed alone") {
		t.Errorf("warnings %+v: want the nothing-fetched one last", in.Warnings)
	}
	if !slices.ContainsFunc(said, func(s string) bool { return strings.Contains(s, "nothing fetched; analysing") }) {
		t.Errorf("progress %q does not say the local inputs are analysed alone", said)
	}
	// Without local paths, nothing fetched is the error.
	if _, err := src.Open(context.Background(), nil, nil, &at, &spec); err == nil {
		t.Error("a fetch of nothing without local inputs succeeded")
	} else if _, ok := NothingFetched(err); !ok {
		t.Errorf("error %v: want nothing fetched", err)
	}
}

// TestLocalSourceKeepsInputs checks that the local source delivers the
// paths as given when no saved bundle is among them.
func TestLocalSourceKeepsInputs(t *testing.T) {
	dir := t.TempDir()
	var at TimeSpec
	var spec tcg.IncidentSpec
	in, err := LocalSource{}.Open(context.Background(), []string{"-q", dir}, []string{dir}, &at, &spec)
	if err != nil {
		t.Fatal(err)
	}
	in.Cleanup()
	if !slices.Equal(in.Paths, []string{dir}) || !slices.Equal(in.Args, []string{"-q", dir}) || at.Present || len(in.Warnings) != 0 {
		t.Errorf("got %+v (at %+v), want the paths as given", in, at)
	}
}
