package compare

import (
	"fmt"
	"math"
	"strings"

	"github.com/pipeline-analyze/pipeline-analyze/compare/internal/render"
	"github.com/pipeline-analyze/pipeline-analyze/compare/model"
)

// labelOf names an item for people: "latency of router → vllm (caller side)".
func labelOf(it *model.Item) string {
	ent := it.Entity
	if it.EntityKind == "edge" {
		ent = strings.Replace(strings.TrimPrefix(ent, "edge/"), "->", " → ", 1)
	}
	sig := it.Signal
	switch it.Facet {
	case "client":
		ent += " (caller side)"
	case "server":
		ent += " (callee side)"
	case "gap":
		ent += " (network gap)"
	case "self":
		sig = "own time"
	case "":
	default:
		ent += " (" + it.Facet + ")"
	}
	s := sig + " of " + ent
	if it.Kind == model.KindSeries || it.Facet == "template" {
		s += ": " + it.Series
	}
	return s
}

// changeText is an item's change in words, e.g. "p99 +180 ms [+120, +260]
// (1.02 s → 1.20 s), δ 0.41".
func changeText(it *model.Item) string {
	if it.Verdict == model.Insufficient {
		return it.Reason
	}
	t := it.Test
	switch it.Kind {
	case model.KindDistribution:
		qc, ok := shownQuantile(it)
		if !ok {
			return it.Reason
		}
		s := fmt.Sprintf("p%d %s [%s, %s] (%s → %s)", int(math.Round(qc.Q*100)), signedValue(qc.Diff, it.Unit),
			signedValue(qc.DiffCI[0], it.Unit), signedValue(qc.DiffCI[1], it.Unit), value(qc.Before, it.Unit), value(qc.After, it.Unit))
		return s + ", δ " + fix(t.CliffDelta, 2)
	case model.KindProportion:
		return fmt.Sprintf("error ratio %s → %s (%d/%d → %d/%d), h %s", pct(it.Before.Ratio), pct(it.After.Ratio),
			it.Before.Events, it.Before.N, it.After.Events, it.After.N, fix(t.CohenH, 2))
	case model.KindRate:
		return fmt.Sprintf("%s/s → %s/s (×%s)", render.Fix3(it.Before.Rate), render.Fix3(it.After.Rate), fix(t.RateRatio, 2))
	case model.KindSeries:
		s := fmt.Sprintf("level %s → %s (%s)", value(it.Before.Median, it.Unit), value(it.After.Median, it.Unit), shiftText(t.Shift))
		if it.Normalised != "" {
			s += ", " + it.Normalised
		}
		return s
	}
	return it.Reason
}

// shownQuantile is the quantile a distribution's change is told by: the
// usable one that moved most in relative terms (in the verdict's
// direction when it moved).
func shownQuantile(it *model.Item) (model.QuantileChange, bool) {
	best, bi := -1.0, -1
	for i, qc := range it.Test.Quantiles {
		if !qc.Usable && i > 0 {
			continue
		}
		rel := relChange(it, qc)
		if rel != rel {
			continue
		}
		switch it.Verdict {
		case model.Regressed:
			if rel < 0 {
				continue
			}
		case model.Fixed, model.Improved:
			if rel > 0 {
				continue
			}
		}
		if a := math.Abs(rel); a > best {
			best, bi = a, i
		}
	}
	if bi < 0 {
		if len(it.Test.Quantiles) == 0 {
			return model.QuantileChange{}, false
		}
		bi = 0
	}
	return it.Test.Quantiles[bi], true
}

func pct(v float64) string {
	if v != v {
		return "~"
	}
	return fix(100*v, 1) + "%"
}

// signedValue is value with an explicit sign: "+180 ms", "−2.1 s".
func signedValue(v float64, unit string) string {
	if v != v {
		return "~"
	}
	s := value(v, unit)
	if v > 0 {
		return "+" + s
	}
	return s
}
