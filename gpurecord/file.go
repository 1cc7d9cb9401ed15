package gpurecord

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// RecordFile records from the system's NVML library (RecordDefault) into
// the file path, or into stdout when path is "-". A file is written to a
// temporary file beside it and renamed only once the recording succeeded,
// so that a failed recording leaves no partial file behind. It returns the
// samples written.
func RecordFile(ctx context.Context, path string, stdout io.Writer, opt Options) (int, error) {
	if path == "-" {
		return RecordDefault(ctx, stdout, opt)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return 0, err
	}
	defer os.Remove(tmp.Name()) // no-op after a successful rename
	n, err := RecordDefault(ctx, tmp, opt)
	if cerr := tmp.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("write %s: %w", path, cerr)
	}
	if err != nil {
		return n, err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return n, err
	}
	return n, nil
}
