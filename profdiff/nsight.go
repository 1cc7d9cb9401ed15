package profdiff

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	_ "modernc.org/sqlite" // pure-Go SQLite driver, registered as "sqlite"
)

// The Nsight Systems reader (nsys export --type sqlite). An export is
// untrusted input that can run code of its own, so it is read as ingest's
// Nsight decoder reads it: opened read-only and immutable, only real tables
// of the names below (a view is named in an error), every cell checked by
// typeof()/octet_length() before it is loaded, rows capped with LIMIT,
// names resolved one distinct ID at a time, every query under
// lim.QueryTimeout; tables and columns are looked up by name (schemas
// change between versions). GPU activities come from the CUPTI kernel,
// memcpy and memset tables; their launches from the CUDA runtime table
// (correlationId → globalTid, start); layers from NVTX push/pop and
// start/end ranges (NVTX_EVENTS, eventType 59 and 60) on the launching
// thread.

var nsysTables = []string{"CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET",
	"CUPTI_ACTIVITY_KIND_RUNTIME", "NVTX_EVENTS", "StringIds"}

// NVTX event types of ranges (nsys' NvtxEventType).
const (
	nvtxPushPop  = 59
	nvtxStartEnd = 60
)

// numCol selects column c only when it holds a number (NULL otherwise).
func numCol(c string) string {
	return fmt.Sprintf(`CASE typeof("%[1]s") WHEN 'integer' THEN "%[1]s" WHEN 'real' THEN CASE WHEN abs("%[1]s") < 9e18 THEN CAST("%[1]s" AS INTEGER) END END`, c)
}

// strCol selects column c only when it is at most max bytes long.
func strCol(c string, max int) string {
	return fmt.Sprintf(`CASE WHEN octet_length("%s") <= %d THEN "%s" END`, c, max, c)
}

// nsysDB is an open export with its table/column catalogue.
type nsysDB struct {
	db      *sql.DB
	ctx     context.Context
	cols    map[string]map[string]bool
	maxStr  int
	strStmt *sql.Stmt
	strs    map[int64]string
}

func (n *nsysDB) has(table string, cols ...string) bool {
	c := n.cols[table]
	for _, x := range cols {
		if !c[x] {
			return false
		}
	}
	return c != nil
}

// str resolves a name cell: a StringIds id (once per id) or the text.
func (n *nsysDB) str(v any) (string, error) {
	switch x := v.(type) {
	case int64:
		if s, ok := n.strs[x]; ok {
			return s, nil
		}
		var s sql.NullString
		if n.strStmt != nil {
			if err := n.strStmt.QueryRowContext(n.ctx, x).Scan(&s); err != nil && !errors.Is(err, sql.ErrNoRows) {
				return "", err
			}
		}
		n.strs[x] = s.String
		return s.String, nil
	case string:
		return x, nil
	case []byte:
		return string(x), nil
	}
	return "", nil
}

// firstCol is the first of cols that table has ("" when none).
func (n *nsysDB) firstCol(table string, cols ...string) string {
	for _, c := range cols {
		if n.has(table, c) {
			return c
		}
	}
	return ""
}

