package ingest_test

// Native fuzz targets, one per reader, plus FuzzReadFile over sniffing and
// decompression. Each checks the same properties (fuzzCheck):
//   - no panic;
//   - a rejected input gets a one-line, positioned *InputError;
//   - an accepted input respects the limits it was read with, and the bundle
//     passes Validate after Finalize.
//
// The checked-in corpus (testdata/fuzz/FuzzX/) is seeded from
// ../shared/samples by TestWriteFuzzCorpus (run with -writecorpus); crashers
// found by `go test -fuzz` are kept there as regression cases.

import (
	"bytes"
	"compress/gzip"
	"database/sql"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"github.com/pipeline-analyze/pipeline-analyze/internal/testkit"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"

	jmodel "github.com/jaegertracing/jaeger-idl/model/v1"
	"github.com/jaegertracing/jaeger-idl/proto-gen/api_v2"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"google.golang.org/protobuf/encoding/protowire"
)

var writeCorpus = flag.Bool("writecorpus", false, "rewrite the seed files of testdata/fuzz/ from ../shared/samples")

// fuzzLimits keep fuzzed inputs small: every bound is hit by a few KB.
var fuzzLimits = ingest.FuzzLimits

// fuzzCheck asserts the shared properties for a reader's result.
func fuzzCheck(t *testing.T, b *ingest.Bundle, err error) {
	t.Helper()
	if err != nil {
		var ie *ingest.InputError
		if !errors.As(err, &ie) {
			t.Fatalf("error is not an *InputError: %v", err)
		}
		if strings.Contains(err.Error(), "\n") {
			t.Fatalf("error is not one line: %q", err.Error())
		}
		return
	}
	if b == nil {
		t.Fatal("nil bundle without error")
	}
	points := 0
	for _, s := range b.Series {
		points += len(s.T)
	}
	// Span-derived series are added by Finalize; the reader's own output must
	// respect the limits (a reader may overshoot by one element at most).
	if len(b.Spans) > fuzzLimits.MaxSpans+1 || len(b.Series) > fuzzLimits.MaxSeries+1 || points > fuzzLimits.MaxPoints+fuzzLimits.MaxPoints/10 ||
		len(b.Logs) > fuzzLimits.MaxLogRecords {
		t.Fatalf("limits exceeded: %d spans, %d series, %d points, %d log records", len(b.Spans), len(b.Series), points, len(b.Logs))
	}
	for i := range b.Logs {
		if r := b.Logs[i]; int(r.Stream) >= len(b.LogStreams) || int(r.Template) >= len(b.LogTemplates) {
			t.Fatalf("record %d names stream %d of %d, template %d of %d", i, r.Stream, len(b.LogStreams), r.Template, len(b.LogTemplates))
		}
	}
	if len(b.Inputs) == 0 {
		b.Inputs = []ingest.Input{{Path: "fuzz"}}
	}
	ingest.Finalize(b, ingest.Options{Limits: fuzzLimits})
	if err := b.Validate(); err != nil {
		t.Fatalf("Validate after Finalize:\n%v", err)
	}
	ingest.CheckParents(t, b)
}

// fuzzDecoder is the body of the per-format targets.
func fuzzDecoder(f *testing.F, format ingest.Format, seeds ...string) {
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	dec := ingest.Decoder(format)
	f.Fuzz(func(t *testing.T, in []byte) {
		b, err := dec("fuzz.json", bytes.NewReader(in), fuzzLimits)
		if b != nil && err == nil {
			// As ReadFile does: limits, then impossible times dropped (a
			// year-24 timestamp beside a 2024 one would otherwise make
			// Finalize build a 2000-year grid, and the fuzzer report a hang).
			ingest.EnforceLimits(b, fuzzLimits, "fuzz.json")
			if ingest.Records(b) > 0 {
				ingest.CheckValues(b, "fuzz.json")
				if ingest.Records(b) == 0 {
					return // ReadFile rejects it: no usable data
				}
			}
		}
		fuzzCheck(t, b, err)
	})
}

func FuzzDecodeAlertmanager(f *testing.F) {
	fuzzDecoder(f, ingest.FormatAlertmanager,
		`{"status":"firing","receiver":"x","alerts":[{"labels":{"alertname":"KVCacheAlmostFull","service":"vllm"},"startsAt":"2024-05-01T10:00:00Z"}]}`,
		`[{"annotations":{},"endsAt":"2024-05-01T10:20:00.000Z","fingerprint":"a1","startsAt":"2024-05-01T10:05:00.123Z","labels":{"alertname":"X","pod":"a-6d9f8b7c5-x2kq9"}}]`)
}

