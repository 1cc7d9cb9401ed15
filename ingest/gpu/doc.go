// Package gpu is the GPU family's shared code: the GPU entity of a sample
// (Entity: by UUID, else "host/gpuN"), the series sets the nvidia-smi and
// NVML readers fill (SeriesSet), and the timeline of device activities and
// blocking host calls that the Nsight and Kineto readers reduce to busy,
// memory and stall series (Timeline, timeline.go). It registers no format:
// each GPU format is a package below it that registers itself with package
// ingest from its init function — nvidiasmi (nvidia-smi CSV and dmon/pmon),
// nvml (record-gpu's NVML recordings), nsight (Nsight Systems SQLite
// exports, read in place or from a bounded temporary copy) and kineto
// (PyTorch Kineto traces); import ingest/formats to have every format. It
// imports only the core.
package gpu
