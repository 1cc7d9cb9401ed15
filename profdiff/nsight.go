package profdiff

import (
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
	"github.com/pipeline-analyze/pipeline-analyze/ingest/gpu/nsight"
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

// readNsight reads an Nsight SQLite export at path (a real file) into a
// capture, keeping at most lim.MaxSpans rows.
func readNsight(name, path string, lim ingest.Limits) (*capture, error) {
	n, err := nsight.OpenExport(name, path, lim, nsysTables)
	if err != nil {
		return nil, err
	}
	defer n.Close()
	views := n.Views
	if len(views) > 0 {
		return nil, n.Bad(fmt.Errorf("%s: a view, not a table (not read: a view can run any query)", strings.Join(views, ", ")))
	}
	if !n.Has("CUPTI_ACTIVITY_KIND_KERNEL", "start", "end", "deviceId") {
		return nil, n.Bad(errors.New("no CUPTI_ACTIVITY_KIND_KERNEL table with start, end and deviceId: the export has no CUDA kernels"))
	}
	if err := n.PrepareStrings(); err != nil {
		return nil, err
	}
	c := newCapture(name, "nsight", lim.MaxStringBytes)
	rows := 0
	left := func() int { return max(lim.MaxSpans-rows, 0) }
	// query runs q (LIMIT left+1 appended) and calls f per row; it records
	// a drop when the table had more.
	query := func(table, q string, f func(r *sql.Rows) error) error {
		budget := left()
		r, err := n.DB.QueryContext(n.Ctx, q+fmt.Sprintf(" LIMIT %d", budget+1))
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
		if !n.Has(t.table, "start", "end", "deviceId") {
			continue
		}
		nameCol, corrCol, streamCol := "NULL", "NULL", "NULL"
		if t.kind == actKernel {
			if col := n.FirstCol(t.table, "shortName", "demangledName", "name"); col != "" {
				nameCol = nsight.StrCol(col, n.MaxStr)
			}
		}
		if t.kind == actMemcpy && n.Has(t.table, "copyKind") {
			nameCol = nsight.NumCol("copyKind")
		}
		if n.Has(t.table, "correlationId") {
			corrCol = nsight.NumCol("correlationId")
		}
		if n.Has(t.table, "streamId") {
			streamCol = nsight.NumCol("streamId")
		}
		q := fmt.Sprintf(`SELECT %s, %s, %s, %s, %s, %s FROM %s`, nsight.NumCol("start"), nsight.NumCol("end"), nsight.NumCol("deviceId"), corrCol, streamCol, nameCol, t.table)
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
				str, err := n.Str(nm)
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
			return nil, n.Bad(err)
		}
	}
	if n.Has("CUPTI_ACTIVITY_KIND_RUNTIME", "start", "globalTid", "correlationId") {
		q := fmt.Sprintf(`SELECT %s, %s, %s FROM CUPTI_ACTIVITY_KIND_RUNTIME WHERE typeof(correlationId) = 'integer'`, nsight.NumCol("start"), nsight.NumCol("globalTid"), nsight.NumCol("correlationId"))
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
			return nil, n.Bad(err)
		}
	}
	if n.Has("NVTX_EVENTS", "start", "end", "eventType", "globalTid") {
		textCol, idCol := "NULL", "NULL"
		if n.Has("NVTX_EVENTS", "text") {
			textCol = nsight.StrCol("text", n.MaxStr)
		}
		if n.Has("NVTX_EVENTS", "textId") {
			idCol = nsight.NumCol("textId")
		}
		q := fmt.Sprintf(`SELECT %s, %s, %s, %s, %s FROM NVTX_EVENTS WHERE eventType IN (%d, %d) AND typeof("end") = 'integer'`,
			nsight.NumCol("start"), nsight.NumCol("end"), nsight.NumCol("globalTid"), textCol, idCol, nvtxPushPop, nvtxStartEnd)
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
				if nm, err = n.Str(id.Int64); err != nil {
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
			return nil, n.Bad(err)
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
