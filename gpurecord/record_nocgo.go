//go:build !cgo

package gpurecord

import (
	"context"
	"fmt"
	"io"
	"time"
)

// Options configure RecordDefault; see the cgo build for their meaning.
type Options struct {
	Interval time.Duration
	Duration time.Duration
	Host     string
	Now      func() time.Time
	Sleep    func(ctx context.Context, d time.Duration) error
	Progress func(samples int)
}

// RecordDefault always fails in a build without cgo: go-nvml needs cgo.
func RecordDefault(ctx context.Context, w io.Writer, opt Options) (int, error) {
	return 0, fmt.Errorf("%w: this binary was built without cgo (CGO_ENABLED=0), which NVML needs", ErrNoDriver)
}