func FuzzDecodeK8sEvents(f *testing.F) {
	fuzzDecoder(f, ingest.FormatK8sEvents,
		`{"kind":"EventList","items":[{"involvedObject":{"kind":"Pod","name":"cart-7d4b9c-abcde","namespace":"d"},"reason":"OOMKilling","lastTimestamp":"2024-05-01T10:00:00Z","count":2}]}`,
		`[{"regarding":{"kind":"Deployment","name":"cart"},"reason":"ScalingReplicaSet","note":"x","eventTime":"2024-05-01T10:00:00.000000Z"}]`)
}

func FuzzDecodeK8sObjects(f *testing.F) {
	fuzzDecoder(f, ingest.FormatK8sObjects,
		`{"apiVersion":"v1","kind":"List","items":[{"apiVersion":"apps/v1","kind":"ReplicaSet","metadata":{"name":"router-q2qvt2vl7z","namespace":"s",`+
			`"creationTimestamp":"2026-11-12T12:36:46Z","annotations":{"deployment.kubernetes.io/revision":"7","deployment.kubernetes.io/revision-history":"2"},`+
			`"labels":{"pod-template-hash":"q2qvt2vl7z"},"ownerReferences":[{"kind":"Deployment","name":"router","controller":true}]},`+
			`"spec":{"replicas":2,"template":{"spec":{"containers":[{"name":"router","image":"r:1.9.0","envFrom":[{"configMapRef":{"name":"router-config"}}]}]}}}},`+
			`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"router","namespace":"s","generation":9,"managedFields":[{"manager":"hpa","operation":"Update","time":"2026-11-12T12:40:00Z","subresource":"scale"}]},`+
			`"status":{"conditions":[{"type":"Progressing","reason":"NewReplicaSetAvailable","lastUpdateTime":"2026-11-12T12:37:04Z","message":"ReplicaSet \"router-q2qvt2vl7z\" has successfully progressed."}]}},`+
			`{"apiVersion":"v1","kind":"ConfigMap","data":{"a":"b"},"metadata":{"name":"router-config","namespace":"s","creationTimestamp":"2026-11-01T00:00:00Z",`+
			`"managedFields":[{"manager":"kubectl-edit","operation":"Update","time":"2026-11-12T12:31:10Z"}]}}]}`,
		`{"kind":"SecretList","items":[{"type":"helm.sh/release.v1","metadata":{"name":"sh.helm.release.v1.a.v3","creationTimestamp":"2026-11-12T12:00:00Z","labels":{"name":"a","owner":"helm","version":"3"}}}]}`)
}

func FuzzDecodeChangeRecords(f *testing.F) {
	fuzzDecoder(f, ingest.FormatChangeRecords,
		`{"changes":[{"time":"2026-11-12T12:36:46Z","service":"router","what":"deploy 1.9.0","who":"argocd","kind":"deploy","version":"1.9.0"},`+
			`{"timestamp":1794483627,"app":"vllm","description":"config: max_batch_tokens 8192→16384","kind":"config"}]}`,
		`{"ts":1794474843000,"component":"gateway","summary":"rollout 3.2.0","by":"argocd","type":"deploy","revision":"3.2.0"}`+"\n"+`{"ts":"x","component":"a"}`+"\n",
		"# last 24 h\ntime,service,what,who,kind,version\n2026-11-12T09:14:03Z,gateway,deploy v3.2.0,ci-bot,deploy,3.2.0\n2026-11-12 12:36:46,router,\"config: a→b\",alice,feature-flag,\n")
}

func FuzzDecodeDependencies(f *testing.F) {
	fuzzDecoder(f, ingest.FormatJaegerDependencies,
		`{"data":[{"parent":"a","child":"b","callCount":2}]}`,
		`[{"parent":"frontend","child":"cartservice","callCount":"12"},{"parent":"a","child":"b","callCount":3.0}]`)
}

