package ingest

import (
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/ingest/classify"
	"github.com/pipeline-analyze/pipeline-analyze/ingest/model"
)

// The data model lives in package ingest/model (the bundle, spans, series,
// entities, Syms, the clock, logs, warnings and the names of derived
// series), so that it can be read, and imported, without the core of
// reading. Every name of it stays available here, as a type alias, a
// constant, a variable or a one-line function of the same name, so that
// ingest.Bundle, ingest.Span, ingest.Time and the rest are the model's own
// types and values: code may use either spelling. The model's methods
// (Bundle.Merge, Warn, Validate, LogSpans, KnownServices, CountInto,
// RelabelSources, ...) are on these types; what the core does to a bundle
// is a function of the core (Prepare, Align).

// Aliases of the model's types.
type (
	Alert               = model.Alert
	Bundle              = model.Bundle
	Counts              = model.Counts
	Dependency          = model.Dependency
	Entity              = model.Entity
	EntityKind          = model.EntityKind
	Event               = model.Event
	EventKind           = model.EventKind
	Format              = model.Format
	Input               = model.Input
	Interner            = model.Interner
	Label               = model.Label
	Labels              = model.Labels
	LLMAttr             = model.LLMAttr
	LLMRequest          = model.LLMRequest
	LogJoin             = model.LogJoin
	LogRecord           = model.LogRecord
	LogStream           = model.LogStream
	LogTemplate         = model.LogTemplate
	LogTemplateEvidence = model.LogTemplateEvidence
	LogTraceLink        = model.LogTraceLink
	PatternShift        = model.PatternShift
	Placement           = model.Placement
	PodVersion          = model.PodVersion
	Process             = model.Process
	Series              = model.Series
	Severity            = model.Severity
	SignalKind          = model.SignalKind
	Span                = model.Span
	SpanDigest          = model.SpanDigest
	SpanID              = model.SpanID
	SpanKey             = model.SpanKey
	SpanSample          = model.SpanSample
	SpanKind            = model.SpanKind
	Sym                 = model.Sym
	Time                = model.Time
	TraceID             = model.TraceID
	Warning             = model.Warning
)

// The model's constants.
const (
	DerivedSource            = model.DerivedSource
	EdgeCalls                = model.EdgeCalls
	EdgeClient               = model.EdgeClient
	EdgeErrors               = model.EdgeErrors
	EdgeGap                  = model.EdgeGap
	EdgeServer               = model.EdgeServer
	EventBackOff             = model.EventBackOff
	EventConfig              = model.EventConfig
	EventDeploy              = model.EventDeploy
	EventOOMKill             = model.EventOOMKill
	EventOther               = model.EventOther
	EventRestart             = model.EventRestart
	EventSchedule            = model.EventSchedule
	EventWarning             = model.EventWarning
	EventXID                 = model.EventXID
	FormatAlertmanager       = model.FormatAlertmanager
	FormatChangeRecords      = model.FormatChangeRecords
	FormatCRILog             = model.FormatCRILog
	FormatDockerJSONLog      = model.FormatDockerJSONLog
	FormatJaegerDependencies = model.FormatJaegerDependencies
	FormatJaegerJSON         = model.FormatJaegerJSON
	FormatJaegerProto        = model.FormatJaegerProto
	FormatK8sEvents          = model.FormatK8sEvents
	FormatK8sObjects         = model.FormatK8sObjects
	FormatKineto             = model.FormatKineto
	FormatLabel              = model.FormatLabel
	FormatLokiStreams        = model.FormatLokiStreams
	FormatManifest           = model.FormatManifest
	FormatNVMLRecording      = model.FormatNVMLRecording
	FormatNsightSQLite       = model.FormatNsightSQLite
	FormatNvidiaSmiCSV       = model.FormatNvidiaSmiCSV
	FormatNvidiaSmiDmon      = model.FormatNvidiaSmiDmon
	FormatOTLPJSON           = model.FormatOTLPJSON
	FormatOTLPLogs           = model.FormatOTLPLogs
	FormatOTLPLogsProto      = model.FormatOTLPLogsProto
	FormatOTLPProto          = model.FormatOTLPProto
	FormatPromQueryRange     = model.FormatPromQueryRange
	FormatTextLog            = model.FormatTextLog
	FormatUnknown            = model.FormatUnknown
	FormatVictoriaLogs       = model.FormatVictoriaLogs
	JoinNone                 = model.JoinNone
	JoinPodTime              = model.JoinPodTime
	JoinSpanID               = model.JoinSpanID
	JoinTraceTime            = model.JoinTraceTime
	KindEdge                 = model.KindEdge
	KindGPU                  = model.KindGPU
	KindNode                 = model.KindNode
	KindPod                  = model.KindPod
	KindRollout              = model.KindRollout
	KindService              = model.KindService
	KindUnknown              = model.KindUnknown
	LLMAttrDecode            = model.LLMAttrDecode
	LLMAttrE2E               = model.LLMAttrE2E
	LLMAttrInputTokens       = model.LLMAttrInputTokens
	LLMAttrNone              = model.LLMAttrNone
	LLMAttrOutputTokens      = model.LLMAttrOutputTokens
	LLMAttrTPOT              = model.LLMAttrTPOT
	LLMAttrTTFT              = model.LLMAttrTTFT
	LogErrors                = model.LogErrors
	LogMissingTemplates      = model.LogMissingTemplates
	LogMixShift              = model.LogMixShift
	LogNewTemplates          = model.LogNewTemplates
	LogPatternShift          = model.LogPatternShift
	LogRecords               = model.LogRecords
	SeverityDebug            = model.SeverityDebug
	SeverityError            = model.SeverityError
	SeverityFatal            = model.SeverityFatal
	SeverityInfo             = model.SeverityInfo
	SeverityTrace            = model.SeverityTrace
	SeverityUnknown          = model.SeverityUnknown
	SeverityWarn             = model.SeverityWarn
	SignalCPU                = model.SignalCPU
	SignalCPUThrottle        = model.SignalCPUThrottle
	SignalChange             = model.SignalChange
	SignalDiskIO             = model.SignalDiskIO
	SignalErrors             = model.SignalErrors
	SignalGPUClock           = model.SignalGPUClock
	SignalGPUMemBW           = model.SignalGPUMemBW
	SignalGPUMemory          = model.SignalGPUMemory
	SignalGPUThrottle        = model.SignalGPUThrottle
	SignalGPUUtil            = model.SignalGPUUtil
	SignalKVCache            = model.SignalKVCache
	SignalLatency            = model.SignalLatency
	SignalLogs               = model.SignalLogs
	SignalMemory             = model.SignalMemory
	SignalNVLink             = model.SignalNVLink
	SignalNetwork            = model.SignalNetwork
	SignalOther              = model.SignalOther
	SignalPower              = model.SignalPower
	SignalQueue              = model.SignalQueue
	SignalRestarts           = model.SignalRestarts
	SignalTemperature        = model.SignalTemperature
	SignalTraffic            = model.SignalTraffic
	SignalXID                = model.SignalXID
	SpanClient               = model.SpanClient
	SpanConsumer             = model.SpanConsumer
	SpanInternal             = model.SpanInternal
	SpanProducer             = model.SpanProducer
	SpanServer               = model.SpanServer
	SpanUnspecified          = model.SpanUnspecified
	TraceErrorRatio          = model.TraceErrorRatio
	TraceErrors              = model.TraceErrors
	TraceLatency             = model.TraceLatency
	TraceOpMix               = model.TraceOpMix
	TraceRequests            = model.TraceRequests
	TraceSelf                = model.TraceSelf
)

