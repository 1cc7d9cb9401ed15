// Package reportfmt holds the presentation conventions every report of
// pipeline-analyze shares — the scorecard, the compare and canary reports
// and the profile comparison: how an input-derived string is made safe
// (Sanitize) and escaped for Markdown (EscapeMarkdown, MarkdownFence), how
// numbers, digests and command lines are written (FormatFixed, FormatValue,
// ShortHash, ShellCommand), how prose wraps to a width (Wrap), the heatmap
// colour scale (HeatColor), the JSON conventions (MarshalJSONValue), the
// HTML pages' style sheet (StyleSheet), and the format table each report's
// Render dispatches through (Formats).
//
// It sits beside the stages, below every renderer: it imports only the
// data model (for ingest.Time's JSON form), so a report can share the
// scorecard's look without importing the scorecard.
package reportfmt
