// Package alertmanager decodes Alertmanager webhook payloads and the
// /api/v2/alerts array (format "alertmanager") into ingest.Alerts: the
// alert's name, status, service, the signal its text names and its
// runbook. It registers itself with package ingest from its init function
// (sniff priority ingest.PriorityAlertmanager); import ingest/formats to
// have every format. It imports only the core.
package alertmanager
