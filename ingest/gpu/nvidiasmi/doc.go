// Package nvidiasmi decodes nvidia-smi's text outputs (formats
// "nvidia-smi-csv" and "nvidia-smi-dmon"): `--query-gpu` (and per-process
// `--query-compute-apps`) CSV with units in the header and the cells, and
// `dmon`/`pmon` whitespace columns, into GPU series. It registers itself
// with package ingest from its init function and imports only the core and
// the GPU family's package (ingest/gpu).
package nvidiasmi
