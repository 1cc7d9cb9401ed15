package nsight

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	_ "modernc.org/sqlite" // pure-Go SQLite driver, registered as "sqlite"
)

// Export is an open Nsight Systems SQLite export (nsys export --type
// sqlite) with its catalogue: which of the tables asked for are real
// tables, and their columns. An export is untrusted input that can run code
// of its own, so it is opened read-only and immutable, a table that is a
// view is never read (Views names it), and every query runs under one
// deadline (Limits.QueryTimeout). Both readers of exports use it: this
// package's decoder (per-GPU timeline series) and profdiff's (kernels and
// layers of a profiler A/B).
type Export struct {
	// DB is the open database; Ctx carries the queries' deadline.
	DB  *sql.DB
	Ctx context.Context
	// Views are the tables asked for that are views: not catalogued, never read.
	Views []string
	// MaxStr is the longest string cell a reader loads (StrCol's bound).
	MaxStr int

	name    string
	timeout string
	cancel  context.CancelFunc
	cols    map[string]map[string]bool // table → column set
	strStmt *sql.Stmt                  // StringIds lookup, nil without the table
	strs    map[int64]string           // resolved StringIds
}

// OpenExport opens the export at path (a real file; name is what errors
// call it) and catalogues tables. Close releases it.
func OpenExport(name, path string, lim ingest.Limits, tables []string) (*Export, error) {
	u := url.URL{Scheme: "file", Opaque: (&url.URL{Path: path}).EscapedPath(), RawQuery: "mode=ro&immutable=1"}
	db, err := sql.Open("sqlite", u.String())
	if err != nil {
		return nil, fmt.Errorf("read nsight %s: %w", name, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), lim.QueryTimeout)
	e := &Export{DB: db, Ctx: ctx, MaxStr: max(lim.MaxStringBytes, 256), name: name, timeout: lim.QueryTimeout.String(),
		cancel: cancel, cols: map[string]map[string]bool{}, strs: map[int64]string{}}
	for _, t := range tables {
		var typ string
		err := db.QueryRowContext(ctx, `SELECT type FROM sqlite_master WHERE name = ? AND type IN ('table','view') LIMIT 1`, t).Scan(&typ)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			continue
		case err != nil:
			err = e.Bad(err)
			e.Close()
			return nil, err
		case typ != "table":
			e.Views = append(e.Views, t)
			continue
		}
		cs, err := db.QueryContext(ctx, `SELECT name FROM pragma_table_info(?) LIMIT 1000`, t)
		if err != nil {
			err = e.Bad(err)
			e.Close()
			return nil, err
		}
		m := map[string]bool{}
		for cs.Next() {
			var c string
			if cs.Scan(&c) == nil {
				m[c] = true
			}
		}
		cs.Close()
		e.cols[t] = m
	}
	return e, nil
}

// Close closes the statement, the database and the deadline.
func (e *Export) Close() {
	if e.strStmt != nil {
		e.strStmt.Close()
	}
	e.DB.Close()
	e.cancel()
}

// Bad wraps a query's error as an input error of the export, saying so
// when it is the deadline that ended the query.
func (e *Export) Bad(err error) error {
	if e.Ctx.Err() != nil {
		err = fmt.Errorf("%w: SQLite queries ran longer than %s (--query-timeout)", ingest.ErrLimit, e.timeout)
	}
	return &ingest.InputError{File: e.name, Offset: -1, Err: fmt.Errorf("nsight sqlite: %w", err)}
}

// Has reports whether table is a real table of the export with every one of cols.
func (e *Export) Has(table string, cols ...string) bool {
	c := e.cols[table]
	if c == nil {
		return false
	}
	for _, x := range cols {
		if !c[x] {
			return false
		}
	}
	return true
}

// FirstCol is the first of cols that table has ("" when none).
func (e *Export) FirstCol(table string, cols ...string) string {
	for _, c := range cols {
		if e.Has(table, c) {
			return c
		}
	}
	return ""
}

// PrepareStrings prepares the StringIds lookup that Str uses, when the
// export has the table (else Str resolves IDs to "").
func (e *Export) PrepareStrings() error {
	if !e.Has("StringIds", "id", "value") {
		return nil
	}
	s, err := e.DB.PrepareContext(e.Ctx, `SELECT `+StrCol("value", e.MaxStr)+` FROM StringIds WHERE id = ? LIMIT 1`)
	if err != nil {
		return e.Bad(err)
	}
	e.strStmt = s
	return nil
}

// Str resolves a name cell: a StringIds id (looked up once per id) or the
// text itself.
func (e *Export) Str(v any) (string, error) {
	switch x := v.(type) {
	case int64:
		if s, ok := e.strs[x]; ok {
			return s, nil
		}
		var s sql.NullString
		if e.strStmt != nil {
			if err := e.strStmt.QueryRowContext(e.Ctx, x).Scan(&s); err != nil && !errors.Is(err, sql.ErrNoRows) {
				return "", err
			}
		}
		e.strs[x] = s.String
		return s.String, nil
	case string:
		return x, nil
	case []byte:
		return string(x), nil
	}
	return "", nil
}

// NumCol selects column c only when it holds a number (NULL otherwise), so
// a blob or text cell is never loaded where a number belongs.
func NumCol(c string) string {
	return fmt.Sprintf(`CASE typeof("%[1]s") WHEN 'integer' THEN "%[1]s" WHEN 'real' THEN CASE WHEN abs("%[1]s") < 9e18 THEN CAST("%[1]s" AS INTEGER) END END`, c)
}

// StrCol selects column c only when it is at most max bytes long.
func StrCol(c string, max int) string {
	return fmt.Sprintf(`CASE WHEN octet_length("%s") <= %d THEN "%s" END`, c, max, c)
}
