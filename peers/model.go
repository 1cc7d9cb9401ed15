package peers

import (
	"cmp"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
)

// Params are the version model's constants.
type Params struct {
	// ReadyGrace is how long after the rollout event that asked for them a
	// new version's pods may take to report before they count as
	// unavailable: scheduling, image pull, start-up, readiness and the
	// first scrape of a rate over a minute. Set from Kubernetes' usual
	// pod start-up (one to two minutes) plus a scrape: a pod that has not
	// reported three minutes after it was asked for is not serving.
	ReadyGrace time.Duration
	// MinCells is the fewest window cells in which a member and its peers
	// both report for a contrast to be judged.
	MinCells int
	// MinBaselineCells is the fewest baseline cells in which both report
	// for the member's usual difference (and its spread) to come from the
	// baseline; with fewer, the difference is taken as 0 and its spread from
	// how far the peers stray from one another.
	MinBaselineCells int
	// MaxSpreadWork bounds the exact peer spreads of one family of one
	// group (Cohort): when the members that need one (too little baseline
	// beside their peers) would read more baseline points than this in
	// all, each spread costing all the others' points, they share one
	// spread from a sample of SpreadSample members instead, and the graph
	// says so. Set so that the exact spreads take well under a second on
	// one core (a sort of 10M values); no development case comes near it.
	MaxSpreadWork int
	// SpreadSample is the number of members, evenly spaced in the group's
	// order, whose peer spread stands for every member's past
	// MaxSpreadWork. A spread (a MAD or IQR of the deviations) from
	// thousands of members' baseline points is within a few percent of
	// the whole group's.
	SpreadSample int
}

// DefaultParams are the defaults.
func DefaultParams() Params {
	return Params{ReadyGrace: 3 * time.Minute, MinCells: 2, MinBaselineCells: 3, MaxSpreadWork: 10_000_000, SpreadSample: 5000}
}

// WithDefaults returns p with zero fields set to their defaults.
func (p Params) WithDefaults() Params {
	d := DefaultParams()
	if p.ReadyGrace <= 0 {
		p.ReadyGrace = d.ReadyGrace
	}
	if p.MinCells <= 0 {
		p.MinCells = d.MinCells
	}
	if p.MinBaselineCells <= 0 {
		p.MinBaselineCells = d.MinBaselineCells
	}
	if p.MaxSpreadWork <= 0 {
		p.MaxSpreadWork = d.MaxSpreadWork
	}
	if p.SpreadSample <= 0 {
		p.SpreadSample = d.SpreadSample
	}
	return p
}

// Pod is one pod and what is known of its version.
type Pod struct {
	Name    string
	Service string
	// ReplicaSet is "<workload>-<pod-template hash>" when the pod's name
	// is a Deployment's generated one, else "".
	ReplicaSet string
	// Workload owns the pod by its name (ingest.WorkloadOf): the Deployment
	// of a ReplicaSet's pod.
	Workload string
	Version  string // a version label's value, "" when none
	// First and Last are the grid indices of the pod's first and last
	// sample (-1 when it has none on the grid).
	First, Last int
}

// Group is the pods of one version of a service.
type Group struct {
	Service string
	// Name is the ReplicaSet, else "<workload>:<version>", else the
	// workload.
	Name     string
	Workload string
	Version  string
	Pods     []string // sorted
	// First and Last are the grid indices of the first and last sample of
	// any of its pods (-1 when none).
	First, Last int
	// By says how the group is known: "pod-template hash", "version
	// label", "workload" or "rollout event" (a group asked for whose pods
	// never reported).
	By string
	// Asked are the rollout events' requests of this group's size, in time
	// order.
	Asked []Scale
}

// Scale is one request of a ReplicaSet's size.
type Scale struct {
	At ingest.Time
	To int
}

// Label renders the group for people: "cartservice-v2-54455997f4
// (version v2)".
func (g Group) Label() string {
	if g.Version != "" && !strings.Contains(g.Name, g.Version) {
		return g.Name + " (version " + g.Version + ")"
	}
	return g.Name
}

// Rollout is a new group of a service beside its old ones.
type Rollout struct {
	Service string
	New     *Group
	Old     []*Group
	// At is the first rollout event of the new group, else its first
	// sample's time.
	At     ingest.Time
	Events []ingest.Event
	// By says how the rollout is known: "rollout event" or "new pods in
	// the data".
	By string
}

// Name is the rollout's entity name: the new group's workload when it
// has one of its own (a Deployment per version), else its name.
func (r Rollout) Name() string {
	for _, o := range r.Old {
		if o.Workload == r.New.Workload {
			return r.New.Name // one workload rolled from one ReplicaSet to another
		}
	}
	if r.New.Workload != "" {
		return r.New.Workload
	}
	return r.New.Name
}

