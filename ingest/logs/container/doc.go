// Package container decodes line-oriented container logs: Docker
// json-file lines and fluent-bit records (format "docker-json-log", also
// lines that lost their opening brace), CRI lines with their partial ("P")
// lines joined (format "cri-log"), and timestamped text such as `kubectl
// logs --timestamps` (format "text-log"). A file names its entity by its
// Kubernetes log path or its name (entityFromPath), fluent-bit records by
// their kubernetes metadata; lines are read by the family's LineReader and
// fed to its sink (ingest/logs). It registers its three formats with
// package ingest from its init function and imports only the core and the
// family's package.
package container
