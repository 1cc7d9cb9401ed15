// Package nvml decodes the NVML recordings record-gpu writes (format
// "nvml-recording"; docs/nvml-recording.md) into GPU series, with one
// series per process seen on a GPU (nvml_process_*). It registers itself with package ingest from
// its init function and imports only the core and the GPU family's package
// (ingest/gpu).
package nvml