// OldPods lists the old groups' pods, sorted.
func (r Rollout) OldPods() []string {
	var out []string
	for _, o := range r.Old {
		out = append(out, o.Pods...)
	}
	slices.Sort(out)
	return out
}

// Model is the version model of one bundle.
type Model struct {
	Pods map[string]*Pod
	// Groups are each service's groups, by first sample then name.
	Groups   map[string][]*Group
	Rollouts []Rollout // by time, then service and name
	// present[pod] marks the grid cells where the pod has a sample.
	present map[string][]bool
	grid    []ingest.Time
	step    time.Duration
	params  Params
}

// scaleMessage matches the Deployment controller's ScalingReplicaSet
// messages: "Scaled up replica set R to 2", "Scaled down replica set R
// from 2 to 1".
var scaleMessage = regexp.MustCompile(`(?i)scaled (up|down) replica ?set (\S+?)(?: from \d+)? to (\d+)`)

// Build groups the bundle's pods into versions and finds the rollouts.
// The bundle must be finalized. O(series · (labels + cells) + events).
func Build(b *ingest.Bundle, p Params) *Model {
	p = p.WithDefaults()
	m := &Model{Pods: map[string]*Pod{}, Groups: map[string][]*Group{}, present: map[string][]bool{},
		grid: b.Grid, step: b.Step, params: p}
	for _, e := range b.Entities {
		if e.Kind != ingest.KindPod || e.Service == "" {
			continue
		}
		m.Pods[e.Name] = &Pod{Name: e.Name, Service: e.Service, ReplicaSet: ReplicaSetOf(e.Name),
			Workload: ingest.WorkloadOf(e.Name), First: -1, Last: -1}
	}
	known := map[string]bool{}
	for _, e := range b.Entities {
		if e.Kind == ingest.KindService {
			known[e.Name] = true
		}
	}
	for _, s := range b.Series {
		name := ingest.PodOf(s)
		pod := m.Pods[name]
		if pod == nil && name != "" {
			// A pod only a label names (a mesh's per-pod call metrics):
			// the service its labels name, else its workload's.
			svc := ingest.ServiceLabel(s.Labels)
			if !known[svc] {
				svc = ingest.MatchService(ingest.WorkloadOf(name), known)
			}
			if svc == "" {
				continue
			}
			pod = &Pod{Name: name, Service: svc, ReplicaSet: ReplicaSetOf(name), Workload: ingest.WorkloadOf(name), First: -1, Last: -1}
			m.Pods[name] = pod
		}
		if pod == nil {
			continue
		}
		if v := ingest.VersionOf(s.Labels); v != "" && pod.Version == "" {
			pod.Version = v
		}
		if !s.Aligned || s.Source == ingest.DerivedSource && s.Name != ingest.TraceRequests {
			continue // a pod's spans report it by its requests (other span series are 0 or NaN without them)
		}
		zeroAbsent := s.Source == ingest.DerivedSource
		pr := m.present[pod.Name]
		if pr == nil {
			pr = make([]bool, len(b.Grid))
			m.present[pod.Name] = pr
		}
		for i, v := range s.V {
			if i < len(pr) && !math.IsNaN(v) && !(zeroAbsent && v == 0) {
				pr[i] = true
			}
		}
	}
	// The image a pod's events say it pulled or started ("Pulling image
	// \"repo/app:1.9.0\"") names its version where no label does.
	for _, e := range b.Events {
		if e.Entity.Kind != ingest.KindPod {
			continue
		}
		if pod := m.Pods[e.Entity.Name]; pod != nil && pod.Version == "" {
			if v := imageVersion(e.Message); v != "" {
				pod.Version = v
			}
		}
	}
	// A version a trace source names (OTLP service.version) for pods no
	// series labels.
	for _, v := range b.PodVersions {
		if pod := m.Pods[v.Pod]; pod != nil && pod.Version == "" {
			pod.Version = v.Version
		}
	}
	for name, pr := range m.present {
		pod := m.Pods[name]
		pod.First, pod.Last = slices.Index(pr, true), lastTrue(pr)
	}
	m.group()
	m.rollouts(b)
	return m
}

func lastTrue(xs []bool) int {
	for i := len(xs) - 1; i >= 0; i-- {
		if xs[i] {
			return i
		}
	}
	return -1
}

// imageMessage finds the image a kubelet event names: `image "repo:tag"`.
var imageMessage = regexp.MustCompile(`image "([^"]+)"`)

