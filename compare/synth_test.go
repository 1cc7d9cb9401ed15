package compare

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/compare/model"
	"github.com/pipeline-analyze/pipeline-analyze/features"
	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/tcg"
)

// synth describes a small deterministic system for the tests: a gateway
// calling a backend that calls a database, traced, plus the backend pod's
// CPU series. From minute faultAt (when ≥ 0) the backend's own work is slow×
// slower, 15% of its requests fail and its CPU saturates.
type synth struct {
	seed              uint64
	minutes           int
	faultAt           int
	slow              float64
	gateway, backend  string
	db, pod           string
	rate              float64 // requests per second
	opPrefix          string  // prepended to operation names
	startMinuteOffset int
}

func defaultSynth() synth {
	return synth{seed: 1, minutes: 30, faultAt: -1, slow: 4, gateway: "gateway", backend: "backend", db: "db",
		pod: "backend-5d8f7c9b4-x2kq9", rate: 4}
}

// t0 is the synthetic data's start: 2026-11-30T02:00:00Z.
var t0 = ingest.FromTime(time.Date(2026, 11, 30, 2, 0, 0, 0, time.UTC))

// at returns t0 plus m minutes.
func at(m float64) ingest.Time { return t0.Add(time.Duration(m * float64(time.Minute))) }

// build generates the bundle, finalized at a 15 s step.
func (s synth) build(tb testing.TB) *ingest.Bundle {
	tb.Helper()
	r := rand.New(rand.NewPCG(s.seed, 7))
	b := &ingest.Bundle{}
	start := at(float64(s.startMinuteOffset))
	end := start.Add(time.Duration(s.minutes) * time.Minute)
	faultAt := ingest.Time(math.MaxInt64)
	if s.faultAt >= 0 {
		faultAt = start.Add(time.Duration(s.faultAt) * time.Minute)
	}
	var id uint64
	next := func() ingest.SpanID { id++; return ingest.SpanID(id) }
	lognorm := func(median, sigma float64) time.Duration {
		return time.Duration(median * math.Exp(sigma*r.NormFloat64()) * float64(time.Second))
	}
	src := "synthetic"
	for ts := start; ts < end; ts = ts.Add(time.Duration(r.ExpFloat64() / s.rate * float64(time.Second))) {
		faulty := ts >= faultAt
		trace := ingest.TraceID{High: s.seed, Low: uint64(ts)}
		dbDur := lognorm(0.004, 0.3)
		beSelf := lognorm(0.020, 0.4)
		if faulty {
			beSelf = time.Duration(float64(beSelf) * s.slow)
		}
		beErr := r.Float64() < 0.01 || faulty && r.Float64() < 0.15
		beDur := beSelf + dbDur + 2*time.Millisecond
		gwDur := beDur + lognorm(0.005, 0.3) + 3*time.Millisecond
		root, gwClient, be, beClient, dbSpan := next(), next(), next(), next(), next()
		op := s.opPrefix + "GET /api"
		if r.IntN(3) == 0 {
			op = s.opPrefix + "POST /api/order"
		}
		b.Spans = append(b.Spans,
			ingest.Span{TraceID: trace, SpanID: root, Service: ingest.Intern(s.gateway), Operation: ingest.Intern(op), Kind: ingest.SpanServer, Start: ts, Duration: gwDur, Error: beErr, Source: ingest.Intern(src)},
			ingest.Span{TraceID: trace, SpanID: gwClient, ParentID: root, Service: ingest.Intern(s.gateway), Operation: ingest.Intern("call " + s.backend), Kind: ingest.SpanClient, Start: ts.Add(time.Millisecond), Duration: beDur + time.Millisecond, Error: beErr, Source: ingest.Intern(src)},
			ingest.Span{TraceID: trace, SpanID: be, ParentID: gwClient, Service: ingest.Intern(s.backend), Operation: ingest.Intern("handle"), Kind: ingest.SpanServer, Start: ts.Add(1500 * time.Microsecond), Duration: beDur, Error: beErr, Pod: ingest.Intern(s.pod), Source: ingest.Intern(src)},
			ingest.Span{TraceID: trace, SpanID: beClient, ParentID: be, Service: ingest.Intern(s.backend), Operation: ingest.Intern("query"), Kind: ingest.SpanClient, Start: ts.Add(2 * time.Millisecond), Duration: dbDur + 500*time.Microsecond, Pod: ingest.Intern(s.pod), Source: ingest.Intern(src)},
			ingest.Span{TraceID: trace, SpanID: dbSpan, ParentID: beClient, Service: ingest.Intern(s.db), Operation: ingest.Intern("SELECT"), Kind: ingest.SpanServer, Start: ts.Add(2200 * time.Microsecond), Duration: dbDur, Source: ingest.Intern(src)},
		)
	}
	slices.SortStableFunc(b.Spans, func(a, c ingest.Span) int {
		switch {
		case a.Start < c.Start:
			return -1
		case a.Start > c.Start:
			return 1
		}
		return 0
	})
	cpu := &ingest.Series{Name: "container_cpu_usage_seconds_rate", Labels: ingest.Labels{{Name: "container", Value: s.backend}, {Name: "pod", Value: s.pod}},
		Unit: "cores", Source: "metrics.json"}
	mem := &ingest.Series{Name: "container_memory_working_set_bytes", Labels: ingest.Labels{{Name: "container", Value: s.backend}, {Name: "pod", Value: s.pod}},
		Unit: "bytes", Source: "metrics.json"}
	for ts := start; ts < end; ts = ts.Add(15 * time.Second) {
		c := 0.3 + 0.02*r.NormFloat64()
		if ts >= faultAt {
			c = 0.95 + 0.01*r.NormFloat64()
		}
		cpu.T, cpu.V = append(cpu.T, ts), append(cpu.V, c)
		mem.T, mem.V = append(mem.T, ts), append(mem.V, 2e9+1e7*r.NormFloat64())
	}
	for _, se := range []*ingest.Series{cpu, mem} {
		ingest.ClassifySeries(se)
		b.Series = append(b.Series, se)
	}
	b.Inputs = []ingest.Input{{Path: "synthetic/traces.json", Format: ingest.FormatJaegerJSON, SHA256: "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff", Size: 1234},
		{Path: "synthetic/metrics.json", Format: ingest.FormatPromQueryRange, SHA256: "ffeeddccbbaa99887766554433221100ffeeddccbbaa99887766554433221100", Size: 567}}
	features.Finalize(b, ingest.Options{Step: 15 * time.Second}, features.Options{})
	return b
}

