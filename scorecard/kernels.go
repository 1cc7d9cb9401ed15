package scorecard

import (
	"fmt"
	"math"

	"github.com/pipeline-analyze/pipeline-analyze/evidence"
)

// kernelEvidence renders a GPU's profiler summaries (evidence.Kernels):
// which kernels got slower and how busy/idle time changed between the
// baseline and the incident window, in the order given.
func kernelEvidence(ks []evidence.Kernel) []Evidence {
	var out []Evidence
	for _, k := range ks {
		s := k.Series
		what := s.Name
		if kn := s.Labels.Get("kernel"); kn != "" {
			what = "kernel " + kn
		}
		if math.IsNaN(k.Baseline) {
			out = append(out, Evidence{Kind: EvidenceKernel, Series: shortKey(s), Baseline: math.NaN(), Incident: k.Incident, Unit: s.Unit,
				Text: fmt.Sprintf("%s: %s during the incident (the profile has no baseline)", what, formatValue(k.Incident, s.Unit))})
			continue
		}
		out = append(out, Evidence{Kind: EvidenceKernel, Series: shortKey(s), Baseline: k.Baseline, Incident: k.Incident, Unit: s.Unit,
			Text: fmt.Sprintf("%s: %s → %s (×%.2f) between baseline and incident", what, formatValue(k.Baseline, s.Unit),
				formatValue(k.Incident, s.Unit), k.Ratio)})
	}
	return out
}
