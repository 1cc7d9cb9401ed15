package gpu

import (
	"math"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
)

// Entity builds the GPU entity of a sample: named by its UUID when known,
// else "host/gpuN" (host "localhost" when the host is unknown too).
func Entity(uuid, host, index string) ingest.Entity {
	name := uuid
	if name == "" {
		h := host
		if h == "" {
			h = "localhost"
		}
		if index == "" {
			index = "0"
		}
		name = h + "/gpu" + index
	}
	return ingest.Entity{Kind: ingest.KindGPU, Name: name, GPU: name, Node: host}
}

// SeriesSet collects series in order of first appearance, keyed by name+labels.
type SeriesSet struct {
	source string
	order  []*ingest.Series
	byKey  map[string]*ingest.Series
}

func NewSeriesSet(source string) *SeriesSet {
	return &SeriesSet{source: source, byKey: map[string]*ingest.Series{}}
}

// Get returns the series name+labels, creating it with the given metadata.
//
// Every series carries a "gpu" label with its entity's name, so that series of
// different GPUs from one file have distinct keys.
func (ss *SeriesSet) Get(name string, labels ingest.Labels, e ingest.Entity, sig ingest.SignalKind, unit string) *ingest.Series {
	if labels.Get("gpu") == "" {
		labels = append(labels, ingest.Label{Name: "gpu", Value: e.Name})
	}
	ingest.SortLabels(labels)
	k := name + labels.String()
	if s, ok := ss.byKey[k]; ok {
		return s
	}
	s := &ingest.Series{Name: name, Labels: labels, Entity: e, Signal: sig, Unit: unit, Source: ss.source}
	ss.byKey[k] = s
	ss.order = append(ss.order, s)
	return s
}

// NonEmpty returns the series that hold at least one non-NaN value.
func (ss *SeriesSet) NonEmpty() []*ingest.Series {
	var out []*ingest.Series
	for _, s := range ss.order {
		for _, v := range s.V {
			if !math.IsNaN(v) {
				out = append(out, s)
				break
			}
		}
	}
	return out
}
