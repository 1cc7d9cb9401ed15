package features

import (
	"regexp"
	"strings"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
)

// gpuIndexName matches the names readers give a GPU without a UUID:
// "host/gpuN" (nvidia-smi, NVML, Kineto) or "host/N" (DCGM without UUID).
var gpuIndexName = regexp.MustCompile(`^(.*)/(?:gpu)?([0-9]+)$`)

// matchGPUs renames GPU entities known only by host and index to the UUID
// another source gives the same (host, index) — typically DCGM's UUID,
// Hostname and gpu labels — so one GPU is one entity across sources.
// Ambiguous pairs (two UUIDs for one host and index) are left alone.
func matchGPUs(b *ingest.Bundle) {
	type key struct{ host, idx string }
	uuidOf := map[key]string{}
	ambiguous := map[key]bool{}
	for _, s := range b.Series {
		e := s.Entity
		if e.Kind != ingest.KindGPU || gpuIndexName.MatchString(e.Name) || e.Node == "" {
			continue
		}
		idx := ingest.FirstLabel(s.Labels, "gpu", "GPU", "gpu_index", "index", "minor_number")
		if idx == "" || strings.Trim(idx, "0123456789") != "" {
			continue
		}
		k := key{strings.ToLower(ingest.NormalizeHost(e.Node)), idx}
		if old, ok := uuidOf[k]; ok && old != e.Name {
			ambiguous[k] = true
		}
		uuidOf[k] = e.Name
	}
	if len(uuidOf) == 0 {
		return
	}
	rename := func(e *ingest.Entity) {
		if e.Kind != ingest.KindGPU {
			return
		}
		m := gpuIndexName.FindStringSubmatch(e.Name)
		if m == nil {
			return
		}
		host := m[1]
		if e.Node != "" {
			host = e.Node
		}
		k := key{strings.ToLower(ingest.NormalizeHost(host)), m[2]}
		if u, ok := uuidOf[k]; ok && !ambiguous[k] {
			e.Name, e.GPU = u, u
		}
	}
	for _, s := range b.Series {
		rename(&s.Entity)
	}
	for i := range b.Events {
		rename(&b.Events[i].Entity)
	}
}
