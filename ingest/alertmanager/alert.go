package alertmanager

import (
	"bytes"
	"encoding/json"
	"io"
	"net/url"
	"strings"
	"time"
	"unicode"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
)

// amAlert is one alert of an Alertmanager webhook payload or of the
// /api/v2/alerts answer (where status is an object {"state": ...}).
type amAlert struct {
	Status       json.RawMessage   `json:"status"`
	Labels       map[string]string `json:"labels"`
	Annotations  map[string]string `json:"annotations"`
	StartsAt     string            `json:"startsAt"`
	EndsAt       string            `json:"endsAt"`
	GeneratorURL string            `json:"generatorURL"`
}

// decodeAlertmanager reads an Alertmanager webhook payload
// {"version":"4","status":"firing","alerts":[...]} or a bare array of alerts
// (Alertmanager /api/v2/alerts) into Bundle.Alerts, in input order.
//
// Name is the alertname label; Summary the summary annotation (else
// description, else message); Service the first of the service,
// service_name, job, app, app_kubernetes_io_name, destination_workload
// labels, or the workload of a pod label; Signal and Stat are derived from
// the alert name and annotations (alertSignal). An alert whose startsAt
// cannot be parsed is kept with a zero time and an ErrBadValue warning.
func decodeAlertmanager(name string, r io.Reader, lim ingest.Limits) (*ingest.Bundle, error) {
	dec := json.NewDecoder(r)
	var raw json.RawMessage
	if err := dec.Decode(&raw); err != nil {
		return nil, ingest.JSONError(name, err, dec)
	}
	raw = bytes.TrimSpace(raw)
	lim = lim.WithDefaults()
	// Alerts are split as raw elements first and only the first
	// lim.MaxEvents decoded: a flood of tiny alerts costs far more decoded
	// than as text.
	var elems []json.RawMessage
	groupStatus := ""
	if len(raw) > 0 && raw[0] == '{' {
		var p struct {
			Status string            `json:"status"`
			Alerts []json.RawMessage `json:"alerts"`
		}
		if err := json.Unmarshal(raw, &p); err != nil {
			return nil, ingest.JSONError(name, err, nil)
		}
		elems, groupStatus = p.Alerts, p.Status
	} else if err := json.Unmarshal(raw, &elems); err != nil {
		return nil, ingest.JSONError(name, err, nil)
	}
	b := &ingest.Bundle{}
	if n := len(elems); n > lim.MaxEvents {
		b.Warn(ingest.ErrLimit, name, n-lim.MaxEvents, "%d of %d alerts dropped: more than %d (--max-events)", n-lim.MaxEvents, n, lim.MaxEvents)
		elems = elems[:lim.MaxEvents]
	}
	alerts := make([]amAlert, len(elems))
	for i, e := range elems {
		if err := json.Unmarshal(e, &alerts[i]); err != nil {
			return nil, ingest.JSONError(name, err, nil)
		}
	}
	elems = nil
	badTimes := 0
	for _, a := range alerts {
		al := ingest.Alert{
			Name:    a.Labels["alertname"],
			Status:  alertStatus(a.Status, groupStatus),
			Summary: ingest.FirstNonEmpty(a.Annotations["summary"], a.Annotations["description"], a.Annotations["message"]),
			Source:  name,
			// Prometheus' convention for an alert's runbook (kube-prometheus
			// rules set it on every alert).
			RunbookURL: ingest.FirstNonEmpty(a.Annotations["runbook_url"], a.Annotations["runbook"]),
			Expr:       generatorExpr(a.GeneratorURL),
		}
		if t, ok := parseAlertTime(a.EndsAt); ok && t > 0 {
			al.EndsAt = t
		}
		for k, v := range a.Labels {
			al.Labels = append(al.Labels, ingest.Label{Name: k, Value: v})
		}
		ingest.SortLabels(al.Labels)
		al.Service = alertService(al.Labels)
		if t, ok := parseAlertTime(a.StartsAt); ok {
			al.StartsAt = t
		} else {
			badTimes++
		}
		al.Signal, al.Stat = alertSignal(al.Name + " " + al.Summary + " " + a.Annotations["description"])
		b.Alerts = append(b.Alerts, al)
	}
	if badTimes > 0 {
		b.Warn(ingest.ErrBadValue, name, badTimes, "%d alerts without a valid startsAt", badTimes)
	}
	return b, nil
}

// alertStatus reads a status string, or the v2 {"state": "active"} object
// (active, suppressed and unprocessed alerts are firing).
func alertStatus(raw json.RawMessage, group string) string {
	raw = bytes.TrimSpace(raw)
	var s string
	if len(raw) > 0 && raw[0] == '"' {
		json.Unmarshal(raw, &s)
	} else if len(raw) > 0 && raw[0] == '{' {
		var st struct {
			State string `json:"state"`
		}
		json.Unmarshal(raw, &st)
		switch st.State {
		case "active", "suppressed", "unprocessed":
			s = "firing"
		default:
			s = st.State
		}
	}
	if s == "" {
		s = group
	}
	return s
}

// parseAlertTime parses RFC3339 (nanosecond) times; Go's zero time
// "0001-01-01T00:00:00Z" and "" give ok=false.
func parseAlertTime(s string) (ingest.Time, bool) {
	t, err := time.Parse(time.RFC3339Nano, strings.TrimSpace(s))
	if err != nil || t.Year() <= 1 {
		return 0, false
	}
	return ingest.FromTime(t), true
}