func FuzzDecodeNvidiaSmiCSV(f *testing.F) {
	fuzzDecoder(f, ingest.FormatNvidiaSmiCSV,
		"timestamp, index, uuid, utilization.gpu [%], memory.used [MiB], clocks.sm [MHz]\n2024/05/01 10:00:00.000, 0, GPU-1, 87 %, 1024 MiB, 1410 MHz\n2024/05/01 10:00:01.000, 0, GPU-1, [N/A], 1024 MiB, 1410 MHz\n",
		"index, name, power.draw [W]\n0, NVIDIA H200, 120.5 W\n")
}

func FuzzDecodeNvidiaSmiDmon(f *testing.F) {
	fuzzDecoder(f, ingest.FormatNvidiaSmiDmon,
		"#Date       Time        gpu    pwr  gtemp  mtemp     sm    mem\n#YYYYMMDD   HH:MM:SS    Idx      W      C      C      %      %\n 20260703   22:10:45      0     77     28     31      0      0\n 20260703   22:10:46      0     78     28     31      1      -\n",
		"# gpu    pwr  gtemp\n# Idx      W      C\n    0     77     28\n")
}

func FuzzDecodeNVMLRecording(f *testing.F) {
	fuzzDecoder(f, ingest.FormatNVMLRecording,
		`{"pipeline_analyze_nvml":1,"host":"h1","devices":[]}`+"\n"+
			`{"t_ns":1000000000,"gpu":0,"util_gpu_pct":50,"processes":[{"pid":7,"sm_util_pct":40}]}`+"\n"+
			`{"t_ns":2000000000,"gpu":0,"util_gpu_pct":60,"xid":[{"t_ns":1500000000,"xid":79,"type":"xid"}]}`+"\n",
		`{"pipeline_analyze_nvml":2}`+"\n"+`{"t_ns":1,"gpu":0}`)
}

func FuzzDecodeKineto(f *testing.F) {
	fuzzDecoder(f, ingest.FormatKineto,
		`{"schemaVersion":1,"distributedInfo":{"rank":0},"baseTimeNanoseconds":1700000000000000000,"traceEvents":[`+
			`{"ph":"X","cat":"kernel","name":"k","ts":1,"dur":5,"args":{"device":0}},`+
			`{"ph":"X","cat":"cuda_runtime","name":"cudaDeviceSynchronize","ts":0,"dur":7,"args":{"device":0}}]}`)
}

func FuzzDecodeLoki(f *testing.F) {
	fuzzDecoder(f, ingest.FormatLokiStreams,
		`{"status":"success","data":{"resultType":"streams","result":[{"stream":{"service_name":"a","pod":"a-7d4b9c8f6-x2kq9"},"values":[["1700000000000000001","\tat x"],["1700000000000000000","ERROR boom trace_id=4bf92f3577b34da6a3ce929d0e0e4736",{"level":"error","span_id":"00f067aa0ba902b7"}]]}],"stats":{}}}`,
		`{"streams":[{"stream":{"job":"ns/app"},"values":[["1","x",{"structuredMetadata":{"trace_id":"01"}}]]}]}`)
}

func FuzzDecodeOTLPLogs(f *testing.F) {
	fuzzDecoder(f, ingest.FormatOTLPLogs,
		`{"resourceLogs":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"s"}}]},"scopeLogs":[{"logRecords":[{"timeUnixNano":"1753292536","severityNumber":17,"body":{"stringValue":"boom"},"traceId":"5B8EFFF798038103D269B633813FC60C","spanId":""}]}]}]}`+"\n"+
			`{"resourceLogs":[{"scopeLogs":[{"logRecords":[{"observedTimeUnixNano":"1544712660300000000","body":{"kvlistValue":{"values":[{"key":"a","value":{"intValue":"1"}}]}}}]}]}]}`)
}

func FuzzDecodeDockerJSON(f *testing.F) {
	fuzzDecoder(f, ingest.FormatDockerJSONLog,
		`{"log":"{\"level\":\"error\",\"msg\":\"x\"}\n","stream":"stderr","time":"2016-03-02T22:58:51.338462311Z"}`+"\n"+`"log":"partial","stream":"stdout","time":"2016-03-02T22:58:52Z"}`+"\n",
		`[{"date":1597871185.9,"log":"2020-08-19T21:06:24.337Z stderr F boom\n2020-08-19T21:06:24.338Z stderr F \tat x","kubernetes":{"pod_name":"p-7d4b9c8f6-x2kq9","labels":{"app":"p"}}}]`)
}

