// Package reportview holds the report sections the scorecard and compare
// both show, so that neither report imports the other: the request-shape
// section ([RequestShape], built from a shape.Map by [NewRequestShape];
// shape.go) with its renderings in text, Markdown and HTML
// ([ShapeTextLines], [ShapeMarkdown], [ShapeHTML]; shape_render.go), and
// the query links of a series ([SeriesQuery], its PromQL, and
// [GrafanaExplore], Grafana's Explore view of it; query.go).
//
// It sits below both renderers and beside internal/reportfmt, whose
// conventions (sanitizing, Markdown escaping, wrapping) it uses: it imports
// only the data (ingest, shape) and reportfmt. What each report adds — the
// card's bearings of its causes, compare's count of the cells that moved —
// stays in that report.
package reportview
