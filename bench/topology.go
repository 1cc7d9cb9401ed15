package bench

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Fleet is a generated microservice fleet for the system-size benchmark
// (issue 19): Services services in a layered call graph of fixed depth,
// two pods each, one host per twenty pods, five Prometheus series per pod
// (so ten per service) at a 60 s step over an hour, and about twenty spans
// per service in plain Jaeger JSON. One service directly below the entry
// slows down 45 minutes in; the entry service's p90 latency alert fires two
// minutes later. A few unrelated services have a CPU or memory bump in the
// window (distractors, 0.5% of them). Everything but Services is fixed, so
// a row of the table differs from another only in the fleet's size.
type Fleet struct {
	Name     string
	Services int
}

// Fleets are the sizes of the system-size table.
var Fleets = []Fleet{
	{Name: "svc-1k", Services: 1_000},
	{Name: "svc-10k", Services: 10_000},
}

// Fleet constants. The call graph has fleetDepth levels below the entry
// service with geometric level sizes; each service is called by one random
// service of the level above and, with probability fleetExtraCaller, by a
// second. A request takes each call with probability fleetBranch / (mean
// out-degree), so a trace has about Σ_k fleetBranch^k spans whatever the
// size, and the span count grows linearly with the services.
const (
	fleetDepth       = 5
	fleetExtraCaller = 0.2
	fleetBranch      = 1.5
	fleetPods        = 2
	fleetPodsPerHost = 20
	fleetStep        = 60 * time.Second
	fleetPoints      = 60
	fleetInject      = 45 // minute of the fault
	fleetTraceFiles  = 4
	fleetSlowdown    = 0.6 // seconds the faulty service adds to each request
	fleetNamespace   = "fleet"
	fleetSeed        = 19
)

// fleetModel is the generated fleet before it is written.
type fleetModel struct {
	r       *rand.Rand
	names   []string
	level   []int
	callees [][]int
	own     []float64 // own work per request, seconds
	lat     []float64 // expected latency per request at baseline, seconds
	q       []float64 // probability a request of the caller takes each of its calls, per level of the caller
	pods    [][]string
	host    [][]string
	fault   int
	distr   map[int]int // distractor service → 0 cpu, 1 memory
	start   time.Time
}