func FuzzDecodeCRI(f *testing.F) {
	fuzzDecoder(f, ingest.FormatCRILog,
		"2026-11-30T03:12:00.1Z stdout P hel\n2026-11-30T03:12:00.2Z stdout F lo\n2026-11-30T03:12:00.3+02:00 stderr F java.lang.IllegalStateException: x\nbad\n")
}

func FuzzDecodeTextLog(f *testing.F) {
	fuzzDecoder(f, ingest.FormatTextLog,
		"2026-11-30T03:12:00.000000001Z ERROR:root:x\nTraceback (most recent call last):\n  File \"a.py\", line 1\nValueError: y\n2023-01-29 16:42:10,175 goroutine 1 [running]:\nmain.main()\n")
}

func FuzzDecodeVictoriaLogs(f *testing.F) {
	fuzzDecoder(f, ingest.FormatVictoriaLogs,
		`{"_msg":"16:43:17.120 ERROR c.s.X#37 TraceID: dc7db5cbec8d511cb7e08fd7c7b47c00","_stream":"{pod=\"a-7d4b9c8f6-x2kq9\",service_name=\"a\"}","_time":"2023-01-29T08:43:17.121704441Z","level":"ERROR","span_id":"b6ce9b3cd8b064a8"}`+"\n"+`{"_time":"bad"}`+"\n")
}

// FuzzNsightSQLite fuzzes the metadata path of the Nsight reader: the
// kernel table's name column, a string-table value and one row's numbers go
// into a freshly generated SQLite export (byte-fuzzing SQLite itself would
// test the SQLite library, not us).
func FuzzNsightSQLite(f *testing.F) {
	f.Add("shortName", "void k<int>(float*)", int64(1000), int64(5000), int64(0), "GPU-abc")
	f.Add("demangledName", "", int64(5000), int64(1000), int64(-1), "")
	f.Add("weird col\"", "x", int64(-9e18), int64(9e18), int64(1<<40), "1234")
	dir := f.TempDir()
	n := 0
	f.Fuzz(func(t *testing.T, col, str string, start, end, dev int64, uuid string) {
		n++
		path := filepath.Join(dir, fmt.Sprintf("f%d.sqlite", n))
		defer os.Remove(path)
		db, err := sql.Open("sqlite", path)
		if err != nil {
			t.Fatal(err)
		}
		q := fmt.Sprintf(`CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER, end INTEGER, deviceId INTEGER, %q INTEGER)`, col)
		stmts := []string{
			`CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT)`,
			`CREATE TABLE TARGET_INFO_GPU (id INTEGER, uuid TEXT)`,
			`CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER, end INTEGER, nameId INTEGER)`,
		}
		if _, err := db.Exec(q); err != nil {
			db.Close()
			t.Skip("column name SQLite rejects")
		}
		for _, s := range stmts {
			if _, err := db.Exec(s); err != nil {
				t.Fatal(err)
			}
		}
		ins := fmt.Sprintf(`INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (?, ?, ?, 1)`)
		for _, e := range []struct {
			q    string
			args []any
		}{
			{ins, []any{start, end, dev}},
			{`INSERT INTO StringIds VALUES (1, ?)`, []any{str}},
			{`INSERT INTO StringIds VALUES (2, 'cudaDeviceSynchronize')`, nil},
			{`INSERT INTO TARGET_INFO_GPU VALUES (?, ?)`, []any{dev, uuid}},
			{`INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (?, ?, 2)`, []any{start, end}},
		} {
			if _, err := db.Exec(e.q, e.args...); err != nil {
				t.Fatal(err)
			}
		}
		db.Close()
		b, err := ingest.FileDecoder(ingest.FormatNsightSQLite)("fuzz.sqlite", path, nil, fuzzLimits, true, "")
		if err != nil {
			return // a reader error on a well-formed database is allowed (reported, not a crash)
		}
		fuzzCheck(t, b, nil)
	})
}

