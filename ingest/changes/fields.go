package changes

import (
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
)

// field is one field of a change record.
type field uint8

// The fields of a change record.
const (
	fieldNone field = iota
	fieldTime
	fieldService
	fieldWhat
	fieldWho
	fieldKind
	fieldVersion
	numFields
)

// synonyms are the names each field goes by, normalised (normKey), in the
// order of preference when a record has several of them.
var synonyms = [numFields][]string{
	fieldTime: {"time", "timestamp", "ts", "at", "date", "datetime", "when",
		"createdat", "deployedat", "changedat", "committedat", "starttime", "startedat"},
	fieldService: {"service", "servicename", "app", "application", "component", "workload", "deployment"},
	fieldWhat:    {"what", "description", "desc", "message", "summary", "change", "title", "details"},
	fieldWho:     {"who", "author", "user", "by", "actor", "committer", "changedby", "deployedby", "username"},
	fieldKind:    {"kind", "type", "changetype", "category"},
	fieldVersion: {"version", "revision", "rev", "commit", "sha", "tag"},
}

// fieldOf maps a normalised name to its field and its rank among the
// field's synonyms (0 is preferred).
var fieldOf = func() map[string]struct {
	f    field
	rank int
} {
	m := map[string]struct {
		f    field
		rank int
	}{}
	for f, names := range synonyms {
		for i, n := range names {
			m[n] = struct {
				f    field
				rank int
			}{field(f), i}
		}
	}
	return m
}()

// normKey normalises a field name: lower case, without '_', '-', '.' and
// spaces ("Deployed_At" → "deployedat").
func normKey(k string) string {
	k = strings.ToLower(strings.TrimSpace(k))
	return strings.Map(func(r rune) rune {
		switch r {
		case '_', '-', '.', ' ', '\t':
			return -1
		}
		return r
	}, k)
}

// logKeys are names a structured log line has and a change record does
// not: a head whose first record has one is not change records.
var logKeys = map[string]bool{"level": true, "severity": true, "lvl": true, "loglevel": true, "msg": true, "log": true,
	"traceid": true, "spanid": true, "logger": true, "caller": true, "stacktrace": true, "stream": true}

// changeKeys are names only a change record has (who changed it, to which
// version): with a time and a service they make a head change records.
var changeKeys = map[string]bool{"what": true, "change": true, "who": true, "author": true, "committer": true, "by": true,
	"changedby": true, "deployedby": true, "actor": true, "version": true, "revision": true, "rev": true, "commit": true,
	"sha": true, "changetype": true, "deployedat": true, "changedat": true, "committedat": true}

// looksLikeRecord reports whether the (raw) names of a first record or a
// CSV header make change records: a time, a service, and a name only a
// change has (or a kind beside a description), and none of a log line's.
func looksLikeRecord(names []string) bool {
	var has [numFields]bool
	strong, kind := false, false
	for _, n := range names {
		k := normKey(n)
		if logKeys[k] {
			return false
		}
		if fo, ok := fieldOf[k]; ok {
			has[fo.f] = true
		}
		strong = strong || changeKeys[k]
		kind = kind || k == "kind" || k == "changetype"
	}
	return has[fieldTime] && has[fieldService] && (strong || kind && has[fieldWhat])
}

// kinds maps a normalised kind (or the first word of what changed) to the
// event kind and the reason the event carries.
var kinds = map[string]struct {
	kind   ingest.EventKind
	reason string
}{
	"deploy": {ingest.EventDeploy, "Deploy"}, "deployment": {ingest.EventDeploy, "Deploy"}, "deployed": {ingest.EventDeploy, "Deploy"},
	"rollout": {ingest.EventDeploy, "Deploy"}, "release": {ingest.EventDeploy, "Deploy"}, "upgrade": {ingest.EventDeploy, "Deploy"},
	"rollback": {ingest.EventDeploy, "Rollback"}, "revert": {ingest.EventDeploy, "Rollback"}, "undo": {ingest.EventDeploy, "Rollback"},
	"config": {ingest.EventConfig, "Config"}, "configuration": {ingest.EventConfig, "Config"}, "configchange": {ingest.EventConfig, "Config"},
	"configmap": {ingest.EventConfig, "Config"}, "secret": {ingest.EventConfig, "Config"}, "settings": {ingest.EventConfig, "Config"},
	"featureflag": {ingest.EventConfig, "FeatureFlag"}, "flag": {ingest.EventConfig, "FeatureFlag"}, "featuretoggle": {ingest.EventConfig, "FeatureFlag"},
	"toggle": {ingest.EventConfig, "FeatureFlag"}, "feature": {ingest.EventConfig, "FeatureFlag"}, "experiment": {ingest.EventConfig, "FeatureFlag"},
	"scale": {ingest.EventDeploy, "Scale"}, "scaling": {ingest.EventDeploy, "Scale"}, "autoscale": {ingest.EventDeploy, "Scale"},
	"resize": {ingest.EventDeploy, "Scale"}, "replicas": {ingest.EventDeploy, "Scale"}, "scaled": {ingest.EventDeploy, "Scale"},
	"restart": {ingest.EventDeploy, "Restart"}, "rolloutrestart": {ingest.EventDeploy, "Restart"}, "restarted": {ingest.EventDeploy, "Restart"},
	"bounce": {ingest.EventDeploy, "Restart"},
}

