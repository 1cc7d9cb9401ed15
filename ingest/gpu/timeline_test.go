package gpu

import (
	"math"
	"testing"
	"time"
)

func TestTimelineStep(t *testing.T) {
	tests := []struct {
		name string
		span time.Duration
		want time.Duration
	}{
		{"default", 10 * time.Second, 100 * time.Millisecond},
		{"short nsys", 1097528087, 20 * time.Millisecond},
		{"very short", 176352, 2 * time.Microsecond},
		{"long", time.Hour, 10 * time.Second},
		{"empty", 0, 100 * time.Millisecond},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := timelineStep(int64(tc.span)); got != tc.want {
				t.Errorf("timelineStep(%v) = %v, want %v", tc.span, got, tc.want)
			}
		})
	}
}

func TestShortKernelName(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"plain", "saxpy", "saxpy"},
		{"void template", "void at::native::(anonymous namespace)::CatArrayBatchedCopy_aligned16_contig<at::native::OpaqueType<4u>, unsigned int>(int)", "at::native::CatArrayBatchedCopy_aligned16_contig"},
		{"signature", "saxpy(double *, double *, double *, double, int)", "saxpy"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := ShortKernelName(tc.in); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// TestTimelineStepExtremes: the step of a span near the int64 range does not
// overflow into a 1 µs step (a makeslice panic in derive).
func TestTimelineStepExtremes(t *testing.T) {
	for _, span := range []int64{math.MaxInt64, math.MaxInt64 - 1000, math.MaxInt64 / 2} {
		st := int64(timelineStep(span))
		if n := span/st + 1; n > 2000 || n < 1 {
			t.Errorf("span %d: step %d gives %d buckets", span, st, n)
		}
	}
}