// FuzzReadFile fuzzes the whole per-file path: gzip detection, the size
// limit, Sniff and whichever decoder it picks.
func FuzzReadFile(f *testing.F) {
	f.Add([]byte(`{"data":[{"traceID":"1","spans":[{"traceID":"1","spanID":"2","startTime":3,"duration":4,"processID":"p1"}],"processes":{"p1":{"serviceName":"s"}}}]}`))
	f.Add([]byte(`{"status":"success","data":{"resultType":"matrix","result":[{"metric":{"__name__":"a"},"values":[[1,"1"],[16,"+Inf"]]}]}}`))
	f.Add([]byte("# gpu    pwr\n# Idx      W\n    0     77\n"))
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(`[{"parent":"a","child":"b","callCount":1}]`))
	zw.Close()
	f.Add(gz.Bytes())
	f.Fuzz(func(t *testing.T, in []byte) {
		if bytes.HasPrefix(in, []byte("SQLite format 3\x00")) {
			t.Skip("SQLite files are fuzzed by FuzzNsightSQLite")
		}
		b, err := ingest.ReadFile("-", bytes.NewReader(in), fuzzLimits)
		if err != nil {
			fuzzCheck(t, nil, err)
			return
		}
		if len(b.Inputs) != 1 {
			t.Fatalf("%d input records, want 1", len(b.Inputs))
		}
		fuzzCheck(t, b, nil)
	})
}

// targetPackage names the decoder package (a folder under ingest/) of the
// fuzz targets that live there rather than here.
var targetPackage = map[string]string{"FuzzDecodeJaeger": "jaeger", "FuzzDecodeOTLP": "otlp", "FuzzPromQueryRange": "prometheus"}