// alertService is the service an alert names, from its labels.
func alertService(ls ingest.Labels) string {
	if v := ingest.FirstLabel(ls, "service", "service_name", "job", "app", "app_kubernetes_io_name", "destination_workload",
		"deployment", "statefulset", "workload"); v != "" {
		return v
	}
	if p := ingest.FirstLabel(ls, "pod", "exported_pod"); p != "" {
		return ingest.WorkloadOf(p)
	}
	return ""
}

// splitCamel turns "HighRequestLatency" into "High Request Latency" and
// "KVCacheFull" into "KV Cache Full", so the keyword rules see words.
func splitCamel(s string) string {
	rs := []rune(s)
	var sb strings.Builder
	for i, r := range rs {
		if i > 0 && unicode.IsUpper(r) {
			prev := rs[i-1]
			nextLower := i+1 < len(rs) && unicode.IsLower(rs[i+1])
			if unicode.IsLower(prev) || unicode.IsDigit(prev) || unicode.IsUpper(prev) && nextLower {
				sb.WriteByte(' ')
			}
		}
		sb.WriteRune(r)
	}
	return sb.String()
}

// alertKeywords map words of an alert's name and text to a signal, most
// specific first. Words are matched on the lowercased, camel-split text with
// separators folded to single spaces and padded by spaces.
var alertKeywords = []struct {
	kind  ingest.SignalKind
	words []string
}{
	{ingest.SignalXID, []string{" xid", " ecc "}},
	{ingest.SignalKVCache, []string{"kv cache", "kvcache", " cache usage", "preempt"}},
	{ingest.SignalLatency, []string{" ttft ", "time to first token", " tpot ", " itl ", "inter token", "time per output token", "latency", " slow", "duration", "response time"}},
	{ingest.SignalErrors, []string{" error", " 5xx", " fail", "success rate", "success ratio", "availability", " slo burn", " errors "}},
	{ingest.SignalGPUThrottle, []string{"throttle reason", "clock event", "clocks event"}},
	{ingest.SignalQueue, []string{" queue", " waiting", " pending", " backlog"}},
	{ingest.SignalRestarts, []string{"restart", "crash loop", "crashloop"}},
	{ingest.SignalCPUThrottle, []string{"cpu throttl", "throttling"}},
	{ingest.SignalGPUUtil, []string{"gpu util", "gpu busy", "sm active"}},
	{ingest.SignalGPUMemory, []string{"gpu memory", "framebuffer", " fb "}},
	{ingest.SignalCPU, []string{" cpu"}},
	{ingest.SignalMemory, []string{" memory", " oom", " mem "}},
	{ingest.SignalDiskIO, []string{" disk", " iops", " filesystem"}},
	{ingest.SignalNetwork, []string{" network", " packet", " bandwidth"}},
	{ingest.SignalTemperature, []string{"temperature", "thermal", " overheat"}},
	{ingest.SignalPower, []string{" power"}},
	{ingest.SignalGPUClock, []string{" clock"}},
	{ingest.SignalNVLink, []string{"nvlink"}},
	{ingest.SignalTraffic, []string{" traffic", "request rate", " qps", " rps", "throughput"}},
}

// alertSignal derives the signal kind and quantile stat from an alert's
// name and annotations: "HighRequestLatency"/"p90 latency above SLO" →
// (latency, "p90"); "TTFT too high" → latency; "HighErrorRate" → errors;
// "KVCacheAlmostFull" → kv_cache.
func alertSignal(text string) (ingest.SignalKind, string) {
	lower := strings.ToLower(splitCamel(text))
	var sb strings.Builder
	sb.WriteByte(' ')
	space := true
	for _, r := range lower {
		if unicode.IsLetter(r) || unicode.IsDigit(r) || r == '.' {
			sb.WriteRune(r)
			space = false
		} else if !space {
			sb.WriteByte(' ')
			space = true
		}
	}
	sb.WriteByte(' ')
	t := sb.String()
	kind := ingest.SignalOther
	for _, k := range alertKeywords {
		for _, w := range k.words {
			if strings.Contains(t, w) {
				kind = k.kind
				break
			}
		}
		if kind != ingest.SignalOther {
			break
		}
	}
	stat := ""
	for _, f := range strings.Fields(t) {
		if len(f) >= 3 && len(f) <= 5 && f[0] == 'p' && ingest.IsDigits(f[1:]) {
			stat = f
			break
		}
		if strings.HasSuffix(f, "th") && ingest.IsDigits(strings.TrimSuffix(f, "th")) && strings.Contains(t, f+" percentile") {
			stat = "p" + strings.TrimSuffix(f, "th")
			break
		}
	}
	return kind, stat
}

func init() {
	ingest.RegisterFormat(ingest.FormatSpec{Format: ingest.FormatAlertmanager, Decode: decodeAlertmanager, WholeDocument: true,
		Sniff: []ingest.SniffRule{{Priority: ingest.PriorityAlertmanager, Match: func(h *ingest.Head) bool {
			return h.JSON() && (h.Has("alerts") && (h.Has("startsAt") || h.Has("groupKey") || h.Has("receiver")) ||
				h.Text[0] == '[' && h.Has("startsAt") && h.Has("labels") && h.Has("fingerprint")) // Alertmanager /api/v2/alerts
		}}}})
}

// generatorExpr is the PromQL expression of an alert's generator URL
// (Prometheus links its alerts to /graph?g0.expr=EXPR&g0.tab=1), "" when
// the URL carries none or does not parse.
func generatorExpr(raw string) string {
	if raw == "" {
		return ""
	}
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(u.Query().Get("g0.expr"))
}
