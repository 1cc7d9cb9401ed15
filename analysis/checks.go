package analysis

import (
	"fmt"
	"maps"

	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/internal/suggest"
	"github.com/pipeline-analyze/pipeline-analyze/tcg"
)

// The checks here run after the inputs are read and before the analysis:
// what the user typed (--target, --at, --window, --baseline) must name
// something the data holds, or the run stops with a usage error (exit 2)
// that says what the data does hold. Values the tool chose itself (from an
// alert or the data) are not refused; a problem with them is a note on the
// scorecard.

// checkTelemetry refuses an input set that holds no traces, metrics
// or logs (an alert or events alone have nothing to analyse).
func checkTelemetry(b *ingest.Bundle, paths []string) error {
	if len(b.Spans) > 0 || len(b.Series) > 0 || len(b.Logs) > 0 {
		return nil
	}
	where := strings.Join(paths, " ")
	if where == "" {
		where = "the input"
	}
	return fmt.Errorf("no traces, metrics or logs found in %s (read: %s)", where, formatsRead(b))
}

// formatsRead is "alertmanager (1), k8s-events (1)": the formats of the
// inputs read, with counts.
func formatsRead(b *ingest.Bundle) string {
	n := map[string]int{}
	for _, in := range b.Inputs {
		if !in.Skipped {
			n[in.Format.String()]++
		}
	}
	if len(n) == 0 {
		return "nothing readable"
	}
	names := make([]string, 0, len(n))
	for f := range n {
		names = append(names, f)
	}
	sort.Strings(names)
	for i, f := range names {
		names[i] = fmt.Sprintf("%s (%d)", f, n[f])
	}
	return strings.Join(names, ", ")
}