// imageVersion returns the tag (else the digest) of the image an event's
// message names, "" when it names none.
func imageVersion(msg string) string {
	m := imageMessage.FindStringSubmatch(msg)
	if m == nil {
		return ""
	}
	img := m[1]
	if i := strings.LastIndexByte(img, '@'); i >= 0 {
		return img[i+1:]
	}
	if i := strings.LastIndexByte(img, ':'); i > strings.LastIndexByte(img, '/') {
		return img[i+1:]
	}
	return img
}

// ReplicaSetOf returns the ReplicaSet of a Deployment's generated pod name
// ("cart-v2-54455997f4-qdpvs" → "cart-v2-54455997f4"), "" for other names.
func ReplicaSetOf(pod string) string {
	w := ingest.WorkloadOf(pod)
	if w == pod {
		return ""
	}
	i := strings.LastIndexByte(pod, '-')
	rs := pod[:i]
	if rs == w {
		return "" // "<name>-<suffix>": a DaemonSet's or Job's pod, no template hash
	}
	return rs
}

// group puts every pod in its service's group: by ReplicaSet, else by
// version label, else by workload.
func (m *Model) group() {
	byKey := map[string]*Group{}
	for _, name := range sortedKeys(m.Pods) {
		pod := m.Pods[name]
		key, by := pod.ReplicaSet, "pod-template hash"
		switch {
		case key == "" && pod.Version != "":
			key, by = pod.Workload+":"+pod.Version, "version label"
		case key == "":
			key, by = pod.Workload, "workload"
		}
		k := pod.Service + "\x00" + key
		g := byKey[k]
		if g == nil {
			g = &Group{Service: pod.Service, Name: key, Workload: pod.Workload, Version: pod.Version, By: by, First: -1, Last: -1}
			byKey[k] = g
			m.Groups[pod.Service] = append(m.Groups[pod.Service], g)
		}
		g.Pods = append(g.Pods, pod.Name)
		if pod.First >= 0 && (g.First < 0 || pod.First < g.First) {
			g.First = pod.First
		}
		g.Last = max(g.Last, pod.Last)
	}
	for _, gs := range m.Groups {
		sortGroups(gs)
	}
}

func sortGroups(gs []*Group) {
	slices.SortFunc(gs, func(a, b *Group) int {
		return cmp.Or(cmp.Compare(firstKey(a.First), firstKey(b.First)), cmp.Compare(a.Name, b.Name))
	})
}

// firstKey orders groups without samples last.
func firstKey(i int) int {
	if i < 0 {
		return math.MaxInt
	}
	return i
}

// GroupOf returns the group of a pod (nil when the pod is unknown).
func (m *Model) GroupOf(pod string) *Group {
	p := m.Pods[pod]
	if p == nil {
		return nil
	}
	for _, g := range m.Groups[p.Service] {
		if slices.Contains(g.Pods, pod) {
			return g
		}
	}
	return nil
}

