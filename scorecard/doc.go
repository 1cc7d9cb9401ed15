// Package scorecard is the last stage of the pipeline: it turns one analysis
// into the report a person reads, in four formats, from one model.
//
// # What it owns, what it must not do
//
// It owns the Card model, its wording (evidence sentences, verdicts, value
// formatting) and the four renderers. Build reads the graph, the ranked
// result and the evidence the driver gathered (package evidence); it never
// reads the *ingest.Bundle, and renderers read only the Card. It must not
// rank, score or recompute anything the analysis decided.
//
// # Model
//
// A [Card] is plain data: what was analysed (Incident: target signal, windows,
// and why that target and instant were chosen), the one-line [Verdict] with its
// counterfactual in plain words, the ranked [Cause] candidates (each with its
// do()-[Intervention], scored [Dimension] values, [Evidence] bullets and
// propagation [PathStep] chain), the share of the deviation nothing explains,
// what pruning dropped ([Pruned]), up to three bottleneck [Heatmap] grids,
// numbered data-quality [Footnote] warnings, the [InputRow] table, the entity
// [Inventory], a rerun [Manifest] and, for an LLM-serving incident whose
// requests carry their shapes, the [reportview.RequestShape] section
// (shape.go adds the causes' bearings and writes it; the section and its
// renderings are package internal/reportview's, which compare shares: the
// only section absent from the JSON when empty). The analysis stages fill
// it (build.go); renderers only read it, never re-rank or recompute it.
//
// Unknown numbers are NaN and render as "~" (JSON null); unknown instants are
// the zero ingest.Time and render as "-" (JSON null). Every number is shown at
// a fixed precision (scores 3 decimals, confidences 2, shares whole percent,
// measured values by magnitude band) so equal cards render byte-identically.
//
// # Renderers
//
// [Render] writes a Card as one of [Formats]:
//
//   - text: a terminal report within RenderOptions.Width runes (default 100),
//     Unicode block heatmaps (· ░ ▒ ▓ █, ▼ onset and ! alert columns), ANSI
//     colour only when RenderOptions.Color is set (the CLI decides from the TTY
//     and NO_COLOR). Input strings are stripped of control and bidi characters,
//     so a span name cannot inject terminal escapes.
//   - json: the Card under snake_case keys in struct order, every key present;
//     times RFC3339Nano UTC, durations in float seconds (*_seconds keys), NaN
//     as null; described by docs/scorecard.schema.json (draft 2020-12).
//   - markdown: GitHub-flavoured, pastes into GitHub, GitLab and Jira Cloud;
//     every input string escaped (pipes, backticks, brackets, mentions, HTML as
//     entities); heatmaps in fenced blocks whose fence outgrows any backtick run.
//   - html: one self-contained page (no scripts, fonts, images or network; a
//     Content-Security-Policy of default-src 'none'), built with html/template,
//     with inline-SVG heatmaps (blue→red scale, legend, markers, time axis), an
//     inline-SVG propagation graph of the top causes, and print CSS.
//
// Heatmaps are prepared once ([Heatmap] rows stably ordered by depth, slices
// merged by maximum when they exceed the available columns) so that every
// format shows the same picture.
//
// # Tests
//
// Golden files in testdata/<card>.<variant>.golden cover all formats for a
// confident and an abstaining card (go test -run TestGolden -update rewrites
// them). TestHTMLChromium loads the HTML in headless Chromium when
// /usr/bin/chromium exists and saves a screenshot to $ARTIFACTS_DIR.
package scorecard