// fixedReport compares a synthetic incident's fault window with the same
// system after the fix (same seed, no fault).
func fixedReport(tb testing.TB) *model.Report {
	tb.Helper()
	inc := defaultSynth()
	inc.faultAt = 22
	fixed := defaultSynth()
	bi, bf := inc.build(tb), fixed.build(tb)
	opt := DefaultOptions()
	opt.Target = tcg.Target{Service: "gateway", Signal: ingest.SignalLatency, Stat: "p99"}
	opt.TargetChosenBy = "--target flag"
	opt.Causes = []Cause{{Rank: 1, Service: "backend", Component: "backend", ComponentKind: "service", Signal: "latency", Facet: "self", NodeID: "service/backend:latency/self"},
		{Rank: 2, Service: "backend", Component: "backend-5d8f7c9b4-x2kq9", ComponentKind: "pod", Signal: "cpu", NodeID: "pod/backend-5d8f7c9b4-x2kq9:cpu"}}
	opt.CausesFrom = "analysis of BEFORE (method tcg)"
	opt.Version = "0.1.0-test"
	opt.Args = []string{"--window", "5m", "incident/", "fixed/"}
	rep, err := Run(Side{Bundle: bi, Start: at(21), End: at(26), ChosenBy: "--before-at 2026-11-30T02:23:30Z", Paths: []string{"incident/"}},
		Side{Bundle: bf, Start: at(25), End: at(30), ChosenBy: "last 5m of the data", Paths: []string{"fixed/"}}, opt)
	if err != nil {
		tb.Fatal(err)
	}
	return rep
}

// regressedReport compares a healthy window with the fault window of the
// same synthetic data (a canary that went bad).
func regressedReport(tb testing.TB) *model.Report {
	tb.Helper()
	sp := defaultSynth()
	sp.faultAt = 22
	b := sp.build(tb)
	opt := DefaultOptions()
	opt.Version = "0.1.0-test"
	opt.Args = []string{"--before-at", "2026-11-30T02:17:30Z", "--after-at", "2026-11-30T02:27:30Z", "data/"}
	rep, err := Run(Side{Bundle: b, Start: at(15), End: at(20), ChosenBy: "--before-at 2026-11-30T02:17:30Z", Paths: []string{"data/"}},
		Side{Bundle: b, Start: at(25), End: at(30), ChosenBy: "--after-at 2026-11-30T02:27:30Z", Paths: []string{"data/"}}, opt)
	if err != nil {
		tb.Fatal(err)
	}
	return rep
}

// insufficientReport has an AFTER side whose data covers 40 s of its
// 5-minute window: everything is insufficient data.
func insufficientReport(tb testing.TB) *model.Report {
	tb.Helper()
	inc := defaultSynth()
	inc.faultAt = 22
	after := defaultSynth()
	after.minutes = 5
	after.startMinuteOffset = 40
	bi, ba := inc.build(tb), after.build(tb)
	opt := DefaultOptions()
	opt.Target = tcg.Target{Service: "gateway", Signal: ingest.SignalLatency}
	opt.Version = "0.1.0-test"
	rep, err := Run(Side{Bundle: bi, Start: at(21), End: at(26), ChosenBy: "--before-at", Paths: []string{"incident/"}},
		Side{Bundle: ba, Start: at(44.33), End: at(49.33), ChosenBy: "--after-at", Paths: []string{"after/"}}, opt)
	if err != nil {
		tb.Fatal(err)
	}
	return rep
}