// parseKind reads a record's kind. A restart the user records is a
// deliberate rollout (a new set of pods), so it is a change, EventDeploy,
// not the EventRestart of a crashing container; feature flags are
// configuration. ok is false for a kind it does not know (read as a
// deploy).
func parseKind(s string) (ingest.EventKind, string, bool) {
	if k, ok := kinds[normKey(s)]; ok {
		return k.kind, k.reason, true
	}
	return ingest.EventDeploy, "Deploy", false
}

// kindFromWhat reads the kind from the first word of what changed
// ("config: max_batch_tokens 8192→16384" is a configuration change); ok is
// false when the word is no kind.
func kindFromWhat(what string) (ingest.EventKind, string, bool) {
	w := strings.TrimSpace(what)
	if i := strings.IndexFunc(w, func(r rune) bool { return r == ' ' || r == ':' || r == '(' || r == ',' }); i >= 0 {
		w = w[:i]
	}
	if w == "" {
		return 0, "", false
	}
	return parseKind(w)
}

// zoned are the time layouts with a zone, tried in order.
var zoned = []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999Z0700", "2006-01-02 15:04:05.999999999Z07:00",
	"2006-01-02 15:04:05.999999999 -0700", "2006-01-02 15:04:05.999999999 -0700 MST", "Mon Jan _2 15:04:05 2006 -0700",
	time.RFC1123Z, time.RubyDate}

// unzoned are the layouts without one, read as UTC.
var unzoned = []string{"2006-01-02T15:04:05.999999999", "2006-01-02 15:04:05.999999999", "2006-01-02T15:04", "2006-01-02 15:04",
	"2006/01/02 15:04:05.999999999"}

// parseTime reads a record's time: a layout of zoned or unzoned (noZone
// says it had no zone and was read as UTC), or an epoch number whose
// magnitude tells its unit (below 1e11 seconds, 1e14 milliseconds, 1e17
// microseconds, else nanoseconds: any of them from 1973 to 5138).
func parseTime(s string) (t ingest.Time, noZone, ok bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, false, false
	}
	if c := s[0]; c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.' {
		if n, err := strconv.ParseInt(s, 10, 64); err == nil {
			return epoch(float64(n), n), false, true
		}
		if f, err := strconv.ParseFloat(s, 64); err == nil && f == f {
			return epoch(f, 0), false, true
		}
	}
	for _, l := range zoned {
		if v, err := time.Parse(l, s); err == nil {
			return ingest.FromTime(v), false, true
		}
	}
	for _, l := range unzoned {
		if v, err := time.Parse(l, s); err == nil {
			return ingest.FromTime(v), true, true
		}
	}
	return 0, false, false
}

// epoch converts an epoch number (f, and n exactly when it is an integer,
// else 0) in the unit its magnitude says.
func epoch(f float64, n int64) ingest.Time {
	a := f
	if a < 0 {
		a = -a
	}
	switch {
	case a < 1e11:
		return ingest.FromUnixSeconds(f)
	case a < 1e14:
		if n != 0 {
			return fromMillis(n)
		}
		return ingest.FromUnixSeconds(f / 1e3)
	case a < 1e17:
		if n != 0 {
			return ingest.FromUnixMicro(n)
		}
		return ingest.FromUnixSeconds(f / 1e6)
	case n != 0:
		return ingest.Time(n)
	}
	return ingest.FromUnixSeconds(f / 1e9)
}

// fromMillis converts integer milliseconds, saturating like
// ingest.FromUnixMicro beyond what ingest.Time holds.
func fromMillis(ms int64) ingest.Time {
	switch {
	case ms > math.MaxInt64/int64(time.Millisecond):
		return math.MaxInt64
	case ms < math.MinInt64/int64(time.Millisecond):
		return math.MinInt64
	}
	return ingest.Time(ms * int64(time.Millisecond))
}
