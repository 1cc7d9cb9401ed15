package formats_test

import (
	"compress/gzip"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pipeline-analyze/pipeline-analyze/internal/testkit"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	_ "github.com/pipeline-analyze/pipeline-analyze/ingest/formats"
)

// TestEveryFormatRegistered: importing ingest/formats registers every
// built-in format (all but FormatUnknown), each with a decoder or, for the
// label and the manifest, as a file that is recognised and skipped.
func TestEveryFormatRegistered(t *testing.T) {
	got := ingest.Registered()
	for f := ingest.FormatUnknown + 1; f <= ingest.FormatOTLPLogsProto; f++ {
		found := false
		for _, g := range got {
			found = found || g == f
		}
		if !found {
			t.Errorf("format %v is not registered", f)
			continue
		}
		if f == ingest.FormatLabel || f == ingest.FormatManifest {
			continue
		}
		if ingest.Decoder(f) == nil && ingest.FileDecoder(f) == nil {
			t.Errorf("format %v has no decoder", f)
		}
	}
}

// TestSniffOrder: heads that match several formats' rules go to the one
// the priority table puts first, as before the decoders were split out.
func TestSniffOrder(t *testing.T) {
	tests := []struct {
		head string
		want ingest.Format
	}{
		{`{"_msg":"x","_time":"2024-01-01T00:00:00Z","log":"y","stream":"stdout"}`, ingest.FormatVictoriaLogs},
		{`{"log":"x\n","stream":"stdout","time":"2024-01-01T00:00:00Z"}`, ingest.FormatDockerJSONLog},
		{`{"status":"success","data":{"resultType":"streams","result":[]}}`, ingest.FormatLokiStreams},
		{`{"status":"success","data":{"resultType":"matrix","result":[]}}`, ingest.FormatPromQueryRange},
		{`{"streams":[{"stream":{},"values":[]}]}`, ingest.FormatLokiStreams},
		{`{"receiver":"x","status":"firing","alerts":[{"startsAt":"2024-01-01T00:00:00Z"}]}`, ingest.FormatAlertmanager},
		{`{"root_cause":"x","fault":"cpu","involvedObject":{},"reason":"y"}`, ingest.FormatLabel},
		{`{"kind":"EventList","items":[{"involvedObject":{},"reason":"x"}]}`, ingest.FormatK8sEvents},
		{`{"resourceLogs":[]}`, ingest.FormatOTLPLogs},
		{`{"resourceSpans":[],"resourceLogs":[]}`, ingest.FormatOTLPJSON},
		{`{"data":[{"traceID":"1","spans":[{"spanID":"2"}]}]}`, ingest.FormatJaegerJSON},
		{`[{"parent":"a","child":"b","callCount":1}]`, ingest.FormatJaegerDependencies},
		{`{"schemaVersion":1,"traceEvents":[]}`, ingest.FormatKineto},
		{`{"pipeline_analyze_manifest":1}`, ingest.FormatManifest},
		{`{"pipeline_analyze_nvml":1,"status":"x","warnings":[]}`, ingest.FormatNVMLRecording},
		{"# gpu   pwr\n# Idx     W\n    0    77\n", ingest.FormatNvidiaSmiDmon},
		{"2024-01-01T00:00:00.000000001Z stdout F hello\n", ingest.FormatCRILog},
		{"2024-01-01T00:00:00Z INFO hello\n", ingest.FormatTextLog},
		{"timestamp, index, uuid, utilization.gpu [%]\n2024/01/01 00:00:00.000, 0, GPU-1, 5 %\n", ingest.FormatNvidiaSmiCSV},
		{"SQLite format 3\x00rest", ingest.FormatNsightSQLite},
		{`{"apiVersion":"v1","items":[{"kind":"Event","involvedObject":{"kind":"Deployment","name":"a"},"reason":"ScalingReplicaSet","metadata":{}}],"kind":"List"}`, ingest.FormatK8sEvents},
		{`{"apiVersion":"v1","items":[{"apiVersion":"apps/v1","kind":"ReplicaSet","metadata":{"managedFields":[{"time":"x"}]}}],"kind":"List"}`, ingest.FormatK8sObjects},
		{`[{"time":"2026-11-12T12:36:46Z","service":"router","what":"deploy 1.9.0","who":"argocd"}]`, ingest.FormatChangeRecords},
		{`{"time":"2026-11-12T12:36:46Z","service":"router","level":"info","msg":"deployed","version":"1.9.0"}`, ingest.FormatUnknown},
		{"time,service,what,who\n2026-11-12T12:36:46Z,router,deploy 1.9.0,argocd\n", ingest.FormatChangeRecords},
		{"timestamp, name, index\n2024/01/01 00:00:00.000, NVIDIA H200, 0\n", ingest.FormatNvidiaSmiCSV},
		{`{"hello":"world"}`, ingest.FormatUnknown},
		{"   \n", ingest.FormatUnknown},
	}
	for _, tc := range tests {
		if got := ingest.Sniff([]byte(tc.head)); got != tc.want {
			t.Errorf("Sniff(%.40q) = %v, want %v", tc.head, got, tc.want)
		}
	}
}

// TestNoTextIsProtobuf: the protobuf formats, recognised by walking a
// binary head's wire format, claim no real text or JSON file: every file
// under ../shared/samples and ../shared/data (decompressed when gzip) is
// sniffed, and only the one protobuf sample is a protobuf format.
func TestNoTextIsProtobuf(t *testing.T) {
	dir := testkit.SharedDir(t)
	proto := map[ingest.Format]bool{ingest.FormatJaegerProto: true, ingest.FormatOTLPProto: true, ingest.FormatOTLPLogsProto: true}
	n := 0
	for _, sub := range []string{"samples", "data"} {
		filepath.WalkDir(filepath.Join(dir, sub), func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return nil
			}
			f, err := os.Open(p)
			if err != nil {
				return nil
			}
			defer f.Close()
			var r io.Reader = f
			if strings.HasSuffix(p, ".gz") {
				zr, err := gzip.NewReader(f)
				if err != nil {
					return nil
				}
				r = zr
			}
			head := make([]byte, ingest.SniffLen)
			k, _ := io.ReadFull(r, head)
			n++
			got := ingest.Sniff(head[:k])
			want := strings.HasSuffix(p, ".pb")
			if proto[got] != want {
				t.Errorf("%s: sniffed as %v", p, got)
			}
			return nil
		})
	}
	t.Logf("%d files sniffed", n)
}