func newFleet(n int) *fleetModel {
	m := &fleetModel{r: rand.New(rand.NewPCG(fleetSeed, uint64(n))), distr: map[int]int{},
		start: time.Date(2026, 11, 30, 3, 0, 0, 0, time.UTC)}
	// geometric level sizes 1, f, f², …, f^D summing to n
	f := math.Pow(float64(n), 1/float64(fleetDepth))
	for f > 1 {
		s := 0.0
		for k := 0; k <= fleetDepth; k++ {
			s += math.Pow(f, float64(k))
		}
		if s <= float64(n) {
			break
		}
		f *= 0.99
	}
	sizes := make([]int, fleetDepth+1)
	left := n
	for k := 0; k <= fleetDepth; k++ {
		sizes[k] = max(1, int(math.Round(math.Pow(f, float64(k)))))
		if k == fleetDepth || sizes[k] > left {
			sizes[k] = left
		}
		left -= sizes[k]
	}
	var levels [][]int
	for k, sz := range sizes {
		var ids []int
		for j := 0; j < sz; j++ {
			id := len(m.names)
			if id == 0 {
				m.names = append(m.names, "frontend")
			} else {
				m.names = append(m.names, fmt.Sprintf("svc-%05d", id))
			}
			m.level = append(m.level, k)
			ids = append(ids, id)
		}
		levels = append(levels, ids)
	}
	m.callees = make([][]int, n)
	for k := 1; k < len(levels); k++ {
		up := levels[k-1]
		for _, id := range levels[k] {
			a := up[m.r.IntN(len(up))]
			m.callees[a] = append(m.callees[a], id)
			if len(up) > 1 && m.r.Float64() < fleetExtraCaller {
				b := up[m.r.IntN(len(up))]
				if b != a {
					m.callees[b] = append(m.callees[b], id)
				}
			}
		}
	}
	m.q = make([]float64, len(levels))
	for k := 0; k+1 < len(levels); k++ {
		calls := 0
		for _, id := range levels[k] {
			calls += len(m.callees[id])
		}
		m.q[k] = math.Min(1, fleetBranch*float64(len(levels[k]))/float64(max(calls, 1)))
	}
	m.own = make([]float64, n)
	for i := range m.own {
		m.own[i] = 0.005 + 0.025*m.r.Float64()
	}
	m.lat = make([]float64, n)
	for i := n - 1; i >= 0; i-- { // callees have larger indices
		l := m.own[i]
		for _, c := range m.callees[i] {
			l += m.q[m.level[i]] * m.lat[c]
		}
		m.lat[i] = l
	}
	hostN := 0
	m.pods = make([][]string, n)
	m.host = make([][]string, n)
	for i := range m.names {
		for p := 0; p < fleetPods; p++ {
			m.pods[i] = append(m.pods[i], fmt.Sprintf("%s-%08x-%05x", m.names[i], m.r.Uint32(), m.r.IntN(1<<20)))
			m.host[i] = append(m.host[i], fmt.Sprintf("10.%d.%d.%d", hostN/fleetPodsPerHost/65536%256, hostN/fleetPodsPerHost/256%256, hostN/fleetPodsPerHost%256))
			hostN++
		}
	}
	// the fault: the level-1 service with most callees (a busy one)
	m.fault = -1
	for _, id := range levels[min(1, len(levels)-1)] {
		if m.fault < 0 || len(m.callees[id]) > len(m.callees[m.fault]) {
			m.fault = id
		}
	}
	for len(m.distr) < max(1, n/200) {
		if d := 1 + m.r.IntN(n-1); d != m.fault {
			m.distr[d] = m.r.IntN(2)
		}
	}
	return m
}

// slow is the extra own time of service i at minute t.
func (m *fleetModel) slow(i int, t float64) float64 {
	if i == m.fault && t >= fleetInject {
		return fleetSlowdown
	}
	return 0
}

// latencyAt is service i's expected latency at minute t with the fault.
func (m *fleetModel) latencyAt(i int, t float64, memo map[int]float64) float64 {
	if t < fleetInject || m.level[i] > m.level[m.fault] {
		return m.lat[i]
	}
	if v, ok := memo[i]; ok {
		return v
	}
	l := m.own[i] + m.slow(i, t)
	for _, c := range m.callees[i] {
		l += m.q[m.level[i]] * m.latencyAt(c, t, memo)
	}
	memo[i] = l
	return l
}

