// Package kineto decodes PyTorch Kineto (profiler) traces (format
// "kineto-trace", Chrome trace JSON with traceEvents): GPU kernels, memcpy
// and memset events and CUDA synchronisation calls become the GPU family's
// Timeline (ingest/gpu), reduced to per-device series. It registers itself
// with package ingest from its init function and imports only the core and
// the family's package.
package kineto
