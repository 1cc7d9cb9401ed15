package live

// Bounds on the small files this package reads (with internal/boundedfile:
// regular files only, size-limited).
const (
	// maxCABytes bounds a --ca-file: a PEM bundle of a few hundred
	// certificates is well under 1 MiB.
	maxCABytes = 16 << 20
	// maxManifestBytes bounds a saved bundle's manifest.
	maxManifestBytes = 64 << 20
)
