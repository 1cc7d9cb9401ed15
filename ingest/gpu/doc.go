// Package gpu decodes the GPU inputs: nvidia-smi CSV and dmon output
// (nvidiasmi.go), record-gpu's NVML recordings (nvmlrec.go), Nsight Systems
// SQLite exports (nsight.go, nsightdb.go; read in place, or from a bounded
// temporary copy when compressed or piped) and PyTorch Kineto traces
// (kineto.go). The four share the GPU entity and the timeline of device
// activities and blocking host calls that Nsight and Kineto reduce to busy,
// memory and stall series. Each format registers itself with package ingest
// from this package's init functions; import ingest/formats to have every
// format. It imports only the core.
package gpu
