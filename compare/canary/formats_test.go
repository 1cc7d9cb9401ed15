package canary

// Every input format is registered (each decoder package registers itself
// with ingest; see ingest/formats).
import _ "github.com/pipeline-analyze/pipeline-analyze/ingest/formats"
