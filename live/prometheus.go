package live

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/pipeline-analyze/pipeline-analyze/internal/parallel"
)

// maxPointsPerSeries is Prometheus' own query_range limit (11,000 points).
const maxPointsPerSeries = 11000

// PromOptions configure a query_range fetch.
type PromOptions struct {
	Start, End  time.Time     // the whole range: baseline + window
	Step        time.Duration // 0 = 15 s; raised to keep under 11,000 points
	Concurrency int           // queries in flight, 0 = 4
	Budget      *Budget       // bytes of bodies kept in memory, nil = unbounded
	Progress    func(format string, args ...any)
}

// QueryResult is what one query returned.
type QueryResult struct {
	Query
	Series, Points int
	Took           time.Duration `json:"-"`
	Err            string        // "" when it succeeded
	Body           []byte        `json:"-"` // the raw query_range response ("" on error)
}

// EffectiveStep is the step actually used for the range.
func EffectiveStep(start, end time.Time, step time.Duration) time.Duration {
	if step <= 0 {
		step = 15 * time.Second
	}
	if n := end.Sub(start) / step; n > maxPointsPerSeries {
		step = (end.Sub(start) + maxPointsPerSeries - 1) / maxPointsPerSeries
		step = (step + time.Second - 1) / time.Second * time.Second
	}
	return step
}

// promResponse is the part of a query_range answer we check.
type promResponse struct {
	Status    string `json:"status"`
	ErrorType string `json:"errorType"`
	Error     string `json:"error"`
	Data      struct {
		ResultType string `json:"resultType"`
		Result     []struct {
			Values countedArray `json:"values"`
		} `json:"result"`
	} `json:"data"`
}

// countedArray is a JSON array of which only the length is kept (a point
// list is counted, not decoded: the body itself is what is saved).
type countedArray int

// UnmarshalJSON counts the top-level elements of an array.
func (c *countedArray) UnmarshalJSON(b []byte) error {
	n, depth, in, esc, empty := 0, 0, false, false, true
	for _, x := range b {
		switch {
		case in:
			switch {
			case esc:
				esc = false
			case x == '\\':
				esc = true
			case x == '"':
				in = false
			}
			continue
		case x == '"':
			in = true
		case x == '[' || x == '{':
			depth++
			continue
		case x == ']' || x == '}':
			depth--
			continue
		case x == ',' && depth == 1:
			n++
			continue
		}
		if depth >= 1 && x > ' ' {
			empty = false
		}
	}
	if !empty {
		n++
	}
	*c = countedArray(n)
	return nil
}

// FetchPrometheus runs every query over the range, at most opt.Concurrency
// at a time, and returns one result per query in the order given. A failed
// query is a result with Err set, not an error; so is a query that was not
// run because the context ended (the fetch deadline), or whose body did not
// fit opt.Budget. The error is always nil (kept for callers).
func FetchPrometheus(ctx context.Context, c *Client, queries []Query, opt PromOptions) ([]QueryResult, error) {
	step := EffectiveStep(opt.Start, opt.End, opt.Step)
	conc := opt.Concurrency
	if conc <= 0 {
		conc = 4
	}
	out := make([]QueryResult, len(queries))
	sem := make(chan struct{}, conc)
	var g parallel.Group // a panic in a query reaches the caller
	var mu sync.Mutex    // serialises progress lines
	for i, q := range queries {
		sem <- struct{}{}
		g.Go(func() {
			defer func() { <-sem }()
			r := QueryResult{Query: q, Err: "not run: the fetch deadline was reached"}
			if ctx.Err() == nil {
				r = runQuery(ctx, c, q, opt.Start, opt.End, step)
			}
			if r.Err == "" && !opt.Budget.take(int64(len(r.Body))) {
				r.Body, r.Err = nil, fmt.Sprintf("dropped: its %d MiB do not fit the fetch's memory budget (--max-fetch-size)", len(r.Body)>>20)
			}
			out[i] = r
			if opt.Progress != nil {
				mu.Lock()
				if r.Err != "" {
					opt.Progress("prometheus: %s (%s): failed after %v: %s", q.Name, q.Pack, r.Took.Round(time.Millisecond), r.Err)
				} else {
					opt.Progress("prometheus: %s (%s): %d series, %d points in %v", q.Name, q.Pack, r.Series, r.Points, r.Took.Round(time.Millisecond))
				}
				mu.Unlock()
			}
		})
	}
	g.Wait()
	return out, nil
}

func runQuery(ctx context.Context, c *Client, q Query, start, end time.Time, step time.Duration) QueryResult {
	r := QueryResult{Query: q}
	t0 := time.Now()
	form := url.Values{
		"query": {q.Expr},
		"start": {strconv.FormatFloat(float64(start.UnixMilli())/1e3, 'f', 3, 64)},
		"end":   {strconv.FormatFloat(float64(end.UnixMilli())/1e3, 'f', 3, 64)},
		"step":  {strconv.FormatFloat(step.Seconds(), 'f', -1, 64)},
	}
	body, err := c.PostForm(ctx, "/api/v1/query_range", form)
	var pr promResponse
	if jerr := json.Unmarshal(body, &pr); jerr == nil && pr.Status == "error" {
		// Prometheus answers bad PromQL with 400 and a JSON error: say what it said.
		r.Err = fmt.Sprintf("%s: %s", pr.ErrorType, pr.Error)
		r.Took = time.Since(t0)
		return r
	} else if err == nil && jerr != nil {
		err = fmt.Errorf("decode query_range: %w", jerr)
	}
	if err != nil {
		r.Err = err.Error()
		r.Took = time.Since(t0)
		return r
	}
	if pr.Status != "success" {
		r.Err = fmt.Sprintf("status %q", pr.Status)
		r.Took = time.Since(t0)
		return r
	}
	r.Series = len(pr.Data.Result)
	for _, s := range pr.Data.Result {
		r.Points += int(s.Values)
	}
	r.Body = body
	r.Took = time.Since(t0)
	return r
}

// Budget bounds the bytes a fetch keeps in memory (trace parts, query
// bodies) over all its sources; what does not fit is dropped and counted.
// A nil *Budget is unbounded. Safe for concurrent use.
type Budget struct{ left atomic.Int64 }

// NewBudget returns a budget of n bytes.
func NewBudget(n int64) *Budget {
	b := &Budget{}
	b.left.Store(n)
	return b
}

// take reserves n bytes, false (and nothing reserved) when they do not fit.
func (b *Budget) take(n int64) bool {
	if b == nil {
		return true
	}
	for {
		left := b.left.Load()
		if n > left {
			return false
		}
		if b.left.CompareAndSwap(left, left-n) {
			return true
		}
	}
}
