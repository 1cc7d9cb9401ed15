package compare

import (
	"io"

	"github.com/pipeline-analyze/pipeline-analyze/compare/model"
	"github.com/pipeline-analyze/pipeline-analyze/internal/reportfmt"
)

func renderJSON(w io.Writer, r *model.Report, _ RenderOptions) error {
	b, err := reportfmt.MarshalJSONValue(*r)
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}
