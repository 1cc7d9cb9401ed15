package live

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Log sources: Grafana Loki (/loki/api/v1/query_range with a LogQL stream
// selector) and VictoriaLogs (/select/logsql/query with a LogsQL query).
// Both are paged forward in time: a page asks for at most Page entries from
// its start; a full page moves the start past its newest entry. Every page
// is saved as it came (logs/loki_NNN.json, logs/victorialogs_NNN.jsonl),
// which ingest reads like any other Loki or VictoriaLogs file, so a saved
// bundle replays byte for byte.

// LogOptions configure a log fetch.
type LogOptions struct {
	Start, End time.Time
	// Selector is the stream selector ({namespace="shop"}); LogQL and
	// LogsQL share this syntax. Empty: ServiceSelector(Services).
	Selector string
	Services []string // the services found in traces, for the default selector
	Page     int      // entries per request, 0 = 5,000 (Loki's default max_entries_limit_per_query)
	Max      int      // most entries in all, 0 = 200,000
	Progress func(format string, args ...any)
}

// Log fetch defaults.
const (
	DefaultLogPage = 5000
	DefaultLogMax  = 200_000
)

// LogResult is what a log fetch returned.
type LogResult struct {
	Query    string // the selector or LogsQL query that was run
	Files    []File
	Records  int
	Requests int
	Capped   bool   // Max was reached before the end of the range
	Err      string // the first failed request ("" when none)
}

// ServiceSelector is the default selector: the traced services, by Loki's
// service_name label ({service_name=~"a|b"}); "" when there are none.
func ServiceSelector(services []string) string {
	var alt []string
	for _, s := range services {
		if s != "" {
			alt = append(alt, regexp.QuoteMeta(s))
		}
	}
	if len(alt) == 0 {
		return ""
	}
	return `{service_name=~` + strconv.Quote(strings.Join(alt, "|")) + `}`
}

func (o *LogOptions) defaults() (string, error) {
	if o.Page <= 0 {
		o.Page = DefaultLogPage
	}
	if o.Max <= 0 {
		o.Max = DefaultLogMax
	}
	sel := strings.TrimSpace(o.Selector)
	if sel == "" {
		sel = ServiceSelector(o.Services)
	}
	if sel == "" {
		return "", fmt.Errorf("no log selector: give --log-selector (no traced services to default to)")
	}
	if o.Progress == nil {
		o.Progress = func(string, ...any) {}
	}
	return sel, nil
}

// lokiPage is the part of a query_range answer paging needs.
type lokiPage struct {
	Status string `json:"status"`
	Error  string `json:"error"`
	Data   struct {
		ResultType string `json:"resultType"`
		Result     []struct {
			Values [][]json.RawMessage `json:"values"`
		} `json:"result"`
	} `json:"data"`
}

// FetchLoki pages a Loki query_range (direction=forward) over the range.
func FetchLoki(ctx context.Context, c *Client, opt LogOptions) (*LogResult, error) {
	sel, err := opt.defaults()
	if err != nil {
		return nil, err
	}
	res := &LogResult{Query: sel}
	start, end := opt.Start.UnixNano(), opt.End.UnixNano()
	for start < end && res.Records < opt.Max {
		limit := min(opt.Page, opt.Max-res.Records)
		q := url.Values{"query": {sel}, "start": {strconv.FormatInt(start, 10)}, "end": {strconv.FormatInt(end, 10)},
			"limit": {strconv.Itoa(limit)}, "direction": {"forward"}}
		body, err := c.Get(ctx, "/loki/api/v1/query_range", q)
		res.Requests++
		if err != nil {
			res.Err = err.Error()
			if res.Records == 0 {
				return res, fmt.Errorf("loki: %w", err)
			}
			break
		}
		var p lokiPage
		if err := json.Unmarshal(body, &p); err != nil {
			res.Err = fmt.Sprintf("decode query_range: %v", err)
			return res, fmt.Errorf("loki: %s", res.Err)
		}
		if p.Status != "success" || p.Data.ResultType != "streams" {
			res.Err = fmt.Sprintf("status %q, resultType %q: %s", p.Status, p.Data.ResultType, p.Error)
			return res, fmt.Errorf("loki: %s", res.Err)
		}
		n, newest := 0, int64(0)
		for _, s := range p.Data.Result {
			for _, v := range s.Values {
				n++
				var ts string
				if len(v) > 0 && json.Unmarshal(v[0], &ts) == nil {
					if t, err := strconv.ParseInt(ts, 10, 64); err == nil && t > newest {
						newest = t
					}
				}
			}
		}
		if n == 0 {
			break
		}
		res.Records += n
		res.Files = append(res.Files, File{Path: fmt.Sprintf("logs/loki_%03d.json", len(res.Files)+1), Data: body})
		opt.Progress("loki: page %d: %d entries up to %s", len(res.Files), n, time.Unix(0, newest).UTC().Format(time.RFC3339Nano))
		if n < limit || newest < start {
			break
		}
		start = newest + 1 // entries at exactly that nanosecond beyond the page are lost (stated in docs/live.md)
	}
	res.Capped = res.Records >= opt.Max
	return res, nil
}

// FetchVictoriaLogs pages a VictoriaLogs LogsQL query
// (`<selector> | sort by (_time)`, start/end/limit) over the range.
func FetchVictoriaLogs(ctx context.Context, c *Client, opt LogOptions) (*LogResult, error) {
	sel, err := opt.defaults()
	if err != nil {
		return nil, err
	}
	query := sel + " | sort by (_time)"
	res := &LogResult{Query: query}
	start := opt.Start
	for start.Before(opt.End) && res.Records < opt.Max {
		limit := min(opt.Page, opt.Max-res.Records)
		q := url.Values{"query": {query}, "start": {start.UTC().Format(time.RFC3339Nano)}, "end": {opt.End.UTC().Format(time.RFC3339Nano)},
			"limit": {strconv.Itoa(limit)}}
		body, err := c.PostForm(ctx, "/select/logsql/query", q)
		res.Requests++
		if err != nil {
			res.Err = err.Error()
			if res.Records == 0 {
				return res, fmt.Errorf("victorialogs: %w", err)
			}
			break
		}
		n := 0
		var newest time.Time
		sc := bufio.NewScanner(bytes.NewReader(body))
		sc.Buffer(make([]byte, 64<<10), int(max(c.opt.MaxBody, 64<<10)))
		for sc.Scan() {
			line := bytes.TrimSpace(sc.Bytes())
			if len(line) == 0 {
				continue
			}
			var rec struct {
				Time string `json:"_time"`
			}
			if err := json.Unmarshal(line, &rec); err != nil {
				res.Err = fmt.Sprintf("decode query result line %d: %v", n+1, err)
				return res, fmt.Errorf("victorialogs: %s", res.Err)
			}
			n++
			if t, err := time.Parse(time.RFC3339Nano, rec.Time); err == nil && t.After(newest) {
				newest = t
			}
		}
		if n == 0 {
			break
		}
		res.Records += n
		res.Files = append(res.Files, File{Path: fmt.Sprintf("logs/victorialogs_%03d.jsonl", len(res.Files)+1), Data: body})
		opt.Progress("victorialogs: page %d: %d records up to %s", len(res.Files), n, newest.Format(time.RFC3339Nano))
		if n < limit || newest.Before(start) {
			break
		}
		start = newest.Add(time.Nanosecond)
	}
	res.Capped = res.Records >= opt.Max
	return res, nil
}
