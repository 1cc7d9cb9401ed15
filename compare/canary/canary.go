package canary

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/compare/model"
	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/peers"
)

// SelectorAuto selects every service's latest rollout of the version model
// (events, else new pods in the data) as a canary.
const SelectorAuto = "auto"

// Options are the choices of a canary analysis. Zero fields take
// the defaults of DefaultOptions.
type Options struct {
	// Canary selects the canary groups: SelectorAuto, KEY=VALUE (a version
	// label such as version=v2, or pod-template-hash=HASH), or a name (a
	// ReplicaSet, a workload, a version).
	Canary string
	// Baseline selects each canary's baseline groups in its service, in
	// the same forms; "" is every other group of the service.
	Baseline string
	// Start and End bound the window; zero Start: the canary's first
	// sample (plus Warmup); zero End: the end of the data. Only the cells
	// where both groups report are compared.
	Start, End ingest.Time
	// Warmup is skipped after the canary's first sample when Start is
	// zero: a pod's first scrape of a rate over a minute, its cold caches.
	Warmup time.Duration
	// Threshold is how many scales the canary's median difference from
	// its baseline must reach to be high or low.
	Threshold float64
	// Hold is the share of compared cells that must lie beyond half the
	// threshold on the same side: a difference that comes and goes is
	// not a property of the version.
	Hold float64
	// MinRatio is the smallest material change: the canary's window median
	// differs from the baseline's by at least MinRatio/(1+MinRatio) of the
	// larger (for a ratio that should stay near 1, of its shortfall).
	MinRatio float64
	// MinCells is the fewest cells in which both groups report.
	MinCells int
	// Pass and Marginal are the score thresholds (0–100) of the verdicts.
	Pass, Marginal float64
	Peers          peers.Params
	Version        string   // tool version, for the manifest
	Args           []string // the command line, for the manifest
	Paths          []string // the inputs as given
}

// DefaultOptions are the documented defaults: Kayenta's score
// thresholds (75 pass, 50 marginal), the graph's 3-scale threshold,
// compare's 25% material change, no warm-up (the hold rule keeps a start-up blip from deciding).
func DefaultOptions() Options {
	return Options{Canary: SelectorAuto, Warmup: 0, Threshold: 3, Hold: 0.5, MinRatio: 0.25, MinCells: 3,
		Pass: 75, Marginal: 50, Peers: peers.DefaultParams()}
}

func (o Options) withDefaults() Options {
	d := DefaultOptions()
	if o.Canary == "" {
		o.Canary = d.Canary
	}
	if o.Warmup < 0 {
		o.Warmup = 0
	}
	for _, f := range []struct{ v, d *float64 }{{&o.Threshold, &d.Threshold}, {&o.Hold, &d.Hold}, {&o.MinRatio, &d.MinRatio},
		{&o.Pass, &d.Pass}, {&o.Marginal, &d.Marginal}} {
		if *f.v <= 0 || math.IsNaN(*f.v) {
			*f.v = *f.d
		}
	}
	if o.MinCells <= 0 {
		o.MinCells = d.MinCells
	}
	o.Peers = o.Peers.WithDefaults()
	return o
}

// canaryJob is one canary group with its baseline groups.
type canaryJob struct {
	service  string
	canary   *peers.Group
	baseline []*peers.Group
	rollout  *peers.Rollout
}

// ErrNoCanary is returned (wrapped) when the selector matches no group.
var ErrNoCanary = errors.New("no canary pods")

