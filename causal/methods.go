package causal

import (
	"fmt"
	"slices"
	"sync"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/tcg"
)

// DefaultMethod is the name of the engine's own causal method, the one
// Analyze runs when Options.Method is empty and the one whose parameter
// table is Params.
const DefaultMethod = "tcg"

// MethodKind says what a ranking method's result means to the stages after
// it (the scorecard, eval).
type MethodKind uint8

// Kinds of ranking method.
const (
	// KindUnknown is the kind of a name no method registered.
	KindUnknown MethodKind = iota
	// KindCausal is the engine's own causal method: counterfactuals,
	// calibrated confidences, severities and a verdict that decides.
	KindCausal
	// KindComparison is a published baseline run for comparison: it
	// ranks, and its card neither decides nor shows counterfactuals.
	KindComparison
)

// String names the kind: "causal", "comparison" or "unknown".
func (k MethodKind) String() string {
	switch k {
	case KindCausal:
		return "causal"
	case KindComparison:
		return "comparison"
	}
	return "unknown"
}

// RankFunc is a method's ranking: it ranks the causes of the incident on
// the graph with the options (defaults applied; Options.Method is the
// method's name). Analyze sets the result's Method to the method's name
// and fills its Changes when the ranking left them nil.
type RankFunc func(g *tcg.Graph, b *ingest.Bundle, opt Options) *Result

// Method describes one ranking method: what RegisterMethod takes and
// LookupMethod returns.
type Method struct {
	// Name is what --method, the MCP tool's method, eval's tables and the
	// card's "method" field carry; it never changes once released.
	Name string
	// Kind says whether it is the engine's own causal method or a
	// comparison baseline.
	Kind MethodKind
	// Help is a one-line description of the method, for help text.
	Help string
	// Note says, for a comparison method, what it ranks by, in its card's
	// verdict ("" reads "<name> ranks candidates by its own criterion").
	Note string
	// Rank is the ranking.
	Rank RankFunc
}

// registry holds the registered methods in registration order: the order
// of Methods(), hence of --method's help, completion and eval's tables.
var registry struct {
	sync.RWMutex
	list []Method
}

// The built-in methods, in the order Methods() lists them. Adding a method
// is one entry here (or a RegisterMethod call of its own) and its RankFunc.
func init() {
	for _, m := range []Method{
		{Name: DefaultMethod, Kind: KindCausal, Rank: analyzeTCG,
			Help: "the causal ranking: counterfactuals on the temporal causal graph"},
		{Name: "baro", Kind: KindComparison, Rank: rankBaseline(robustScale),
			Help: "BARO (FSE 2024): each metric's largest median/IQR deviation",
			Note: "BARO ranks each metric by its largest median/IQR deviation after the baseline"},
		{Name: "nsigma", Kind: KindComparison, Rank: rankBaseline(sigmaScale),
			Help: "N-sigma: each metric's largest mean/σ deviation",
			Note: "N-sigma ranks each metric by its largest mean/σ deviation after the baseline"},
		{Name: "selftime", Kind: KindComparison, Rank: analyzeSelfTime,
			Help: "CRISP (ATC 2022): the robust shift of span exclusive time per service, pod and operation"},
		{Name: "traversal", Kind: KindComparison, Rank: analyzeTraversal,
			Help: "threshold traversal (PetShop): from the alerting service into anomalous callees, deepest first"},
		{Name: "circa", Kind: KindComparison, Rank: analyzeCIRCA,
			Help: "CIRCA (KDD 2022): regression-based hypothesis testing on the graph's parents"},
	} {
		RegisterMethod(m)
	}
}

// RegisterMethod adds a ranking method after those registered before it.
// It panics on an empty name, a nil Rank, an unknown kind or a name taken:
// registration is a programming step, done from an init function.
func RegisterMethod(m Method) {
	if m.Name == "" || m.Rank == nil || (m.Kind != KindCausal && m.Kind != KindComparison) {
		panic(fmt.Sprintf("causal: RegisterMethod(%q): want a name, a Rank and a kind", m.Name))
	}
	registry.Lock()
	defer registry.Unlock()
	if slices.ContainsFunc(registry.list, func(o Method) bool { return o.Name == m.Name }) {
		panic(fmt.Sprintf("causal: RegisterMethod(%q): registered twice", m.Name))
	}
	registry.list = append(registry.list, m)
}

// unregisterMethod removes a method (tests that register their own).
func unregisterMethod(name string) {
	registry.Lock()
	defer registry.Unlock()
	registry.list = slices.DeleteFunc(registry.list, func(o Method) bool { return o.Name == name })
}

// LookupMethod returns the method registered under the name.
func LookupMethod(name string) (Method, bool) {
	registry.RLock()
	defer registry.RUnlock()
	for _, m := range registry.list {
		if m.Name == name {
			return m, true
		}
	}
	return Method{}, false
}

// Methods lists the ranking methods' names in registration order, the
// default method first.
func Methods() []string {
	registry.RLock()
	defer registry.RUnlock()
	out := make([]string, len(registry.list))
	for i, m := range registry.list {
		out[i] = m.Name
	}
	return out
}

// KindOf is the kind of the method registered under the name (KindUnknown
// for an unregistered name or "").
func KindOf(name string) MethodKind {
	m, _ := LookupMethod(name)
	return m.Kind
}

// Kind is the kind of the method that ranked the result (KindOf(r.Method)).
func (r *Result) Kind() MethodKind { return KindOf(r.Method) }
