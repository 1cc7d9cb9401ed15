package live

import (
	"encoding/json"
	"math"
	"sort"
	"strconv"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/measure"
)

// Aggregates first: the request aggregates a metrics backend already keeps
// per service (the OpenTelemetry Collector's servicegraph and spanmetrics
// connectors, Jaeger SPM, Istio's RED metrics) are cheap to fetch for any
// number of services, while raw spans cost a search per service and slice.
// So when both a Prometheus and a Jaeger URL are given, the metrics come
// first; each service's largest deviation in those aggregates (window
// median against the baseline, in baseline robust scales) then orders the
// trace searches, decides which services fill --max-services, and limits
// the window's slow/error searches to the services that moved. A service
// the aggregates do not mention is searched as before (nothing is known of
// it); with no aggregates at all, nothing changes.

// aggregateService names, per built-in pack of per-service request
// aggregates, the label that holds the service the series measures (the
// callee for edge series).
var aggregateService = map[string]string{
	"servicegraph": "server",
	"spanmetrics":  "service_name",
	"istio":        "destination_service_name",
}

// AggregateMinZ is the deviation, in baseline robust scales, above which a
// service's aggregates count as moved: its window is searched for slow and
// error traces.
const AggregateMinZ = 3.0

// aggregateMinBaseline is the fewest baseline points a series needs to be
// scored.
const aggregateMinBaseline = 3

// promMatrix is the part of a query_range matrix answer the scores read.
type promMatrix struct {
	Data struct {
		Result []struct {
			Metric map[string]string `json:"metric"`
			Values [][2]any          `json:"values"`
		} `json:"result"`
	} `json:"data"`
}

// AggregateScores returns, per service named by the aggregate packs'
// series among rs, its largest deviation over those series: |median of the
// window's points − median of the baseline's| ÷ max(1.4826·MAD of the
// baseline, 1% of |baseline median|, 1e-9). Series with fewer than three
// baseline points or no window point are skipped; bodies that do not parse
// are ignored (the reader reports them). O(points · log points).
func AggregateScores(rs []QueryResult, windowStart, windowEnd time.Time) map[string]float64 {
	out := map[string]float64{}
	ws, we := float64(windowStart.UnixNano())/1e9, float64(windowEnd.UnixNano())/1e9
	for _, r := range rs {
		label, ok := aggregateService[r.Pack]
		if !ok || r.Err != "" || len(r.Body) == 0 {
			continue
		}
		var m promMatrix
		if json.Unmarshal(r.Body, &m) != nil {
			continue
		}
		for _, s := range m.Data.Result {
			svc := s.Metric[label]
			if svc == "" {
				continue
			}
			var base, win []float64
			for _, p := range s.Values {
				t, ok1 := p[0].(float64)
				vs, ok2 := p[1].(string)
				if !ok1 || !ok2 {
					continue
				}
				v, err := strconv.ParseFloat(vs, 64)
				if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
					continue
				}
				switch {
				case t < ws:
					base = append(base, v)
				case t <= we:
					win = append(win, v)
				}
			}
			if len(base) < aggregateMinBaseline || len(win) == 0 {
				if _, seen := out[svc]; !seen {
					out[svc] = 0
				}
				continue
			}
			mb, mad := measure.MedianMAD(base, nil)
			scale := math.Max(math.Max(measure.MADToSigma*mad, 0.01*math.Abs(mb)), 1e-9)
			z := math.Abs(measure.QuantileInPlace(win, 0.5)-mb) / scale
			if cur, seen := out[svc]; !seen || z > cur {
				out[svc] = z
			}
		}
	}
	return out
}

// orderByAggregates orders services for the trace searches: those whose
// aggregates moved (score ≥ AggregateMinZ) by score, highest first, then
// those the aggregates do not mention, then the quiet ones, each group by
// name. With no scores it is the name order.
func orderByAggregates(svcs []string, scores map[string]float64) []string {
	out := append([]string(nil), svcs...)
	group := func(s string) int {
		z, ok := scores[s]
		switch {
		case ok && z >= AggregateMinZ:
			return 0
		case !ok:
			return 1
		}
		return 2
	}
	sort.SliceStable(out, func(i, j int) bool {
		gi, gj := group(out[i]), group(out[j])
		if gi != gj {
			return gi < gj
		}
		if gi == 0 && scores[out[i]] != scores[out[j]] {
			return scores[out[i]] > scores[out[j]]
		}
		return out[i] < out[j]
	})
	return out
}

// quietByAggregates reports whether the aggregates name svc and it did not
// move: its window is not searched for slow or error traces.
func quietByAggregates(svc string, scores map[string]float64) bool {
	z, ok := scores[svc]
	return ok && z < AggregateMinZ
}