// GenerateFleet writes fleet fl into dir (created): Jaeger trace files,
// Prometheus query_range files, alert.json and label.json. The output is a
// pure function of fl.
func GenerateFleet(dir string, fl Fleet) error {
	if fl.Services < 10 {
		return fmt.Errorf("bench fleet %s: want at least 10 services", fl.Name)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	m := newFleet(fl.Services)
	if err := m.writeTraces(dir); err != nil {
		return fmt.Errorf("bench fleet %s: %w", fl.Name, err)
	}
	if err := m.writeMetrics(dir); err != nil {
		return fmt.Errorf("bench fleet %s: %w", fl.Name, err)
	}
	if err := m.writeAlertLabel(dir); err != nil {
		return fmt.Errorf("bench fleet %s: %w", fl.Name, err)
	}
	return nil
}

// CachedFleet returns the directory of fleet fl under root, generating it
// first when it is missing or incomplete.
func CachedFleet(root string, fl Fleet) (string, error) {
	dir := filepath.Join(root, fl.Name)
	marker := filepath.Join(dir, ".complete")
	if _, err := os.Stat(marker); err == nil {
		return dir, nil
	}
	if err := os.RemoveAll(dir); err != nil {
		return "", err
	}
	if err := GenerateFleet(dir, fl); err != nil {
		return "", err
	}
	return dir, os.WriteFile(marker, nil, 0o644)
}

func (m *fleetModel) at(minute float64) time.Time {
	return m.start.Add(time.Duration(minute * float64(time.Minute)))
}

// writeTraces writes one trace per service, started at the entry service
// at a uniform time over the hour: each span calls each callee with the
// level's probability, sequentially after a share of its own work.
func (m *fleetModel) writeTraces(dir string) error {
	n := len(m.names)
	per := (n + fleetTraceFiles - 1) / fleetTraceFiles
	for f := 0; f < fleetTraceFiles; f++ {
		lo, hi := f*per, min((f+1)*per, n)
		if lo >= hi {
			break
		}
		out, err := os.Create(filepath.Join(dir, fmt.Sprintf("traces-%02d.json", f)))
		if err != nil {
			return err
		}
		w := bufio.NewWriterSize(out, 1<<20)
		w.WriteString(`{"data":[`)
		for t := lo; t < hi; t++ {
			if t > lo {
				w.WriteByte(',')
			}
			w.WriteByte('\n')
			m.trace(w, float64(fleetPoints)*m.r.Float64())
		}
		w.WriteString("\n],\"total\":0,\"limit\":0,\"offset\":0,\"errors\":null}\n")
		if err := w.Flush(); err != nil {
			out.Close()
			return err
		}
		if err := out.Close(); err != nil {
			return err
		}
	}
	return nil
}

type fleetSpan struct {
	id, parent uint64
	svc, pod   int
	start, dur int64 // µs
}

// trace writes one trace starting at minute t.
func (m *fleetModel) trace(w *bufio.Writer, t float64) {
	var spans []fleetSpan
	var visit func(svc int, parent uint64, start int64) int64
	visit = func(svc int, parent uint64, start int64) int64 {
		k := len(spans)
		spans = append(spans, fleetSpan{id: m.r.Uint64() | 1, parent: parent, svc: svc, pod: m.r.IntN(fleetPods), start: start})
		own := (m.own[svc] + m.slow(svc, t)) * math.Exp(0.3*m.r.NormFloat64())
		cur := start + int64(own*0.3e6)
		for _, c := range m.callees[svc] {
			if m.r.Float64() < m.q[m.level[svc]] {
				cur += visit(c, spans[k].id, cur) + 50
			}
		}
		end := cur + int64(own*0.7e6)
		spans[k].dur = max(end-start, 1)
		return spans[k].dur
	}
	t0 := m.at(t).UnixMicro()
	visit(0, 0, t0)
	tid := fmt.Sprintf("%016x%016x", m.r.Uint64(), m.r.Uint64())
	procs := map[[2]int]int{}
	var order [][2]int
	for _, s := range spans {
		k := [2]int{s.svc, s.pod}
		if _, ok := procs[k]; !ok {
			procs[k] = len(order) + 1
			order = append(order, k)
		}
	}
	b := w.AvailableBuffer()
	b = append(b, `{"traceID":"`...)
	b = append(b, tid...)
	b = append(b, `","spans":[`...)
	for i, s := range spans {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"traceID":"`...)
		b = append(b, tid...)
		b = append(b, `","spanID":"`...)
		b = appendHex16(b, s.id)
		b = append(b, `","flags":1,"operationName":"`...)
		b = append(b, m.names[s.svc]...)
		b = append(b, `/Handle","references":[`...)
		if s.parent != 0 {
			b = append(b, `{"refType":"CHILD_OF","traceID":"`...)
			b = append(b, tid...)
			b = append(b, `","spanID":"`...)
			b = appendHex16(b, s.parent)
			b = append(b, `"}`...)
		}
		b = append(b, `],"startTime":`...)
		b = strconv.AppendInt(b, s.start, 10)
		b = append(b, `,"duration":`...)
		b = strconv.AppendInt(b, s.dur, 10)
		b = append(b, `,"tags":[{"key":"span.kind","type":"string","value":"server"}],"logs":[],"processID":"p`...)
		b = strconv.AppendInt(b, int64(procs[[2]int{s.svc, s.pod}]), 10)
		b = append(b, `","warnings":null}`...)
	}
	b = append(b, `],"processes":{`...)
	for i, k := range order {
		if i > 0 {
			b = append(b, ',')
		}
		pod, host := m.pods[k[0]][k[1]], m.host[k[0]][k[1]]
		b = append(b, `"p`...)
		b = strconv.AppendInt(b, int64(i+1), 10)
		b = append(b, `":{"serviceName":"`...)
		b = append(b, m.names[k[0]]...)
		b = append(b, `","tags":[{"key":"hostname","type":"string","value":"`...)
		b = append(b, pod...)
		b = append(b, `"},{"key":"k8s.namespace.name","type":"string","value":"`+fleetNamespace+`"},{"key":"k8s.pod.name","type":"string","value":"`...)
		b = append(b, pod...)
		b = append(b, `"},{"key":"k8s.node.name","type":"string","value":"`...)
		b = append(b, host...)
		b = append(b, `"}]}`...)
	}
	b = append(b, `},"warnings":null}`...)
	w.Write(b)
}

func appendHex16(b []byte, v uint64) []byte {
	const digits = "0123456789abcdef"
	for s := 60; s >= 0; s -= 4 {
		b = append(b, digits[v>>uint(s)&15])
	}
	return b
}

// fleetMetric is one per-pod metric: its recording-rule name and value at
// minute t for service i's pod p (noise added by the writer).
type fleetMetric struct {
	name  string
	value func(m *fleetModel, i, p int, t float64, lat float64) float64
	noise float64 // relative
}

var fleetMetrics = []fleetMetric{
	{"pod:container_cpu_usage:rate1m", func(m *fleetModel, i, p int, t, lat float64) float64 {
		v := 0.05 + 2*m.own[i]
		if t >= fleetInject && (i == m.fault && p == 0 || m.distr[i] == 0 && m.isDistractor(i)) {
			v *= 3
		}
		return v
	}, 0.05},
	{"pod:container_memory_working_set_bytes", func(m *fleetModel, i, p int, t, lat float64) float64 {
		v := 2e8 + 1e10*m.own[i]
		if t >= fleetInject && m.distr[i] == 1 && m.isDistractor(i) {
			v *= 1.8
		}
		return v
	}, 0.02},
	{"pod:requests:rate1m", func(m *fleetModel, i, p int, t, lat float64) float64 { return 1 + 50/float64(1+m.level[i]) }, 0.05},
	{"pod:request_duration_seconds:p99", func(m *fleetModel, i, p int, t, lat float64) float64 { return 2.5 * lat }, 0.08},
	{"pod:container_network_receive_bytes:rate1m", func(m *fleetModel, i, p int, t, lat float64) float64 {
		return 1e4 + 1e6/float64(1+m.level[i])
	}, 0.05},
}

func (m *fleetModel) isDistractor(i int) bool { _, ok := m.distr[i]; return ok }

// writeMetrics writes one query_range file per metric: the five per-pod
// metrics of every pod, and the entry service's p90 latency and success
// ratio (what its alert watches).
func (m *fleetModel) writeMetrics(dir string) error {
	lat := make([][]float64, fleetPoints) // per minute, per service
	for t := range lat {
		memo := map[int]float64{}
		lat[t] = make([]float64, len(m.names))
		for i := range m.names {
			lat[t][i] = m.latencyAt(i, float64(t), memo)
		}
	}
	for _, fm := range fleetMetrics {
		err := m.writeMatrix(filepath.Join(dir, "metrics_"+fileSafe(fm.name)+".json"), func(emit func(labels [][2]string, v func(t int) float64)) {
			for i, svc := range m.names {
				for p, pod := range m.pods[i] {
					labels := [][2]string{{"__name__", fm.name}, {"container", svc}, {"namespace", fleetNamespace}, {"node", m.host[i][p]}, {"pod", pod}}
					emit(labels, func(t int) float64 {
						return fm.value(m, i, p, float64(t), lat[t][i]) * (1 + fm.noise*m.r.NormFloat64())
					})
				}
			}
		})
		if err != nil {
			return err
		}
	}
	svc := func(name string, v func(t int) float64) error {
		return m.writeMatrix(filepath.Join(dir, "metrics_"+fileSafe(name)+".json"), func(emit func([][2]string, func(int) float64)) {
			emit([][2]string{{"__name__", name}, {"namespace", fleetNamespace}, {"service", m.names[0]}}, v)
		})
	}
	if err := svc("service:request_duration_seconds:p90", func(t int) float64 { return 2 * lat[t][0] * (1 + 0.05*m.r.NormFloat64()) }); err != nil {
		return err
	}
	return svc("service:request_success:ratio", func(t int) float64 { return math.Min(1, 0.999+0.001*m.r.NormFloat64()) })
}

// fileSafe is a recording-rule name as a file name (':' → '_').
func fileSafe(name string) string { return strings.ReplaceAll(name, ":", "_") }

// writeMatrix writes one Prometheus query_range matrix response.
func (m *fleetModel) writeMatrix(path string, each func(emit func(labels [][2]string, v func(t int) float64))) error {
	out, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(out, 1<<20)
	w.WriteString(`{"status":"success","data":{"resultType":"matrix","result":[`)
	first := true
	each(func(labels [][2]string, v func(t int) float64) {
		b := w.AvailableBuffer()
		if !first {
			b = append(b, ',')
		}
		first = false
		b = append(b, `{"metric":{`...)
		for k, l := range labels {
			if k > 0 {
				b = append(b, ',')
			}
			b = strconv.AppendQuote(b, l[0])
			b = append(b, ':')
			b = strconv.AppendQuote(b, l[1])
		}
		b = append(b, `},"values":[`...)
		for t := 0; t < fleetPoints; t++ {
			if t > 0 {
				b = append(b, ',')
			}
			b = append(b, '[')
			b = strconv.AppendInt(b, m.at(float64(t)).Add(fleetStep).Unix(), 10)
			b = append(b, `,"`...)
			b = strconv.AppendFloat(b, math.Max(0, v(t)), 'g', 6, 64)
			b = append(b, `"]`...)
		}
		b = append(b, "]}"...)
		w.Write(b)
	})
	w.WriteString("]}}\n")
	if err := w.Flush(); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// writeAlertLabel writes the entry service's latency alert (two minutes
// after the fault) and the fault's label.
func (m *fleetModel) writeAlertLabel(dir string) error {
	labels := map[string]string{"alertname": "HighRequestLatency", "severity": "page", "service": m.names[0], "namespace": fleetNamespace}
	ann := map[string]string{"summary": "p90 latency above SLO"}
	alert := map[string]any{"version": "4", "status": "firing", "receiver": "oncall-pager",
		"groupLabels": map[string]string{"alertname": "HighRequestLatency"}, "commonLabels": labels, "commonAnnotations": ann,
		"alerts": []map[string]any{{"status": "firing", "labels": labels, "annotations": ann,
			"startsAt": m.at(fleetInject + 2).Format(time.RFC3339), "endsAt": "0001-01-01T00:00:00Z", "fingerprint": "f1ee7000f1ee7000"}}}
	label := map[string]any{"root_cause": map[string]string{"service": m.names[m.fault], "component": m.pods[m.fault][0], "signal": "latency"},
		"fault": "service_slow", "inject_time": m.at(fleetInject).Format(time.RFC3339), "source": "bench fleet"}
	for name, v := range map[string]any{"alert.json": alert, "label.json": label} {
		b, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, name), append(b, '\n'), 0o644); err != nil {
			return err
		}
	}
	return nil
}
