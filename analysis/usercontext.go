package analysis

import (
	"fmt"
	"strings"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/tcg"
)

// The checks of what a tired user's context may get wrong: an input that
// holds nothing, an --at far from the alert that paged, an alert that is
// stale or about another incident. What cannot be analysed is refused in
// one line that says what to do; what can is analysed with a note (on
// stderr and as a footnote of the card).

// emptyInputError is the error for inputs that hold no file: what the
// tool reads and how to get it.
func emptyInputError(shown []string) error {
	where := strings.Join(shown, " ")
	if where == "" {
		where = "the input"
	}
	return fmt.Errorf("no input files in %s: give traces (Jaeger/OTLP JSON), Prometheus query_range JSON, logs, nvidia-smi CSV, "+
		"kubectl get events -o json and the alert payload, or fetch live with --prometheus-url/--jaeger-url (docs/formats.md)", where)
}

// farFromAlert is how far --at may be from the firing alert's startsAt,
// in incident windows, before the card says the analysis is not about
// what paged.
const farFromAlert = 1

// alertNotes are the notes on the alerts against the flags and the data:
//   - --at more than a window from the firing alert's startsAt: the card
//     explains another moment than the one that paged;
//   - only resolved alerts: none is followed, and the time comes from the
//     data;
//   - the followed alert names a service the data does not hold (an alert
//     of another incident, or data fetched for another system).
func alertNotes(b *ingest.Bundle, inc tcg.Incident, atGiven bool, window time.Duration) []string {
	var notes []string
	if window <= 0 {
		window = tcg.DefaultWindow
	}
	if a := inc.Alert; a != nil && atGiven && a.StartsAt != 0 {
		if d := inc.At.Sub(a.StartsAt); d > farFromAlert*window || -d > farFromAlert*window {
			rel := "after"
			if d < 0 {
				rel, d = "before", -d
			}
			notes = append(notes, fmt.Sprintf("--at %s is %s %s the firing alert %s (startsAt %s): the card explains the target at --at, not the moment that paged; drop --at to follow the alert",
				inc.At, d.Round(time.Second), rel, a.Name, a.StartsAt))
		}
	}
	for _, in := range b.Inputs {
		if in.Skipped && in.Format == ingest.FormatAlertmanager && inc.Alert == nil {
			notes = append(notes, fmt.Sprintf("the alert payload %s was left out: %s — a stale alert, or another incident's; the target and the time come from the flags or the data, not from what paged",
				in.Path, in.Error))
		}
	}
	if inc.Alert == nil && len(b.Alerts) > 0 {
		a := b.Alerts[0]
		status := a.Status
		if status == "" {
			status = "not firing"
		}
		end := ""
		if a.EndsAt != 0 {
			end = ", endsAt " + a.EndsAt.String()
		}
		notes = append(notes, fmt.Sprintf("the alert payload holds %d alerts and none is firing (%s: %s%s): no alert is followed; the incident time and target come from the flags or the data",
			len(b.Alerts), a.Name, status, end))
	}
	if a := inc.Alert; a != nil && a.Service != "" && inc.TargetChosenBy != "--target flag" {
		found := false
		for _, s := range services(b) {
			found = found || s == a.Service
		}
		if !found {
			notes = append(notes, fmt.Sprintf("the alert %s names service %s, which the data does not hold: the alert may belong to another incident, or the data to another system",
				a.Name, a.Service))
		}
	}
	return notes
}