// services lists every service the data names (entities and the services
// of pods, edges and devices).
func services(b *ingest.Bundle) []string {
	seen := map[string]bool{}
	add := func(s string) {
		if s != "" {
			seen[s] = true
		}
	}
	for _, e := range b.Entities {
		if e.Kind == ingest.KindService {
			add(e.Name)
		}
		add(e.Service)
	}
	for _, s := range b.Series {
		if s.Entity.Kind == ingest.KindService {
			add(s.Entity.Name)
		}
	}
	out := make([]string, 0, len(seen))
	for s := range seen {
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

// ofService reports whether a series belongs to service svc (the
// service's own series, or a pod's, edge's or device's placed in it), as
// the graph picks the target node.
func ofService(s *ingest.Series, svc string) bool {
	return s.Entity.Kind == ingest.KindService && s.Entity.Name == svc || s.Entity.Service == svc
}

// checkTarget refuses a --target that names a service, signal or stat
// the data does not have, suggesting the nearest names. raw is the flag's
// text.
func checkTarget(b *ingest.Bundle, t tcg.Target, raw string) error {
	if t.Service == "" {
		return nil
	}
	svcs := services(b)
	found := false
	for _, s := range svcs {
		found = found || s == t.Service
	}
	if !found {
		return fmt.Errorf("%w: --target %s: no service %s in the data%s known: %s", ErrUsage, raw, t.Service,
			suggest.OrPeriod(suggest.DidYouMean(t.Service, svcs, nil)), suggest.KnownList(svcs, 8))
	}
	sig := t.Signal
	if sig == ingest.SignalOther {
		sig = ingest.SignalLatency // what ResolveIncident defaults to
	}
	signals := map[string]bool{}
	stats := map[string]bool{}
	for _, s := range b.Series {
		if !s.Aligned || !ofService(s, t.Service) {
			continue
		}
		signals[s.Signal.String()] = true
		if s.Signal == sig && s.Stat != "" {
			stats[s.Stat] = true
		}
	}
	if !signals[sig.String()] {
		have := slices.Sorted(maps.Keys(signals))
		return fmt.Errorf("%w: --target %s: service %s has no %s signal%s it has: %s", ErrUsage, raw, t.Service, sig,
			suggest.OrPeriod(suggest.DidYouMean(sig.String(), have, nil)), suggest.OrNone(strings.Join(have, ", ")))
	}
	// A SIGNAL word that is not the signal's own name (ttft, tpot) names
	// the series: one of the service's series of that signal must carry it
	// (pickSeries then follows it), or the run is refused with the names
	// it has.
	if w, ok := targetWanted(raw, t); ok {
		var names []string
		found := false
		for _, s := range b.Series {
			if !s.Aligned || !ofService(s, t.Service) || s.Signal != sig {
				continue
			}
			if (t.Stat == "" || s.Stat == t.Stat) && wordMatches(w.words, nameWords(s.Name)) > 0 {
				found = true
				break
			}
			if !slices.Contains(names, s.Name) {
				names = append(names, s.Name)
			}
		}
		if !found {
			slices.Sort(names)
			stat := ""
			if t.Stat != "" {
				stat = " with statistic " + t.Stat
			}
			return fmt.Errorf("%w: --target %s: no %s %s series named like %q%s; it has: %s", ErrUsage, raw, t.Service, sig,
				w.words[0], stat, suggest.KnownList(names, 5))
		}
	}
	if t.Stat != "" && !stats[t.Stat] {
		have := slices.Sorted(maps.Keys(stats))
		return fmt.Errorf("%w: --target %s: %s %s has no statistic %s%s it has: %s", ErrUsage, raw, t.Service, sig, t.Stat,
			suggest.OrPeriod(suggest.DidYouMean(t.Stat, have, nil)), suggest.OrNone(strings.Join(have, ", ")))
	}
	return nil
}

// statRE are the statistics a --target may name: a quantile (p50, p99,
// p999) or a summary.
var statRE = regexp.MustCompile(`^(p[0-9]{1,4}|mean|max|min|rate|ratio|count|sum)$`)

// timeFlags are the time flags the user set, for checkWindow.
type timeFlags struct {
	at            TimeSpec
	window        time.Duration
	windowGiven   bool
	baseline      time.Duration
	baselineGiven bool
}

// DataRange is "2026-11-30T02:20:00.000Z → 2026-11-30T02:34:00.000Z (14m0s)".
func DataRange(b *ingest.Bundle) string {
	return fmt.Sprintf("%s → %s (%s)", b.Start, b.End, b.End.Sub(b.Start).Round(time.Second))
}

// dataStep is the data's grid step (15s when unknown).
func dataStep(b *ingest.Bundle) time.Duration {
	if b.Step > 0 {
		return b.Step
	}
	return 15 * time.Second
}

// checkAt refuses an --at outside the data's time range, naming the range
// and a time inside it.
func checkAt(b *ingest.Bundle, at TimeSpec) error {
	if !at.Present || b.End == 0 {
		return nil
	}
	t := at.Resolve(b.End)
	if t >= b.Start && t <= b.End {
		return nil
	}
	inside := b.Start.Add(b.End.Sub(b.Start) * 2 / 3).Std().Truncate(time.Second).Format(time.RFC3339)
	return fmt.Errorf("%w: %s is %s, outside the data, which spans %s; give a time inside it, e.g. --at %s",
		ErrUsage, at.Source(), t, DataRange(b), inside)
}

// checkWindow checks the resolved incident's window against the data. A
// window placed or sized by the flags (--at, --window) must leave at least
// minBaselineSteps grid steps of baseline before it, or the run is refused
// with the longest window or earliest --at that would fit. What was
// adjusted is returned as notes: a window widened to tcg.MinWindowSteps
// steps, a window cut at the data's end, a --baseline longer than the data
// before the window.
func checkWindow(b *ingest.Bundle, tf timeFlags, inc tcg.Incident) (notes []string, err error) {
	if b.End == 0 || b.End <= b.Start {
		return nil, nil
	}
	step := dataStep(b)
	w := tf.window
	if w <= 0 {
		w = tcg.DefaultWindow
	}
	if minW := tcg.MinWindowSteps * step; w < minW {
		note := fmt.Sprintf("--window %s is shorter than %d steps of the data (%s each): the window is %s", w, tcg.MinWindowSteps, step, minW)
		if after := tcg.MinStepsAfter * step; minW/2 < after {
			note += fmt.Sprintf(", reaching %d steps (%s) after --at", tcg.MinStepsAfter, after)
		}
		notes = append(notes, note)
		w = minW
	}
	minBase := minBaselineSteps * step
	if base := inc.WindowStart.Sub(b.Start); (tf.at.Present || tf.windowGiven) && base < minBase {
		var fix []string
		if maxW := 2 * (inc.At.Sub(b.Start) - minBase); maxW >= tcg.MinWindowSteps*step {
			fix = append(fix, fmt.Sprintf("--window %s or less", maxW.Truncate(time.Minute)))
		}
		if later := b.Start.Add(minBase + w/2); later <= b.End {
			fix = append(fix, fmt.Sprintf("an --at after %s", later))
		}
		if len(fix) == 0 {
			fix = append(fix, "a shorter --window")
		}
		what := "--window " + tf.window.String()
		if tf.at.Present {
			what = tf.at.Source() + " with a " + w.String() + " window"
		}
		return notes, fmt.Errorf("%w: %s leaves %s of baseline before the window (at least %s, %d steps, needed); the data spans %s: give %s",
			ErrUsage, what, max(base, 0).Round(time.Second), minBase, minBaselineSteps, DataRange(b), strings.Join(fix, " or "))
	}
	if end := inc.At.Add(w / 2); end > inc.WindowEnd {
		notes = append(notes, fmt.Sprintf("the window ends after the data: %s → %s holds %s of the %s asked for",
			inc.WindowStart, inc.WindowEnd, inc.WindowEnd.Sub(inc.WindowStart).Round(time.Second), w))
	}
	if have := inc.WindowStart.Sub(inc.BaselineStart); tf.baselineGiven && tf.baseline > 0 && have < tf.baseline {
		notes = append(notes, fmt.Sprintf("--baseline %s: the data holds %s before the window, so the baseline is %s → %s",
			tf.baseline, have.Round(time.Second), inc.BaselineStart, inc.WindowStart))
	}
	return notes, nil
}

// minBaselineSteps is the fewest grid steps of baseline a window placed by
// the flags must leave before it: robust statistics of fewer points say
// nothing about normal behaviour.
const minBaselineSteps = 4

// ParseTarget parses SERVICE[:SIGNAL[:STAT]].
func ParseTarget(s string) (tcg.Target, error) {
	var t tcg.Target
	if s == "" {
		return t, nil
	}
	parts := strings.Split(s, ":")
	if len(parts) > 3 || parts[0] == "" {
		return t, fmt.Errorf("--target %q: want SERVICE[:SIGNAL[:STAT]], e.g. api-gateway:latency:p99", s)
	}
	t.Service = parts[0]
	if len(parts) > 1 {
		sig, ok := ingest.ParseSignalKind(parts[1])
		if !ok {
			return t, fmt.Errorf("--target %q: unknown signal %q (latency, errors, traffic, cpu, kv_cache, gpu_util, ...)", s, parts[1])
		}
		t.Signal = sig
		switch strings.ToLower(parts[1]) {
		case "p50", "p90", "p95", "p99":
			t.Stat = strings.ToLower(parts[1])
		}
	}
	if len(parts) > 2 {
		t.Stat = strings.ToLower(parts[2])
		if !statRE.MatchString(t.Stat) {
			return t, fmt.Errorf("--target %q: unknown statistic %q (p50, p90, p99, mean, rate, ratio, ...)", s, parts[2])
		}
	}
	return t, nil
}