// Run judges, in one bundle, each selected canary group against its
// baseline groups (the version model of package peers), metric family by
// metric family over the same minutes, and returns the report (Mode
// ModeCanary). A pure function of its inputs. O(groups · families ·
// cells · pods).
func Run(b *ingest.Bundle, opt Options) (*model.Report, error) {
	opt = opt.withDefaults()
	if b == nil {
		return nil, errors.New("canary: nil bundle")
	}
	if len(b.Grid) == 0 {
		return nil, fmt.Errorf("canary: %w: the input holds no aligned series", model.ErrNoData)
	}
	m := peers.Build(b, opt.Peers)
	jobs, err := canaryJobs(m, opt)
	if err != nil {
		return nil, err
	}
	cv := model.Canary{Selector: opt.Canary, BaselineSelector: opt.Baseline, Workloads: []model.CanaryWorkload{},
		Settings: model.CanarySettings{Threshold: opt.Threshold, Hold: opt.Hold, MinRatio: opt.MinRatio, MinCells: opt.MinCells,
			Warmup: opt.Warmup, Pass: opt.Pass, Marginal: opt.Marginal, Step: b.Step}}
	for _, s := range criticalSignals {
		cv.Settings.Critical = append(cv.Settings.Critical, s.String())
	}
	cv.Settings.Critical = append(cv.Settings.Critical, "availability")
	for _, j := range jobs {
		cv.Workloads = append(cv.Workloads, judgeCanary(b, m, j, opt))
	}
	cv.Verdict, cv.Text = canarySummary(cv.Workloads)
	rep := &model.Report{SchemaVersion: model.SchemaVersion, Tool: model.Tool{Name: "pipeline-analyze", Version: opt.Version}, Mode: model.ModeCanary, Canary: cv, Watch: []model.Watch{}}
	rep.Verdict = model.Summary{Verdict: canaryAsVerdict(cv.Verdict), Text: cv.Text}
	rep.Target = model.Finding{Label: "canary " + opt.Canary, Verdict: rep.Verdict.Verdict, Text: cv.Text}
	for _, w := range cv.Workloads {
		if w.Verdict == model.CanaryFail {
			rep.Verdict.Regressions++
		}
	}
	rep.Before = model.SideInfo{Name: "baseline", Paths: opt.Paths}
	rep.After = model.SideInfo{Name: "canary", Paths: opt.Paths}
	if len(cv.Workloads) > 0 {
		rep.Before.Start, rep.Before.End = cv.Workloads[0].Start, cv.Workloads[0].End
		for _, w := range cv.Workloads {
			rep.Before.Start, rep.Before.End = min(rep.Before.Start, w.Start), max(rep.Before.End, w.End)
		}
		rep.After.Start, rep.After.End = rep.Before.Start, rep.Before.End
	}
	rep.Manifest = model.Manifest{Version: opt.Version, Args: append([]string{"pipeline-analyze", "compare"}, opt.Args...)}
	for _, in := range b.Inputs {
		rep.Inputs = append(rep.Inputs, model.Input{Side: "both", Path: in.Path, Format: in.Format.String(), SHA256: in.SHA256,
			Size: in.Size, Skipped: in.Skipped, Error: in.Error})
		rep.Manifest.Inputs = append(rep.Manifest.Inputs, model.ManifestInput{Side: "both", Path: in.Path, SHA256: in.SHA256})
	}
	for i, wn := range b.Warnings {
		kind, msg := model.WarningText(wn)
		rep.Warnings = append(rep.Warnings, model.Footnote{N: i + 1, Kind: kind, Message: msg})
	}
	return rep, nil
}

// canaryAsVerdict maps a canary verdict onto compare's verdicts (for
// Summary): fail is regressed, pass and marginal unchanged.
func canaryAsVerdict(v string) model.Verdict {
	switch v {
	case model.CanaryFail:
		return model.Regressed
	case model.CanaryInsufficient:
		return model.Insufficient
	}
	return model.Unchanged
}

