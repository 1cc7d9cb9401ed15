package gpu

import (
	"errors"
	"strings"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
)

// warningsOf joins the messages of b's warnings of a kind.
func warningsOf(b *ingest.Bundle, kind error) string {
	var msgs []string
	for _, w := range b.Warnings {
		if errors.Is(w, kind) {
			msgs = append(msgs, w.Message)
		}
	}
	return strings.Join(msgs, "\n")
}