// readNsight reads an Nsight SQLite export at path (a real file) into a
// capture, keeping at most lim.MaxSpans rows.
func readNsight(name, path string, lim ingest.Limits) (*capture, error) {
	u := url.URL{Scheme: "file", Opaque: (&url.URL{Path: path}).EscapedPath(), RawQuery: "mode=ro&immutable=1"}
	db, err := sql.Open("sqlite", u.String())
	if err != nil {
		return nil, fmt.Errorf("read nsight %s: %w", name, err)
	}
	defer db.Close()
	ctx, cancel := context.WithTimeout(context.Background(), lim.QueryTimeout)
	defer cancel()
	bad := func(err error) error {
		if ctx.Err() != nil {
			err = fmt.Errorf("%w: SQLite queries ran longer than %v (--query-timeout)", ingest.ErrLimit, lim.QueryTimeout)
		}
		return &ingest.InputError{File: name, Offset: -1, Err: fmt.Errorf("nsight sqlite: %w", err)}
	}
	n := &nsysDB{db: db, ctx: ctx, cols: map[string]map[string]bool{}, maxStr: max(lim.MaxStringBytes, 256), strs: map[int64]string{}}
	var views []string
	for _, t := range nsysTables {
		var typ string
		err := db.QueryRowContext(ctx, `SELECT type FROM sqlite_master WHERE name = ? AND type IN ('table','view') LIMIT 1`, t).Scan(&typ)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			continue
		case err != nil:
			return nil, bad(err)
		case typ != "table":
			views = append(views, t)
			continue
		}
		cs, err := db.QueryContext(ctx, `SELECT name FROM pragma_table_info(?) LIMIT 1000`, t)
		if err != nil {
			return nil, bad(err)
		}
		m := map[string]bool{}
		for cs.Next() {
			var col string
			if cs.Scan(&col) == nil {
				m[col] = true
			}
		}
		cs.Close()
		n.cols[t] = m
	}
	if len(views) > 0 {
		return nil, bad(fmt.Errorf("%s: a view, not a table (not read: a view can run any query)", strings.Join(views, ", ")))
	}
	if !n.has("CUPTI_ACTIVITY_KIND_KERNEL", "start", "end", "deviceId") {
		return nil, bad(errors.New("no CUPTI_ACTIVITY_KIND_KERNEL table with start, end and deviceId: the export has no CUDA kernels"))
	}
	if n.has("StringIds", "id", "value") {
		if n.strStmt, err = db.PrepareContext(ctx, `SELECT `+strCol("value", n.maxStr)+` FROM StringIds WHERE id = ? LIMIT 1`); err != nil {
			return nil, bad(err)
		}
		defer n.strStmt.Close()
	}
	c := newCapture(name, "nsight", lim.MaxStringBytes)
	rows := 0
	left := func() int { return max(lim.MaxSpans-rows, 0) }
	// query runs q (LIMIT left+1 appended) and calls f per row; it records
	// a drop when the table had more.
	query := func(table, q string, f func(r *sql.Rows) error) error {
		budget := left()
		r, err := db.QueryContext(ctx, q+fmt.Sprintf(" LIMIT %d", budget+1))
		if err != nil {
			return fmt.Errorf("%s: %w", table, err)
		}
		defer r.Close()
		for got := 0; r.Next(); got++ {
			if got == budget {
				c.dropped++
				break
			}
			rows++
			if err := f(r); err != nil {
				return fmt.Errorf("%s: %w", table, err)
			}
		}
		return r.Err()
	}
	for _, t := range []struct {
		table string
		kind  actKind
	}{{"CUPTI_ACTIVITY_KIND_KERNEL", actKernel}, {"CUPTI_ACTIVITY_KIND_MEMCPY", actMemcpy}, {"CUPTI_ACTIVITY_KIND_MEMSET", actMemset}} {
		if !n.has(t.table, "start", "end", "deviceId") {
			continue
		}
		nameCol, corrCol, streamCol := "NULL", "NULL", "NULL"
		if t.kind == actKernel {
			if col := n.firstCol(t.table, "shortName", "demangledName", "name"); col != "" {
				nameCol = strCol(col, n.maxStr)
			}
		}
		if t.kind == actMemcpy && n.has(t.table, "copyKind") {
			nameCol = numCol("copyKind")
		}
		if n.has(t.table, "correlationId") {
			corrCol = numCol("correlationId")
		}
		if n.has(t.table, "streamId") {
			streamCol = numCol("streamId")
		}
		q := fmt.Sprintf(`SELECT %s, %s, %s, %s, %s, %s FROM %s`, numCol("start"), numCol("end"), numCol("deviceId"), corrCol, streamCol, nameCol, t.table)
		err := query(t.table, q, func(r *sql.Rows) error {
			var s, e, dev, corr, stream sql.NullInt64
			var nm any
			if err := r.Scan(&s, &e, &dev, &corr, &stream, &nm); err != nil {
				return err
			}
			if !s.Valid || !e.Valid || e.Int64 < s.Int64 {
				return nil
			}
			k := kernel{kind: t.kind, start: s.Int64, dur: e.Int64 - s.Int64, corr: -1,
				gpuTrack: c.thread(strconv.FormatInt(dev.Int64, 10), "s"+strconv.FormatInt(stream.Int64, 10))}
			if corr.Valid {
				k.corr = corr.Int64
			}
			switch t.kind {
			case actKernel:
				str, err := n.str(nm)
				if err != nil {
					return err
				}
				k.name = c.names.id(kernelName(str))
			case actMemcpy:
				k.name = c.names.id(copyKindName(nm))
			default:
				k.name = c.names.id("memset")
			}
			c.kernels = append(c.kernels, k)
			return nil
		})
		if err != nil {
			return nil, bad(err)
		}
	}
	if n.has("CUPTI_ACTIVITY_KIND_RUNTIME", "start", "globalTid", "correlationId") {
		q := fmt.Sprintf(`SELECT %s, %s, %s FROM CUPTI_ACTIVITY_KIND_RUNTIME WHERE typeof(correlationId) = 'integer'`, numCol("start"), numCol("globalTid"), numCol("correlationId"))
		err := query("CUPTI_ACTIVITY_KIND_RUNTIME", q, func(r *sql.Rows) error {
			var s, tid, corr sql.NullInt64
			if err := r.Scan(&s, &tid, &corr); err != nil {
				return err
			}
			if s.Valid && corr.Valid {
				c.launches = append(c.launches, launch{corr: corr.Int64, thread: c.thread("t", strconv.FormatInt(tid.Int64, 10)), ts: s.Int64})
			}
			return nil
		})
		if err != nil {
			return nil, bad(err)
		}
	}
	if n.has("NVTX_EVENTS", "start", "end", "eventType", "globalTid") {
		textCol, idCol := "NULL", "NULL"
		if n.has("NVTX_EVENTS", "text") {
			textCol = strCol("text", n.maxStr)
		}
		if n.has("NVTX_EVENTS", "textId") {
			idCol = numCol("textId")
		}
		q := fmt.Sprintf(`SELECT %s, %s, %s, %s, %s FROM NVTX_EVENTS WHERE eventType IN (%d, %d) AND typeof("end") = 'integer'`,
			numCol("start"), numCol("end"), numCol("globalTid"), textCol, idCol, nvtxPushPop, nvtxStartEnd)
		err := query("NVTX_EVENTS", q, func(r *sql.Rows) error {
			var s, e, tid, id sql.NullInt64
			var text sql.NullString
			if err := r.Scan(&s, &e, &tid, &text, &id); err != nil {
				return err
			}
			if !s.Valid || !e.Valid || e.Int64 < s.Int64 {
				return nil
			}
			nm := text.String
			if !text.Valid && id.Valid {
				var err error
				if nm, err = n.str(id.Int64); err != nil {
					return err
				}
			}
			nm = normalizeRange(nm)
			if nm == "" {
				return nil
			}
			kind := rangeAnnotation
			if isStep(nm) {
				kind = rangeStep
			}
			c.ranges = append(c.ranges, span{thread: c.thread("t", strconv.FormatInt(tid.Int64, 10)), start: s.Int64, end: e.Int64, name: c.names.id(nm), kind: kind})
			return nil
		})
		if err != nil {
			return nil, bad(err)
		}
	}
	if c.dropped > 0 {
		c.warnings = append(c.warnings, fmt.Sprintf("%s: stopped after %d rows (--max-spans); the rest of the export was not read", name, lim.MaxSpans))
	}
	return c, nil
}

// copyKindName names a copy by CUPTI's copyKind (1 HtoD, 2 DtoH, 8 DtoD,
// 10 PtoP).
func copyKindName(v any) string {
	if k, ok := v.(int64); ok {
		switch k {
		case 1:
			return "memcpy HtoD"
		case 2:
			return "memcpy DtoH"
		case 8:
			return "memcpy DtoD"
		case 10:
			return "memcpy PtoP"
		}
	}
	return "memcpy"
}
