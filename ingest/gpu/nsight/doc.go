// Package nsight decodes Nsight Systems SQLite exports (format
// "nsight-sqlite", `nsys export --type sqlite`; columns looked up by name,
// since the schema changes between versions): read in place when the input
// is a regular uncompressed file, else from a bounded temporary copy. Kernel,
// memcpy and memset activities and blocking host calls become the GPU
// family's Timeline (ingest/gpu), reduced to per-device series. It
// registers itself with package ingest from its init function and imports
// only the core and the family's package.
package nsight