// The model's variables: sentinel warning kinds and tables (the same values).
var (
	ErrBadValue      = model.ErrBadValue
	ErrClockSkew     = model.ErrClockSkew
	ErrCounterReset  = model.ErrCounterReset
	ErrDuplicateID   = model.ErrDuplicateID
	ErrGap           = model.ErrGap
	ErrLimit         = model.ErrLimit
	ErrOrphanSpan    = model.ErrOrphanSpan
	ErrPartialInput  = model.ErrPartialInput
	ErrSkippedInput  = model.ErrSkippedInput
	ErrSourceWarning = model.ErrSourceWarning
	ErrUnmatched     = model.ErrUnmatched
	HexVal           = model.HexVal
	SpanKindNames    = model.SpanKindNames
)

// The model's functions.

func ComponentBase(name string) string                       { return model.ComponentBase(name) }
func FirstNonEmpty(vs ...string) string                      { return model.FirstNonEmpty(vs...) }
func FromTime(t time.Time) Time                              { return model.FromTime(t) }
func FromUnixMicro(us int64) Time                            { return model.FromUnixMicro(us) }
func FromUnixSeconds(s float64) Time                         { return model.FromUnixSeconds(s) }
func Intern(s string) Sym                                    { return model.Intern(s) }
func IsDigits(s string) bool                                 { return model.IsDigits(s) }
func LookupSym(s string) (Sym, bool)                         { return model.LookupSym(s) }
func LLMAttrOf(key string) LLMAttr                           { return model.LLMAttrOf(key) }
func MatchService(name string, known map[string]bool) string { return model.MatchService(name, known) }
func NewInterner(max int) *Interner                          { return model.NewInterner(max) }
func NewLLMRequest() LLMRequest                              { return model.NewLLMRequest() }
func NormalizeHost(s string) string                          { return model.NormalizeHost(s) }
func ParseSeverity(s string) (Severity, bool)                { return model.ParseSeverity(s) }
func ParseSignalKind(name string) (SignalKind, bool)         { return model.ParseSignalKind(name) }
func ParseSpanID(s string) (SpanID, error)                   { return model.ParseSpanID(s) }
func ParseSpanKind(s string) SpanKind                        { return model.ParseSpanKind(s) }
func ParseTraceID(s string) (TraceID, error)                 { return model.ParseTraceID(s) }
func SatAdd(a int64, b int64) int64                          { return model.SatAdd(a, b) }
func SatSub(a int64, b int64) int64                          { return model.SatSub(a, b) }
func SeverityFromNumber(n int) Severity                      { return model.SeverityFromNumber(n) }
func SortLabels(ls Labels)                                   { model.SortLabels(ls) }
func TruncateExample(s string) string                        { return model.TruncateExample(s) }
func TruncateUTF8(s string, n int) string                    { return model.TruncateUTF8(s, n) }
func WorkloadOf(pod string) string                           { return model.WorkloadOf(pod) }

// Classification lives in package ingest/classify; these are its names as
// the stages after ingest have always called them.

// ClassifySeries is classify.Series: the series' signal kind, statistic,
// unit and entity from its name and labels.
func ClassifySeries(s *Series)                     { classify.Series(s) }
func BadDirection(s *Series) int                   { return classify.BadDirection(s) }
func FirstLabel(ls Labels, names ...string) string { return classify.FirstLabel(ls, names...) }
func IdentityLabel(name string) bool               { return classify.IdentityLabel(name) }
func MeasuresNode(name string) bool                { return classify.MeasuresNode(name) }
func PodOf(s *Series) string                       { return classify.PodOf(s) }
func ServiceLabel(ls Labels) string                { return classify.ServiceLabel(ls) }
func VersionOf(ls Labels) string                   { return classify.VersionOf(ls) }

// NodeLabelNames is classify.NodeLabelNames (the same slice).
var NodeLabelNames = classify.NodeLabelNames
