package features

import (
	"cmp"
	"net"
	"slices"
	"strconv"
	"strings"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
)

// hostPID keys a process by host (normalised, lower case) and PID.
type hostPID struct {
	host string
	pid  uint32
}

// shortHost is the host name processes are matched by: NormalizeHost's name
// without its domain ("gpu-1.dc.example.com" and "GPU-1" are one host), or
// the whole address for an IP.
func shortHost(h string) string {
	h = ingest.NormalizeHost(h)
	if net.ParseIP(h) == nil {
		if i := strings.IndexByte(h, '.'); i > 0 {
			h = h[:i]
		}
	}
	return h
}

// placeProcesses joins the GPUs' processes (series of a GPU entity with a
// "pid" label: NVML recordings, nvidia-smi per-process queries, pmon) with
// the processes traces name, by host and PID, into b.Placements.
//
// A GPU process matches the traced processes with the same PID on the same
// host; the GPU's host is its own series' or, when that source does not
// know it (nvidia-smi's compute-apps query), any other source's for the
// same GPU (DCGM's Hostname for the UUID). When either side does not know
// its host (pmon, a trace without host tags), it matches only if every
// traced process with a PID is on a single host (or none names one): PIDs
// repeat across machines. A PID that names
// processes of two different services or pods is ambiguous and places
// nothing. Containers see their own PID namespace, so PIDs from inside a pod
// rarely equal the host's; a warning says so when both sides have PIDs and
// none matched.
func placeProcesses(b *ingest.Bundle) {
	b.PodVersions = dedupePodVersions(b.PodVersions)
	b.Processes = dedupeProcesses(b.Processes)
	if len(b.Processes) == 0 {
		return
	}
	byKey := map[hostPID][]ingest.Process{}
	byPID := map[uint32][]ingest.Process{}
	hosts := map[string]bool{}
	for _, p := range b.Processes {
		h := shortHost(p.Host)
		byKey[hostPID{h, p.PID}] = append(byKey[hostPID{h, p.PID}], p)
		byPID[p.PID] = append(byPID[p.PID], p)
		hosts[h] = true
	}
	oneHost := len(hosts) == 1
	// A GPU's host may come from another source than its process list:
	// nvidia-smi's compute-apps query names the GPU by UUID only, DCGM's
	// series of the same UUID carry Hostname.
	gpuHost := map[string]string{}
	for _, s := range b.Series {
		if e := s.Entity; e.Kind == ingest.KindGPU && e.Node != "" && gpuHost[e.Name] == "" {
			gpuHost[e.Name] = e.Node
		}
	}
	seen := map[ingest.Placement]bool{}
	gpuPIDs, ambiguous := 0, 0
	type gpuPID struct {
		gpu string
		pid uint32
	}
	counted := map[gpuPID]bool{}
	for _, s := range b.Series {
		if s.Entity.Kind != ingest.KindGPU {
			continue
		}
		pid64, err := strconv.ParseUint(s.Labels.Get("pid"), 10, 32)
		if err != nil || pid64 == 0 {
			continue
		}
		pid := uint32(pid64)
		gpuNode := s.Entity.Node
		if gpuNode == "" {
			gpuNode = gpuHost[s.Entity.Name]
		}
		host := shortHost(gpuNode)
		if k := (gpuPID{s.Entity.Name, pid}); !counted[k] {
			counted[k] = true
			gpuPIDs++
		}
		var cands []ingest.Process
		if host != "" {
			cands = byKey[hostPID{host, pid}]
		}
		if len(cands) == 0 && oneHost && (host == "" || hosts[""]) {
			cands = byPID[pid] // one machine, and one side does not name it
		}
		if len(cands) == 0 {
			continue
		}
		first := cands[0]
		same := true
		for _, c := range cands[1:] {
			same = same && c.Service == first.Service && c.Pod == first.Pod
		}
		if !same {
			ambiguous++
			continue
		}
		pl := ingest.Placement{GPU: s.Entity.Name, Service: first.Service, Pod: first.Pod, Host: first.Host, PID: pid}
		if pl.Host == "" {
			pl.Host = gpuNode
		}
		if !seen[pl] {
			seen[pl] = true
			b.Placements = append(b.Placements, pl)
		}
	}
	slices.SortFunc(b.Placements, func(x, y ingest.Placement) int {
		return cmp.Or(cmp.Compare(x.GPU, y.GPU), cmp.Compare(x.Service, y.Service), cmp.Compare(x.Pod, y.Pod),
			cmp.Compare(x.Host, y.Host), cmp.Compare(x.PID, y.PID))
	})
	if ambiguous > 0 {
		b.Warn(ingest.ErrUnmatched, "placement", ambiguous, "%d GPU process series have a PID that traces give to more than one service or pod on the host; not placed", ambiguous)
	}
	if gpuPIDs > 0 && len(b.Placements) == 0 {
		b.Warn(ingest.ErrUnmatched, "placement", gpuPIDs, "none of the %d GPU processes matched a traced process by host and PID (processes inside containers see their own PIDs; DCGM pod labels place GPUs in Kubernetes)", gpuPIDs)
	}
}

// dedupeProcesses sorts processes and drops repeats (the same process seen
// by several files), keeping the first source.
func dedupeProcesses(ps []ingest.Process) []ingest.Process {
	slices.SortStableFunc(ps, func(x, y ingest.Process) int {
		return cmp.Or(cmp.Compare(x.Host, y.Host), cmp.Compare(x.PID, y.PID), cmp.Compare(x.Service, y.Service),
			cmp.Compare(x.Pod, y.Pod), cmp.Compare(x.Source, y.Source))
	})
	return slices.CompactFunc(ps, func(x, y ingest.Process) bool {
		return x.Host == y.Host && x.PID == y.PID && x.Service == y.Service && x.Pod == y.Pod
	})
}

// dedupePodVersions sorts the pods' versions and drops repeats (the same
// pair seen by several files), keeping the first source.
func dedupePodVersions(vs []ingest.PodVersion) []ingest.PodVersion {
	slices.SortStableFunc(vs, func(x, y ingest.PodVersion) int {
		return cmp.Or(cmp.Compare(x.Pod, y.Pod), cmp.Compare(x.Version, y.Version), cmp.Compare(x.Service, y.Service),
			cmp.Compare(x.Source, y.Source))
	})
	return slices.CompactFunc(vs, func(x, y ingest.PodVersion) bool {
		return x.Pod == y.Pod && x.Version == y.Version && x.Service == y.Service
	})
}
