package model

import "github.com/pipeline-analyze/pipeline-analyze/internal/reportfmt"

// MarshalJSON encodes the Report in its documented shape
// (docs/compare.schema.json) with the scorecard's conventions: fields in
// struct order under snake_case keys, every key present, instants as
// RFC3339Nano UTC strings (null when zero), durations as float seconds in
// keys ending _seconds, NaN as null, lists never null.
func (r Report) MarshalJSON() ([]byte, error) { return reportfmt.MarshalJSONValue(r) }