// rollouts finds the rollouts: every ReplicaSet a rollout event scaled
// up that is new (its pods first report after the event's grace began, or
// never), and every group whose pods first report after another group of
// its service had, that no event names.
func (m *Model) rollouts(b *ingest.Bundle) {
	type scaled struct {
		service string
		events  []ingest.Event
		asks    []Scale
		up      bool
	}
	byRS := map[string]*scaled{}
	rsService := map[string]string{} // a ReplicaSet's service, by its pods
	for _, name := range sortedKeys(m.Pods) {
		if p := m.Pods[name]; p.ReplicaSet != "" && rsService[p.ReplicaSet] == "" {
			rsService[p.ReplicaSet] = p.Service
		}
	}
	for _, e := range b.Events {
		if !e.Kind.ChangeLike() {
			continue
		}
		sm := scaleMessage.FindStringSubmatch(e.Message)
		if sm == nil {
			continue
		}
		rs := sm[2]
		to, err := strconv.Atoi(sm[3])
		if err != nil {
			continue
		}
		sc := byRS[rs]
		if sc == nil {
			sc = &scaled{service: serviceOfReplicaSet(rsService, rs, e)}
			byRS[rs] = sc
		}
		sc.events = append(sc.events, e)
		sc.asks = append(sc.asks, Scale{At: e.Time, To: to})
		sc.up = sc.up || strings.EqualFold(sm[1], "up")
	}
	covered := map[*Group]bool{}
	for _, rs := range sortedKeys(byRS) {
		sc := byRS[rs]
		if !sc.up || sc.service == "" {
			continue
		}
		slices.SortStableFunc(sc.asks, func(a, b Scale) int { return cmp.Compare(a.At, b.At) })
		at := ingest.Time(math.MaxInt64)
		for _, a := range sc.asks {
			at = min(at, a.At)
		}
		g := m.groupNamed(sc.service, rs)
		if g == nil {
			// Asked for, never reporting: a group of its own.
			g = &Group{Service: sc.service, Name: rs, Workload: ingest.WorkloadOf(rs), First: -1, Last: -1, By: "rollout event"}
			m.Groups[sc.service] = append(m.Groups[sc.service], g)
			sortGroups(m.Groups[sc.service])
		}
		g.Asked = sc.asks
		// A scale-up of a ReplicaSet that served before the event is
		// scaling, not a new version.
		if g.First >= 0 && m.at(g.First) < at.Add(-m.params.ReadyGrace) {
			continue
		}
		old := m.others(sc.service, g)
		if len(old) == 0 {
			continue
		}
		events := sc.events
		slices.SortStableFunc(events, func(a, b ingest.Event) int { return cmp.Compare(a.Time, b.Time) })
		m.Rollouts = append(m.Rollouts, Rollout{Service: sc.service, New: g, Old: old, At: at, Events: events, By: "rollout event"})
		covered[g] = true
	}
	// New pods in the data: a group whose first sample comes after the
	// first sample of another group of its service (and after the data's
	// first cells, which every pod present from the start shares).
	for _, svc := range sortedKeys(m.Groups) {
		gs := m.Groups[svc]
		for _, g := range gs {
			if covered[g] || g.First <= 1 {
				continue
			}
			var old []*Group
			for _, o := range gs {
				if o != g && o.First >= 0 && o.First < g.First {
					old = append(old, o)
				}
			}
			if len(old) == 0 {
				continue
			}
			m.Rollouts = append(m.Rollouts, Rollout{Service: svc, New: g, Old: old, At: m.at(g.First), By: "new pods in the data"})
		}
	}
	slices.SortStableFunc(m.Rollouts, func(a, b Rollout) int {
		return cmp.Or(cmp.Compare(a.At, b.At), cmp.Compare(a.Service, b.Service), cmp.Compare(a.New.Name, b.New.Name))
	})
}

// others returns the service's groups but g that have pods reporting.
func (m *Model) others(svc string, g *Group) []*Group {
	var out []*Group
	for _, o := range m.Groups[svc] {
		if o != g && o.First >= 0 {
			out = append(out, o)
		}
	}
	return out
}

// groupNamed returns the service's group of a ReplicaSet (nil when none).
func (m *Model) groupNamed(svc, rs string) *Group {
	for _, g := range m.Groups[svc] {
		if g.Name == rs {
			return g
		}
	}
	return nil
}

// serviceOfReplicaSet is the service of a ReplicaSet: its pods' (byPods),
// else the service the event was matched to, else its workload.
func serviceOfReplicaSet(byPods map[string]string, rs string, e ingest.Event) string {
	if s := byPods[rs]; s != "" {
		return s
	}
	if e.Entity.Service != "" {
		return e.Entity.Service
	}
	return ingest.WorkloadOf(rs)
}

// at is the time of grid cell i.
func (m *Model) at(i int) ingest.Time {
	if i < 0 || i >= len(m.grid) {
		return 0
	}
	return m.grid[i]
}

// Reporting reports whether any of the pods has a sample at grid cell i.
func (m *Model) Reporting(pods []string, i int) bool {
	for _, p := range pods {
		if pr := m.present[p]; i < len(pr) && pr[i] {
			return true
		}
	}
	return false
}

// Availability is, for a rollout whose events asked for its new group's
// size, the share of the pods asked for that report at each grid cell
// (capped at 1): NaN before ReadyGrace has passed since the first request,
// and where no old pod reports either (no data at all says nothing). nil
// when no event asked for a size.
func (m *Model) Availability(r Rollout) []float64 {
	if len(r.New.Asked) == 0 {
		return nil
	}
	old := r.OldPods()
	out := make([]float64, len(m.grid))
	for i, t := range m.grid {
		out[i] = math.NaN()
		asked := 0
		for _, a := range r.New.Asked {
			if a.At.Add(m.params.ReadyGrace) <= t {
				asked = a.To
			}
		}
		if asked <= 0 || !m.Reporting(old, i) {
			continue
		}
		n := 0
		for _, p := range r.New.Pods {
			if pr := m.present[p]; i < len(pr) && pr[i] {
				n++
			}
		}
		out[i] = math.Min(1, float64(n)/float64(asked))
	}
	return out
}

// String renders the rollout for people and tests: "cartservice: v2-… new
// (rollout event at …), old: …".
func (r Rollout) String() string {
	var old []string
	for _, o := range r.Old {
		old = append(old, o.Label())
	}
	return fmt.Sprintf("%s: %s new (%s at %v), old: %s", r.Service, r.New.Label(), r.By, r.At, strings.Join(old, ", "))
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
