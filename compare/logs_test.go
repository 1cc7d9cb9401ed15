package compare

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/compare/model"
	"github.com/pipeline-analyze/pipeline-analyze/features"
	"github.com/pipeline-analyze/pipeline-analyze/ingest"
)

// withLogs adds the backend's log records to a built synthetic bundle: an
// info template at about 3/s throughout and an error template at about
// 0.1/s, errPerSec from minute faultAt on (faultAt < 0: never).
func withLogs(b *ingest.Bundle, seed uint64, minutes, faultAt int, errPerSec float64) {
	r := rand.New(rand.NewPCG(seed, 11))
	b.LogStreams = []ingest.LogStream{{Service: "backend", Pod: "backend-5d8f7c9b4-x2kq9", EntityFrom: "labels", Source: "logs.json"}}
	b.LogTemplates = []ingest.LogTemplate{
		{Pattern: "ERROR db timeout after <NUM> ms", Group: "backend", Severities: [7]int{ingest.SeverityError: 1}},
		{Pattern: "INFO handled request <*>", Group: "backend", Severities: [7]int{ingest.SeverityInfo: 1}},
	}
	type ev struct {
		t   ingest.Time
		tpl int32
	}
	var evs []ev
	emit := func(tpl int32, rate func(m float64) float64) {
		for ts := at(0); ts < at(float64(minutes)); {
			m := float64(ts-at(0)) / float64(time.Minute)
			ts = ts.Add(time.Duration(r.ExpFloat64() / rate(m) * float64(time.Second)))
			evs = append(evs, ev{ts, tpl})
		}
	}
	emit(0, func(m float64) float64 {
		if faultAt >= 0 && m >= float64(faultAt) {
			return errPerSec
		}
		return 0.1
	})
	emit(1, func(float64) float64 { return 3 })
	// Merge in time order (each template's events are already sorted).
	for i := 1; i < len(evs); i++ {
		for j := i; j > 0 && evs[j].t < evs[j-1].t; j-- {
			evs[j], evs[j-1] = evs[j-1], evs[j]
		}
	}
	for _, e := range evs {
		if e.t >= at(float64(minutes)) {
			continue
		}
		sev := ingest.SeverityInfo
		if e.tpl == 0 {
			sev = ingest.SeverityError
		}
		b.Logs = append(b.Logs, ingest.LogRecord{Time: e.t, Stream: 0, Template: e.tpl, Severity: sev})
	}
}

func templateItems(rep *model.Report) map[string]model.Item {
	out := map[string]model.Item{}
	for _, it := range rep.Items {
		if it.Facet == "template" {
			out[it.Series] = it
		}
	}
	return out
}

// TestLogTemplates: each mined template is compared as a rate. An
// error template that becomes frequent regresses; the steady info template is unchanged; two healthy windows
// change nothing; after the fix the error template is fixed or improved.
func TestLogTemplates(t *testing.T) {
	const errTpl, infoTpl = "ERROR db timeout after <NUM> ms", "INFO handled request <*>"
	sp := defaultSynth()
	sp.faultAt = 22
	b := sp.build(t)
	withLogs(b, 3, sp.minutes, 22, 2)
	run := func(bb, ab *ingest.Bundle, b0, b1, a0, a1 float64) *model.Report {
		t.Helper()
		opt := DefaultOptions()
		rep, err := Run(Side{Bundle: bb, Start: at(b0), End: at(b1), ChosenBy: "test"}, Side{Bundle: ab, Start: at(a0), End: at(a1), ChosenBy: "test"}, opt)
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}

	rep := run(b, b, 15, 20, 25, 30)
	items := templateItems(rep)
	e, i := items[errTpl], items[infoTpl]
	if e.Verdict != model.Regressed || e.Direction != +1 || e.Kind != model.KindRate || e.Test.RateRatio < 5 {
		t.Errorf("error template: %s (dir %d, ×%.2f): %s", e.Verdict, e.Direction, e.Test.RateRatio, e.Reason)
	}
	if i.Verdict != model.Unchanged || i.Direction != 0 {
		t.Errorf("info template: %s (dir %d): %s", i.Verdict, i.Direction, i.Reason)
	}
	for id, it := range templateItems(run(b, b, 5, 10, 15, 20)) {
		if it.Verdict != model.Unchanged && it.Verdict != model.Insufficient {
			t.Errorf("two healthy windows: %s %s: %s", id, it.Verdict, it.Reason)
		}
	}

	fixed := defaultSynth().build(t)
	withLogs(fixed, 4, sp.minutes, -1, 0)
	e = templateItems(run(b, fixed, 23, 28, 25, 30))[errTpl]
	if e.Verdict != model.Fixed && e.Verdict != model.Improved {
		t.Errorf("after the fix, the error template: %s: %s", e.Verdict, e.Reason)
	}
}

// TestLogCollectionGaps: a log source that collected one 15 s step of the
// baseline, one in eight of BEFORE and every step of AFTER (a sparsely
// logged baseline, as Nezha's) counts 0 records per step in the gaps. The derived log counts leave
// those steps out, so the steady service's record count is not a
// regression; its templates (rates over the seconds that held any record)
// are unchanged too.
func TestLogCollectionGaps(t *testing.T) {
	b := defaultSynth().build(t)
	withLogs(b, 5, 30, -1, 0)
	b.Logs = slices.DeleteFunc(b.Logs, func(r ingest.LogRecord) bool {
		off := time.Duration(r.Time - at(0))
		switch {
		case r.Time < at(15): // the baseline: one step
			return off < 5*time.Minute || off >= 5*time.Minute+15*time.Second
		case r.Time < at(20): // BEFORE: one step in eight
			return off%(2*time.Minute) >= 15*time.Second
		}
		return false
	})
	features.DeriveLogSeries(b, b.Grid[0], at(15), features.Options{})
	counts := 0
	for _, s := range b.Series {
		if s.Name == ingest.LogRecords {
			counts++
		}
	}
	if counts == 0 {
		t.Fatal("no derived log_records series")
	}
	rep, err := Run(Side{Bundle: b, Start: at(15), End: at(20), ChosenBy: "test"}, Side{Bundle: b, Start: at(20), End: at(25), ChosenBy: "test"}, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range rep.Items {
		if it.Signal == "logs" && it.Verdict != model.Unchanged && it.Verdict != model.Insufficient {
			t.Errorf("%s: %s: %s", it.ID, it.Verdict, it.Reason)
		}
	}
}