// TestWriteFuzzCorpus regenerates the sample-seeded corpus files
// testdata/fuzz/FuzzX/sample-* (go test -run TestWriteFuzzCorpus -writecorpus).
// Samples larger than 32 KiB are cut to their first 32 KiB: the fuzzer learns
// more from many small inputs, and a cut file is itself a case (truncation).
func TestWriteFuzzCorpus(t *testing.T) {
	if !*writeCorpus {
		t.Skip("run with -writecorpus to regenerate")
	}
	sh := testkit.SharedDir(t)
	targets := map[ingest.Format]string{
		ingest.FormatJaegerJSON: "FuzzDecodeJaeger", ingest.FormatOTLPJSON: "FuzzDecodeOTLP", ingest.FormatPromQueryRange: "FuzzPromQueryRange",
		ingest.FormatAlertmanager: "FuzzDecodeAlertmanager", ingest.FormatK8sEvents: "FuzzDecodeK8sEvents",
		ingest.FormatJaegerDependencies: "FuzzDecodeDependencies", ingest.FormatNvidiaSmiCSV: "FuzzDecodeNvidiaSmiCSV",
		ingest.FormatNvidiaSmiDmon: "FuzzDecodeNvidiaSmiDmon", ingest.FormatNVMLRecording: "FuzzDecodeNVMLRecording", ingest.FormatKineto: "FuzzDecodeKineto",
		ingest.FormatLokiStreams: "FuzzDecodeLoki", ingest.FormatOTLPLogs: "FuzzDecodeOTLPLogs", ingest.FormatDockerJSONLog: "FuzzDecodeDockerJSON",
		ingest.FormatCRILog: "FuzzDecodeCRI", ingest.FormatTextLog: "FuzzDecodeTextLog", ingest.FormatVictoriaLogs: "FuzzDecodeVictoriaLogs",
		ingest.FormatK8sObjects: "FuzzDecodeK8sObjects", ingest.FormatChangeRecords: "FuzzDecodeChangeRecords",
	}
	const maxSeed = 32 << 10
	write := func(target, name string, data []byte) {
		if len(data) > maxSeed {
			data = data[:maxSeed]
		}
		dir := filepath.Join("testdata", "fuzz", target)
		if pkg := targetPackage[target]; pkg != "" { // a target of a decoder package
			dir = filepath.Join(pkg, "testdata", "fuzz", target)
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		body := fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n", data)
		if err := os.WriteFile(filepath.Join(dir, "sample-"+name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var files []string
	filepath.WalkDir(filepath.Join(sh, "samples"), func(p string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			files = append(files, p)
		}
		return err
	})
	files = append(files, "testdata/k8s_events.json", "testdata/k8s_events_v1.json")
	for _, p := range files {
		raw, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.HasPrefix(raw, []byte{0x1f, 0x8b}) {
			zr, err := gzip.NewReader(bytes.NewReader(raw))
			if err != nil {
				t.Fatal(err)
			}
			raw, _ = io.ReadAll(io.LimitReader(zr, maxSeed))
		}
		name := strings.NewReplacer("/", "_", "..", "").Replace(strings.TrimPrefix(p, filepath.Join(sh, "samples")+"/"))
		if strings.HasSuffix(p, ".txt") { // nvidia_gpu_exporter captures: one seed per command section
			for i, s := range testkit.SMISections(t, p) {
				if f := ingest.Sniff([]byte(s.Body)); targets[f] != "" {
					write(targets[f], fmt.Sprintf("%s-%02d", name, i), []byte(s.Body))
				}
			}
			continue
		}
		if f := ingest.Sniff(raw); targets[f] != "" {
			write(targets[f], name, raw)
		}
		if ingest.Sniff(raw) != ingest.FormatNsightSQLite {
			write("FuzzReadFile", name, raw)
		}
	}
}

// protoSeeds are binary seeds of the protobuf formats, built by the
// libraries that define them: a span (or log record) with attributes, in
// each framing.
func protoSeeds(msg []byte) []string {
	be32 := binary.BigEndian.AppendUint32(nil, uint32(len(msg)))
	return []string{string(msg), string(append(be32, msg...)), string(append(protowire.AppendVarint(nil, uint64(len(msg))), msg...))}
}

func FuzzDecodeOTLPProto(f *testing.F) {
	td := ptrace.NewTraces()
	rs := td.ResourceSpans().AppendEmpty()
	rs.Resource().Attributes().PutStr("service.name", "cart")
	rs.Resource().Attributes().PutStr("k8s.pod.name", "cart-7d4b9c8f6-x2kq9")
	sp := rs.ScopeSpans().AppendEmpty().Spans().AppendEmpty()
	sp.SetTraceID(pcommon.TraceID{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16})
	sp.SetSpanID(pcommon.SpanID{1, 2, 3, 4, 5, 6, 7, 8})
	sp.SetName("GET /cart")
	sp.SetKind(ptrace.SpanKindServer)
	sp.SetStartTimestamp(1700000000000000000)
	sp.SetEndTimestamp(1700000000005000000)
	sp.Status().SetCode(ptrace.StatusCodeError)
	sp.Attributes().PutStr("peer.service", "redis")
	msg, err := (&ptrace.ProtoMarshaler{}).MarshalTraces(td)
	if err != nil {
		f.Fatal(err)
	}
	fuzzDecoder(f, ingest.FormatOTLPProto, protoSeeds(msg)...)
}

func FuzzDecodeOTLPLogsProto(f *testing.F) {
	ld := plog.NewLogs()
	rl := ld.ResourceLogs().AppendEmpty()
	rl.Resource().Attributes().PutStr("service.name", "cart")
	lr := rl.ScopeLogs().AppendEmpty().LogRecords().AppendEmpty()
	lr.SetTimestamp(1700000000000000000)
	lr.SetSeverityNumber(plog.SeverityNumberError)
	lr.Body().SetStr("connection refused to redis:6379")
	lr.SetTraceID(pcommon.TraceID{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16})
	msg, err := (&plog.ProtoMarshaler{}).MarshalLogs(ld)
	if err != nil {
		f.Fatal(err)
	}
	fuzzDecoder(f, ingest.FormatOTLPLogsProto, protoSeeds(msg)...)
}

func FuzzDecodeJaegerProto(f *testing.F) {
	chunk := api_v2.SpansResponseChunk{Spans: []jmodel.Span{{
		TraceID: jmodel.NewTraceID(1, 2), SpanID: 3, OperationName: "GET /cart",
		References: []jmodel.SpanRef{{TraceID: jmodel.NewTraceID(1, 2), SpanID: 4, RefType: jmodel.ChildOf}},
		StartTime:  time.Unix(1700000000, 5).UTC(), Duration: 5 * time.Millisecond,
		Tags:     []jmodel.KeyValue{jmodel.String("span.kind", "server"), jmodel.Bool("error", true), jmodel.Int64("http.status_code", 503)},
		Process:  &jmodel.Process{ServiceName: "cart", Tags: []jmodel.KeyValue{jmodel.String("k8s.pod.name", "cart-7d4b9c8f6-x2kq9")}},
		Warnings: []string{"clock skew adjusted"},
	}}}
	msg, err := chunk.Marshal()
	if err != nil {
		f.Fatal(err)
	}
	fuzzDecoder(f, ingest.FormatJaegerProto, protoSeeds(msg)...)
}
