// Package changes decodes change records the user supplies (format
// "change-records"): the deploys, configuration commits, feature-flag
// flips, scalings and restarts of the last hours, as a deploy tracker, a
// CI pipeline or `git log` can export them. Each record becomes an
// ingest.Event of a change-like kind (EventDeploy, or EventConfig for
// configuration and feature flags) on the service it names, so that the
// ranking and the card see it exactly as they see a rollout event of
// `kubectl get events`.
//
// Three shapes are read, recognised by content:
//
//   - JSON: an array of records, {"changes": [...]} (or "items"), one
//     record, or JSON Lines (one record per line);
//   - CSV with a header row (comma, tab or semicolon separated; lines
//     starting with '#' are comments).
//
// A record's fields go by several names (matched without case, '_', '-',
// '.' or spaces): the time (time, timestamp, ts, at, date, ...: RFC3339,
// "2006-01-02 15:04:05[ -0700]", git's default date, or epoch seconds,
// milliseconds, microseconds or nanoseconds told apart by magnitude), the
// service (service, app, component, workload, deployment, ...), what
// changed (what, description, message, summary, change, ...), who
// (who, author, user, by, ...), the kind (kind, type, change_type:
// deploy, config, feature-flag, scale, restart, rollback and their
// synonyms; absent, it is read from the first word of what changed, and
// is deploy by default) and the version (version, revision, commit, sha,
// tag). A record without a readable time or service is skipped with a
// warning; a syntax error after some records keeps them with an
// ErrPartialInput warning.
//
// The format is registered with History set (ingest.FormatSpec): records
// of the last day place changes before the incident without stretching
// the common time grid over that day, and older ones are left out. It
// registers itself with package ingest from its init function (sniff
// priorities ingest.PriorityChangeRecords and ingest.PriorityChangeCSV);
// import ingest/formats to have every format. It imports only the core.
package changes
