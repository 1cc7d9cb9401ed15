package scorecard

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/scorecard/reporttest"
)

// graphProbe is appended to a copy of the page (its Content-Security-Policy
// removed, the card itself forbids scripts): it measures, as laid out at the
// window's width, the propagation graph's box and every node's box, and
// writes them into the DOM that --dump-dom prints.
const graphProbe = `<script>
(function () {
  var vw = document.documentElement.clientWidth;
  var out = ["vw=" + vw, "scroll=" + document.documentElement.scrollWidth];
  var svg = document.querySelector("svg.graph");
  if (svg) {
    var r = svg.getBoundingClientRect();
    out.push("graph=" + r.left + "," + r.right + "," + r.width + "," + r.height);
  }
  var nodes = document.querySelectorAll("svg.graph g.node");
  out.push("nodes=" + nodes.length);
  for (var i = 0; i < nodes.length; i++) {
    var b = nodes[i].getBoundingClientRect();
    out.push("node=" + b.left + "," + b.right + "," + b.width);
  }
  var p = document.createElement("pre");
  p.id = "probe";
  p.textContent = out.join(" ");
  document.body.appendChild(p);
})();
</script>`

// TestHTMLGraphChromium1400 loads a card whose propagation path is long (11
// components in a chain, the widest the layout draws) in headless Chromium
// at 1400 px and checks that the whole propagation graph is on the screen:
// the page does not scroll sideways, the graph's box lies within the window,
// every node is drawn inside it at a readable size, and the screenshot at
// 1400 px is a real picture (copied to $ARTIFACTS_DIR).
func TestHTMLGraphChromium1400(t *testing.T) {
	reporttest.SkipWithoutChromium(t)
	const width = 1400
	card := confidentCard()
	var path []PathStep
	for i := range 11 {
		path = append(path, PathStep{Node: fmt.Sprintf("pod/checkout-%02d-7d9f8b6c5-x2k4p", i), Service: fmt.Sprintf("checkout-%02d", i),
			Signal: "latency", Lag: 15 * time.Second, EdgeKind: "call", Share: math.NaN()})
	}
	card.Causes[0].Path = path
	html := render(t, card, "html", RenderOptions{})
	csp := regexp.MustCompile(`<meta http-equiv="Content-Security-Policy"[^>]*>`)
	if !csp.MatchString(html) {
		t.Fatal("the page has no Content-Security-Policy to lift for the probe")
	}
	probed := csp.ReplaceAllString(html, "")
	probed = strings.Replace(probed, "</body>", graphProbe+"</body>", 1)

	dir := t.TempDir()
	page := filepath.Join(dir, "graph.html")
	if err := os.WriteFile(page, []byte(probed), 0o644); err != nil {
		t.Fatal(err)
	}
	dom, _ := reporttest.Chromium(t, filepath.Join(dir, "profile-probe"), fmt.Sprintf("--window-size=%d,2000", width), "--hide-scrollbars", "--dump-dom", "file://"+page)
	m := regexp.MustCompile(`<pre id="probe">([^<]*)</pre>`).FindStringSubmatch(dom)
	if m == nil {
		t.Fatalf("the probe did not run; DOM tail:\n%s", tail(dom, 2000))
	}
	t.Logf("probe: %s", m[1])
	fields := map[string][]string{}
	for _, f := range strings.Fields(m[1]) {
		k, v, _ := strings.Cut(f, "=")
		fields[k] = append(fields[k], v)
	}
	num := func(s string) float64 {
		x, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatalf("probe value %q: %v", s, err)
		}
		return x
	}
	vw, scroll := num(fields["vw"][0]), num(fields["scroll"][0])
	if vw < width-20 || vw > width {
		t.Fatalf("the window is %.0f px wide, want about %d", vw, width)
	}
	if scroll > vw {
		t.Errorf("the page scrolls sideways: %.0f px of content in a %.0f px window", scroll, vw)
	}
	if len(fields["graph"]) != 1 {
		t.Fatalf("no propagation graph measured: %s", m[1])
	}
	g := strings.Split(fields["graph"][0], ",")
	left, right, gw, gh := num(g[0]), num(g[1]), num(g[2]), num(g[3])
	if left < 0 || right > vw || gw <= 0 || gh <= 0 {
		t.Errorf("the graph's box [%.0f, %.0f] (%.0f×%.0f px) is not within the %.0f px window", left, right, gw, gh, vw)
	}
	if n := int(num(fields["nodes"][0])); n < len(path) {
		t.Errorf("%d nodes drawn, want at least %d", n, len(path))
	}
	for _, nb := range fields["node"] {
		b := strings.Split(nb, ",")
		l, r, w := num(b[0]), num(b[1]), num(b[2])
		if l < left-0.5 || r > right+0.5 {
			t.Errorf("a node [%.0f, %.0f] lies outside the graph [%.0f, %.0f]", l, r, left, right)
		}
		if w < 40 {
			t.Errorf("a node is %.0f px wide: too small to read at %d px", w, width)
		}
	}

	// The page itself (CSP kept) as a person sees it at this width.
	orig := filepath.Join(dir, "card.html")
	if err := os.WriteFile(orig, []byte(html), 0o644); err != nil {
		t.Fatal(err)
	}
	shot := filepath.Join(dir, "graph.png")
	reporttest.Chromium(t, filepath.Join(dir, "profile-shot"), "--hide-scrollbars", "--screenshot="+shot, fmt.Sprintf("--window-size=%d,2000", width), "file://"+orig)
	reporttest.CheckScreenshot(t, shot, width, 2000, 50_000, "scorecard-graph-1400.png")
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[len(s)-n:]
}
