package jaeger

import (
	"errors"
	"github.com/pipeline-analyze/pipeline-analyze/internal/testkit"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
)

func TestDependencies(t *testing.T) {
	tests := []struct {
		name  string
		file  string // under shared, or "" for body
		body  string
		n     int
		first ingest.Dependency
		total int64
		err   string
		warn  error
	}{
		{name: "nezha envelope", file: "data/nezha-ob/ob-20220822-035354/dependencies.json", n: 14,
			first: ingest.Dependency{Parent: "checkoutservice", Child: "cartservice", CallCount: 98}, total: 14889},
		{name: "bare array", body: `[{"parent":"frontend","child":"cartservice","callCount":"12"},{"parent":"a","child":"b","callCount":3.0}]`, n: 2,
			first: ingest.Dependency{Parent: "frontend", Child: "cartservice", CallCount: 12}, total: 15},
		{name: "empty endpoints dropped", body: `{"data":[{"parent":"","child":"b","callCount":1},{"parent":"a","child":"b","callCount":2}]}`, n: 1,
			first: ingest.Dependency{Parent: "a", Child: "b", CallCount: 2}, total: 2, warn: ingest.ErrBadValue},
		{name: "bad call count", body: `{"data":[{"parent":"a","child":"b","callCount":-1}]}`, err: "negative callCount"},
		{name: "fractional call count", body: `[{"parent":"a","child":"b","callCount":1.5}]`, err: "not a non-negative integer"},
		{name: "api errors", body: `{"data":null,"errors":[{"code":500,"msg":"storage down"}]}`, err: "storage down"},
		{name: "truncated", body: `{"data":[{"parent":"a"`, err: "unexpected end"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b *ingest.Bundle
			var err error
			src := "deps.json"
			if tt.file != "" {
				src = filepath.Join(testkit.SharedDir(t), filepath.FromSlash(tt.file))
				b, err = ingest.ReadFile(src, nil, ingest.Limits{})
			} else {
				b, err = decodeDependencies(src, strings.NewReader(tt.body), ingest.Limits{})
			}
			if tt.err != "" {
				var ie *ingest.InputError
				if err == nil || !errors.As(err, &ie) || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want *InputError containing %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var total int64
			for _, d := range b.Deps {
				total += d.CallCount
			}
			tt.first.Source = src
			if len(b.Deps) != tt.n || b.Deps[0] != tt.first || total != tt.total {
				t.Errorf("%d deps, first %+v, total %d; want %d, %+v, %d", len(b.Deps), b.Deps[0], total, tt.n, tt.first, tt.total)
			}
			if tt.warn == nil && len(b.Warnings) > 0 || tt.warn != nil && (len(b.Warnings) != 1 || !errors.Is(b.Warnings[0], tt.warn)) {
				t.Errorf("warnings %v, want %v", b.Warnings, tt.warn)
			}
		})
	}
}