// canaryJobs resolves the selectors into canary groups, each with its
// baseline groups of the same service.
func canaryJobs(m *peers.Model, opt Options) ([]canaryJob, error) {
	var jobs []canaryJob
	if opt.Canary == SelectorAuto {
		latest := map[string]int{}
		for i, r := range m.Rollouts {
			latest[r.Service] = i // Rollouts are in time order
		}
		for _, svc := range slices.Sorted(maps.Keys(latest)) {
			r := m.Rollouts[latest[svc]]
			j := canaryJob{service: svc, canary: r.New, baseline: r.Old, rollout: &r}
			if opt.Baseline != "" {
				bl, err := selectGroups(m.Groups[svc], opt.Baseline)
				if err != nil {
					return nil, fmt.Errorf("--baseline-group: %w", err)
				}
				j.baseline = slices.DeleteFunc(bl, func(g *peers.Group) bool { return g == r.New })
			}
			jobs = append(jobs, j)
		}
		if len(jobs) == 0 {
			return nil, fmt.Errorf("%w: --canary auto found no rollout (no ScalingReplicaSet events, and no service whose pods of a new version appear beside older ones); name the canary with --canary version=v2 or --canary REPLICASET", ErrNoCanary)
		}
		return jobs, nil
	}
	for _, svc := range slices.Sorted(maps.Keys(m.Groups)) {
		gs := m.Groups[svc]
		cs, err := selectGroups(gs, opt.Canary)
		if err != nil {
			return nil, fmt.Errorf("--canary: %w", err)
		}
		for _, c := range cs {
			var bl []*peers.Group
			if opt.Baseline == "" {
				for _, g := range gs {
					if !slices.Contains(cs, g) && g.First >= 0 {
						bl = append(bl, g)
					}
				}
			} else if bl, err = selectGroups(gs, opt.Baseline); err != nil {
				return nil, fmt.Errorf("--baseline-group: %w", err)
			}
			bl = slices.DeleteFunc(bl, func(g *peers.Group) bool { return g == c })
			j := canaryJob{service: svc, canary: c, baseline: bl}
			for i := range m.Rollouts {
				if m.Rollouts[i].New == c {
					j.rollout = &m.Rollouts[i]
				}
			}
			jobs = append(jobs, j)
		}
	}
	if len(jobs) == 0 {
		return nil, fmt.Errorf("%w: --canary %q matches no group of pods (groups: %s)", ErrNoCanary, opt.Canary, groupList(m))
	}
	return jobs, nil
}

// groupList names some groups of the model, for an error message.
func groupList(m *peers.Model) string {
	var names []string
	for _, svc := range slices.Sorted(maps.Keys(m.Groups)) {
		for _, g := range m.Groups[svc] {
			names = append(names, g.Label())
		}
	}
	if len(names) == 0 {
		return "none: no series names a pod"
	}
	if len(names) > 8 {
		names = append(names[:8], fmt.Sprintf("and %d more", len(names)-8))
	}
	return strings.Join(names, ", ")
}

// selectGroups returns the groups a selector matches: KEY=VALUE against a
// group's version (any version label key) or its pod-template hash
// (pod-template-hash=HASH), else a name against the group's name,
// workload or version.
func selectGroups(gs []*peers.Group, sel string) ([]*peers.Group, error) {
	key, val, kv := strings.Cut(sel, "=")
	key, val = strings.TrimSpace(key), strings.TrimSpace(val)
	if kv && (key == "" || val == "") {
		return nil, fmt.Errorf("selector %q: want KEY=VALUE (version=v2), a ReplicaSet or workload name, or auto", sel)
	}
	var out []*peers.Group
	for _, g := range gs {
		var ok bool
		switch {
		case !kv:
			ok = g.Name == sel || g.Workload == sel || g.Version == sel
		case strings.Contains(strings.ToLower(key), "hash"):
			ok = strings.HasSuffix(g.Name, "-"+val) || g.Version == val
		default:
			// A group none of whose pods reported (a release whose pods
			// never came up) has no version label: its workload's name
			// says it when the release is a Deployment per version
			// ("cart-v2"). Selected, it is judged (its availability), never
			// left out.
			ok = g.Version == val || g.Version == "" && slices.Contains(strings.Split(g.Workload, "-"), val)
		}
		if ok {
			out = append(out, g)
		}
	}
	return out, nil
}

// FailOn returns the exit status a CI gate should take for a canary
// report: GateFail trips (3) when a workload failed; GateMarginal also
// when one is marginal; either returns 4 when a workload could not be
// decided and none tripped; GateNever is 0.
func FailOn(r *model.Report, gate string) int {
	if gate != GateFail && gate != GateMarginal {
		return 0
	}
	undecided := false
	for _, w := range r.Canary.Workloads {
		switch w.Verdict {
		case model.CanaryFail:
			return model.ExitGate
		case model.CanaryMarginal:
			if gate == GateMarginal {
				return model.ExitGate
			}
		case model.CanaryInsufficient:
			undecided = true
		}
	}
	if undecided {
		return model.ExitUndetermined
	}
	return 0
}

// Canary gates for FailOn.
const (
	GateFail     = "fail"
	GateMarginal = "marginal"
)
