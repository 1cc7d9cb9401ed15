package scorecard

import (
	"encoding/json"
	"io"

	"github.com/pipeline-analyze/pipeline-analyze/internal/reportfmt"
)

// MarshalJSON encodes the Card in its documented JSON shape
// (docs/scorecard.schema.json): fields in struct order under their snake_case
// tags, every field present, ingest.Time as an RFC3339Nano UTC string (null
// when zero), time.Duration as float seconds, NaN and ±Inf as null, nil
// slices as [].
func (c Card) MarshalJSON() ([]byte, error) {
	return json.Marshal(reportfmt.JSONValue(c))
}

func renderJSON(w io.Writer, c *Card, _ RenderOptions) error {
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return err
	}
	b = append(b, '\n')
	_, err = w.Write(b)
	return err
}
